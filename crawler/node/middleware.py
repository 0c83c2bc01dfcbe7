"""Middlewares that settle leases on every way out of Scrapy, drop repeated links and
space robots.txt."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import DownloadCancelledError, IgnoreRequest, StopDownload
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.spidermiddlewares.depth import DepthMiddleware
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred

from crawler.config import value
from crawler.fetch_policy import NotAPage
from crawler.frontier.codec import LEASE_META
from crawler.netguard import refused_host
from crawler.node.api import node_of
from crawler.node.deep import DEEP
from crawler.node.outcomes import (
    PRIVATE_ADDRESS,
    ROBOTS_UNAVAILABLE,
    exception_outcome,
    response_outcome,
)
from crawler.node.politeness import remember

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


def _host_port(netloc: str) -> str:
    """*netloc* without its userinfo (``user:pass@``)."""
    return netloc.rpartition("@")[2]


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


class PoliteRobotsTxtMiddleware(RobotsTxtMiddleware):
    """Scrapy's robots.txt middleware, made polite and RFC 9309 compliant.

    - The request that waited for robots.txt goes back to its host's queue, so it
      waits the host's politeness gap (a Crawl-delay included, capped at
      ``CRAWLER_BACKOFF_MAX``) in the frontier, not in Scrapy holding its lease.
    - 4xx: allow all. 5xx or unreachable: disallow all until a later fetch
      succeeds; meanwhile the host backs off and requests go back to the frontier
      (at most ``CRAWLER_ROBOTS_MAX_WAITS`` times each, then filtered/robots).
    - Cached per host for ``CRAWLER_ROBOTS_TTL`` seconds.
    - A host the netguard refused (every address private, :func:`crawler.netguard.refused_host`)
      is no robots.txt failure: its requests end as ``filtered/private_address``.
    - robots.txt is per host: a URL's userinfo (``http://user@host/``) is not part of its
      robots.txt URL (RFC 9309) nor of the key of its parser.
    """

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.ttl = value(crawler.settings, "CRAWLER_ROBOTS_TTL")
        self.max_waits = value(crawler.settings, "CRAWLER_ROBOTS_MAX_WAITS")
        self._fetched_at: dict[str, float] = {}
        self._unavailable: set[str] = set()
        self._retry_after: dict[str, float] = {}  # netloc -> its robots.txt's Retry-After
        self.retry_after_max = value(crawler.settings, "CRAWLER_RETRY_AFTER_MAX")

    async def process_request(self, request: Request, spider: Any = None) -> Request | None:
        if request.meta.get("dont_obey_robotstxt") or request.url.startswith(("data:", "file:")):
            return None
        url = urlparse_cached(request)
        if refused_host(url.hostname):  # known already: no robots.txt to try
            raise IgnoreRequest(PRIVATE_ADDRESS)
        netloc = _host_port(url.netloc)
        if time.monotonic() - self._fetched_at.get(netloc, time.monotonic()) > self.ttl:
            self._parsers.pop(netloc, None)
        fetching = netloc not in self._parsers
        parser = await self.robot_parser(request)
        if refused_host(url.hostname):  # its robots.txt found no address the netguard allows
            self._unavailable.discard(netloc)
            self._parsers.pop(netloc, None)
            raise IgnoreRequest(PRIVATE_ADDRESS)
        if netloc in self._unavailable:
            return self._wait_for_robots(request, netloc)
        self.process_request_2(parser, request)
        node = node_of(self.crawler)
        if fetching and node is not None and (node.pending_gap(request) or 0) > 0:
            # robots.txt was just fetched: the request goes back to its host's queue
            # and waits out the host's gap there, not here holding its lease
            self._stats.inc_value("robotstxt/requeued_after_fetch")
            return request.replace(dont_filter=True)
        return None

    async def robot_parser(self, request: Request) -> Any:
        url = urlparse_cached(request)
        if "@" in url.netloc:  # robots.txt of the host, without the URL's userinfo
            request = request.replace(url=url._replace(netloc=_host_port(url.netloc)).geturl())
        return await super().robot_parser(request)

    def _wait_for_robots(self, request: Request, netloc: str) -> Request:
        self._parsers.pop(netloc, None)  # fetch it again next time
        self._unavailable.discard(netloc)
        waits = request.meta.get("robots_waits", 0)
        if waits >= self.max_waits:
            raise IgnoreRequest(ROBOTS_UNAVAILABLE)
        if (node := node_of(self.crawler)) is not None:
            node.back_off(request, self._retry_after.pop(netloc, None), "robots_unavailable")
        self._stats.inc_value("robotstxt/unavailable_retry")
        return request.replace(dont_filter=True, meta={**request.meta, "robots_waits": waits + 1})

    def _fetched(self, netloc: str) -> None:
        for old in remember(self._fetched_at, netloc, time.monotonic()):
            if not isinstance(self._parsers.get(old), Deferred):  # not being fetched
                self._parsers.pop(old, None)
            self._retry_after.pop(old, None)

    async def _parse_robots(self, response: Response, netloc: str, request: Request) -> None:
        self._fetched(netloc)
        if response.status >= 500 or response.status == 429:  # 429: unavailable too
            self._unavailable.add(netloc)
            if wait := retry_after(response.headers.get(b"Retry-After"), self.retry_after_max):
                self._retry_after[netloc] = wait
            response = response.replace(body=b"User-agent: *\nDisallow: /\n")
        elif response.status >= 400:
            response = response.replace(body=b"")  # RFC 9309: unavailable means allow all
        await super()._parse_robots(response, netloc, request)

    def _robots_error(self, exc: Exception, netloc: str) -> None:
        self._fetched(netloc)
        if not isinstance(exc, IgnoreRequest):
            self._unavailable.add(netloc)  # RFC 9309: unreachable means disallow all
        super()._robots_error(exc, netloc)
