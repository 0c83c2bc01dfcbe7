"""No attachment download spends the account's credits unless
:setting:`CRAWLER_ATTACHMENT_SPEND_CREDITS` allows it.

Discuz! charges in two ways, both behind a URL :data:`.links.CREDITS` matches: a priced
attachment is linked to its purchase page (``action=attachpay``), and a board whose credit
rule charges for downloads answers a member's ``mod=attachment`` with a redirect to
``action=attachcredit``, a GET that takes the credits (``forum_misc.php``). A downloader
middleware sees both, the redirect too (Scrapy sends it through every middleware again): it
refuses them, and the pipeline records the attachment ``denied``. A HEAD request (the size of
a file the forum does not list) is refused even when credits may be spent: it would pay for
nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

from scrapy.exceptions import IgnoreRequest, NotConfigured

from crawler import config
from crawler.attachments.links import CREDITS
from crawler.attachments.pipeline import META

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

__all__ = ["CreditsMiddleware"]


class CreditsMiddleware:
    """Downloader middleware: see the module docstring. Off without ``FILES_STORE``."""

    def __init__(self, stats: StatsCollector, spend: bool) -> None:
        self.stats = stats
        self.spend = spend

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.get("FILES_STORE"):
            raise NotConfigured("no attachments")
        return cls(crawler.stats,
                   config.value(crawler.settings, "CRAWLER_ATTACHMENT_SPEND_CREDITS"))

    def process_request(self, request: Request, spider: Any = None) -> None:
        if META in request.meta and CREDITS.search(request.url) \
                and (not self.spend or request.method == "HEAD"):
            self.stats.inc_value("attachments/credits")
            raise IgnoreRequest(f"{request.url} would spend credits "
                                "(CRAWLER_ATTACHMENT_SPEND_CREDITS)")
