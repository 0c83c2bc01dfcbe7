"""What the crawl fetches at all, beside :mod:`crawler.netguard` (which addresses): no
binary response past its headers, no redirect off the site."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
from scrapy.exceptions import StopDownload
from scrapy.http.request import NO_CALLBACK

from crawler.frontier.codec import LEASE_META

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


# What a crawler of forums and blogs parses (HTML, feeds, JSON APIs such as Flarum's
# application/vnd.api+json); anything else stops downloading once its headers arrive,
# and ends as the outcome filtered/not_a_page: no callback sees it (its errback does).
def is_page_type(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip()
    return kind.startswith("text/") or kind.endswith(("json", "xml", "html"))


class NotAPage(StopDownload):
    """A binary response, stopped by :class:`NotAPageFilter` once its headers arrived."""


class NotAPageFilter:
    """Stops the download of binary responses (images, archives, PDFs...) as soon
    as their headers arrive, so no bandwidth or parsing is spent on them."""

    def __init__(self, crawler: Crawler) -> None:
        self.stats = crawler.stats
        crawler.signals.connect(self._headers_received, signal=signals.headers_received)

    @classmethod
    def from_crawler(cls, crawler: Crawler):
        return cls(crawler)

    def _headers_received(self, headers, body_length, request, spider) -> None:
        if is_media_request(request):
            return  # a file or image a pipeline asked for: binary is what it wants
        content_type = (headers.get(b"Content-Type") or b"").decode("latin-1").lower()
        if content_type and not is_page_type(content_type):
            self.stats.inc_value("frontier/not_a_page")
            raise NotAPage(fail=True)  # an outcome (filtered/not_a_page), not a page


def is_media_request(request: Request) -> bool:
    """A download of the media pipelines (FilesPipeline, ImagesPipeline): they fetch through
    ``engine.download()``, past the frontier (so never leased), with ``NO_CALLBACK``. Pages of
    the crawl come from the frontier, leased, whatever their callback."""
    return request.callback is NO_CALLBACK and LEASE_META not in request.meta


class RedirectOffsiteMiddleware(OffsiteMiddleware):
    """Scrapy's offsite check, also for a redirect whose request had ``dont_filter``
    (a retry, a start request): ``dont_filter`` means "do not deduplicate", not "follow
    a server anywhere". Only ``allow_offsite`` lets a redirect leave the site."""

    def process_request(self, request: Request, spider: Any = None) -> None:
        if request.dont_filter and request.meta.get("redirect_urls") \
                and not request.meta.get("allow_offsite"):
            request = request.replace(dont_filter=False)
        super().process_request(request)
