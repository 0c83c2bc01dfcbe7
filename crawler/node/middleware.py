"""Middlewares that settle leases on every way out of Scrapy, drop repeated links and
back a host off."""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.exceptions import DownloadCancelledError, IgnoreRequest, StopDownload
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.spidermiddlewares.depth import DepthMiddleware

from crawler.config import value
from crawler.fetch_policy import NotAPage
from crawler.frontier.codec import LEASE_META
from crawler.node.api import node_of
from crawler.node.deep import DEEP
from crawler.node.outcomes import (
    exception_outcome,
    response_outcome,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.crawler import Crawler
    from scrapy.http import Response


class _LeaseMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler):
        return cls(crawler)

    def _settle(self, request: Request, outcome: str) -> None:
        if (node := node_of(self.crawler)) is not None:
            node.settle(request, outcome)


class LeaseSpiderMiddleware(_LeaseMiddleware):
    """Outermost spider middleware: a response's lease is settled once everything
    its callback produced has passed on to the engine (and so to the frontier)."""

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any]):
        try:
            async for item_or_request in result:
                yield item_or_request
        finally:
            self._settle(response.request, response_outcome(response))

    def process_spider_exception(self, response: Response, exception: Exception) -> None:
        self._settle(response.request, response_outcome(response))


class RepeatLinkFilter(BaseSpiderMiddleware):
    """Innermost spider middleware: a link this node queued lately ends here as
    ``filtered/duplicate``, as the scheduler would end it, before the other spider
    middlewares (depth, referer) and the engine's way there (signals, the offsite
    check, the scraper's queue): most links a page yields are such repeats.

    A listing's rows (``revisit_row``) pass: the revisit middleware records each and
    fetches a changed one again (:mod:`crawler.incremental`); so do the links of a deep
    revisit's page, whose next pages it reads again."""

    def get_processed_request(self, request: Request, response: Response | None) -> Request | None:
        if response is None or "revisit_row" in request.meta:
            return request
        node = node_of(self.crawler)
        if node is None or response.meta.get(DEEP):
            return request
        return None if node.drop_if_seen(request) else request


class DepthOnlyMiddleware(DepthMiddleware):
    """Scrapy's depth middleware (the add-on's, at its place): it records each request's
    ``depth`` and the depth stats, and leaves :setting:`DEPTH_LIMIT` to the frontier,
    which drops deeper requests and counts them (``outcomes/filtered/depth``)."""

    @classmethod
    def from_crawler(cls, crawler: Crawler):
        middleware = super().from_crawler(crawler)
        middleware.maxdepth = 0  # no limit here: the frontier applies DEPTH_LIMIT
        return middleware


class LeaseDownloaderMiddleware(_LeaseMiddleware):
    """Outermost downloader middleware: a download that failed for good (not
    turned into a retry by an inner middleware) settles its lease."""

    def process_exception(self, request: Request, exception: Exception) -> None:
        self._settle(request, exception_outcome(exception, request))
        if isinstance(exception, NotAPage):
            # an outcome, not an error: errbacks still see it, Scrapy does not log it; a
            # StopDownload of the project's own reaches its errback as raised
            raise IgnoreRequest("Not a page (binary content type)") from exception


class HostBackoffMiddleware(_LeaseMiddleware):
    """Sits just inside the retry middleware, so it sees a 429/503 or a connection
    failure before the retry does: the failed request's lease then puts the host
    into backoff, cluster-wide, while the retry goes back through the frontier."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.codes = set(value(crawler.settings, "CRAWLER_BACKOFF_HTTP_CODES"))
        self.retry_after_max = value(crawler.settings, "CRAWLER_RETRY_AFTER_MAX")

    def process_response(self, request: Request, response: Response) -> Response:
        if is_robots_request(request):
            # robots.txt is never retried here, back to back: a failed fetch makes its
            # host wait in the frontier (PoliteRobotsTxtMiddleware), Retry-After included
            request.meta["dont_retry"] = True
            return response
        node = node_of(self.crawler)
        if response.status in self.codes and node is not None:
            wait = retry_after(response.headers.get(b"Retry-After"), self.retry_after_max)
            node.back_off(request, wait, f"http_{response.status}")
        return response

    def process_exception(self, request: Request, exception: Exception) -> None:
        if is_robots_request(request):
            request.meta["dont_retry"] = True
            return
        node = node_of(self.crawler)
        host_trouble = not isinstance(exception,
                                      (IgnoreRequest, DownloadCancelledError, StopDownload))
        if host_trouble and node is not None:
            node.back_off(request, None, type(exception).__name__)


def is_robots_request(request: Request) -> bool:
    """The robots.txt fetch of Scrapy's robots.txt middleware (not a leased request)."""
    return bool(request.meta.get("dont_obey_robotstxt")) and request.url.endswith("/robots.txt") \
        and LEASE_META not in request.meta


def retry_after(value: bytes | None, cap: float) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date)."""
    if not value:
        return None
    text = value.decode("latin-1").strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(text) - datetime.now(timezone.utc)).total_seconds()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), cap) or None
