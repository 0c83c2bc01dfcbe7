"""Middlewares that settle leases on every way out of Scrapy, and space robots.txt."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from email.utils import parsedate_to_datetime
from datetime import datetime, timezone

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import IgnoreRequest
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

    def _settle(self, request: Request, outcome: str) -> None:
        if (scheduler := _scheduler(self.crawler)) is not None:
            scheduler.settle(request, outcome)


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


class LeaseDownloaderMiddleware(_LeaseMiddleware):
    """Outermost downloader middleware: a download that failed for good (not
    turned into a retry by an inner middleware) settles its lease."""

    def process_exception(self, request: Request, exception: Exception) -> None:
        self._settle(request, exception_outcome(exception))


def response_outcome(response: Response) -> str:
    """A response is a fetch, unless its status says the server failed us."""
    if response.status >= 500 or response.status in (408, 429):
        return f"failed/http_{response.status}"
    return f"fetched/{response.status}"


def exception_outcome(exception: Exception) -> str:
    if isinstance(exception, IgnoreRequest):
        # Scrapy's own middlewares say why only in the message
        message = str(exception)
        if message.startswith("Forbidden by robots.txt"):
            return "filtered/robots"
        if message.startswith("Filtered offsite"):
            return "filtered/offsite"
        return "filtered/ignored"
    return f"failed/{type(exception).__name__}"


class HostBackoffMiddleware(_LeaseMiddleware):
    """Sits just inside the retry middleware, so it sees a 429/503 or a connection
    failure before the retry does: the failed request's lease then puts the host
    into backoff, cluster-wide, while the retry goes back through the frontier."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.codes = {int(c) for c in crawler.settings.getlist("CRAWLER_BACKOFF_HTTP_CODES")}
        self.retry_after_max = crawler.settings.getfloat("CRAWLER_RETRY_AFTER_MAX")

    def process_response(self, request: Request, response: Response) -> Response:
        scheduler = _scheduler(self.crawler)  # (a Scheduler with nothing queued is falsy)
        if response.status in self.codes and scheduler is not None:
            wait = retry_after(response.headers.get(b"Retry-After"), self.retry_after_max)
            scheduler.back_off(request, wait, f"http_{response.status}")
        return response

    def process_exception(self, request: Request, exception: Exception) -> None:
        scheduler = _scheduler(self.crawler)
        if not isinstance(exception, IgnoreRequest) and scheduler is not None:
            scheduler.back_off(request, None, type(exception).__name__)


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
