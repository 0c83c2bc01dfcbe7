"""Middlewares that settle leases on every way out of Scrapy, and space robots.txt."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.utils.asyncio import sleep
from scrapy.utils.httpobj import urlparse_cached

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from crawler.scheduler.scheduler import Scheduler


def _scheduler(crawler: Crawler) -> Scheduler | None:
    scheduler = crawler.engine.scheduler if crawler.engine else None
    return scheduler if hasattr(scheduler, "settle") else None


class _LeaseMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler):
        return cls(crawler)

    def _settle(self, request: Request) -> None:
        if (scheduler := _scheduler(self.crawler)) is not None:
            scheduler.settle(request)


class LeaseSpiderMiddleware(_LeaseMiddleware):
    """Outermost spider middleware: a response's lease is settled once everything
    its callback produced has passed on to the engine (and so to the frontier)."""

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any]):
        try:
            async for item_or_request in result:
                yield item_or_request
        finally:
            self._settle(response.request)

    def process_spider_exception(self, response: Response, exception: Exception) -> None:
        self._settle(response.request)


class LeaseDownloaderMiddleware(_LeaseMiddleware):
    """Outermost downloader middleware: a download that failed for good (not
    turned into a retry by an inner middleware) settles its lease."""

    def process_exception(self, request: Request, exception: Exception) -> None:
        self._settle(request)


class PoliteRobotsTxtMiddleware(RobotsTxtMiddleware):
    """Scrapy's robots.txt middleware, but the request that waited for robots.txt
    also waits the host's politeness gap after it, so the two do not arrive
    back to back."""

    async def robot_parser(self, request: Request):
        fetching = urlparse_cached(request).netloc not in self._parsers
        parser = await super().robot_parser(request)
        scheduler = _scheduler(self.crawler)
        if fetching and scheduler is not None and (gap := scheduler.host_delay(request)) > 0:
            await sleep(gap)
        return parser
