"""robots.txt, fetched once per host, obeyed politely and as RFC 9309 says.

Scrapy's own ``RobotsTxtMiddleware`` is replaced rather than subclassed: what this one
changes (status handling, the host's gate, the cache's life) sits in that class's private
methods, and the project reads no Scrapy private attribute. Only public parts are used:
``engine.download_async``, the ``ROBOTSTXT_*`` settings and the ``robots_parsed`` signal
(the blog spider reads a host's Sitemap lines from it).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler, load_object
from twisted.internet.defer import Deferred

from crawler.config import value
from crawler.netguard import refused_host
from crawler.node.api import node_of
from crawler.node.middleware import retry_after
from crawler.node.outcomes import PRIVATE_ADDRESS, ROBOTS_UNAVAILABLE
from crawler.node.politeness import remember

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.robotstxt import RobotParser

logger = logging.getLogger(__name__)

#: robots.txt goes before the pages waiting for it (Scrapy's own priority)
ROBOTS_PRIORITY = 1000
DISALLOW_ALL = b"User-agent: *\nDisallow: /\n"


def host_port(netloc: str) -> str:
    """*netloc* without its userinfo (``user:pass@``): robots.txt is per host (RFC 9309)."""
    return netloc.rpartition("@")[2]


class PoliteRobotsTxtMiddleware:
    """robots.txt per host, made polite and RFC 9309 compliant.

    - The request that waited for robots.txt goes back to its host's queue, so it
      waits the host's politeness gap (a Crawl-delay included, capped at
      ``CRAWLER_BACKOFF_MAX``) in the frontier, not in Scrapy holding its lease.
    - 4xx: allow all. 5xx, 429 or unreachable: disallow all until a later fetch
      succeeds; meanwhile the host backs off and requests go back to the frontier
      (at most ``CRAWLER_ROBOTS_MAX_WAITS`` times each, then filtered/robots).
    - Cached per host for ``CRAWLER_ROBOTS_TTL`` seconds.
    - A host the netguard refused (every address private, :func:`crawler.netguard.refused_host`)
      is no robots.txt failure: its requests end as ``filtered/private_address``.
    - A URL's userinfo (``http://user@host/``) is part of neither its robots.txt URL nor
      the key of its parser.
    """

    def __init__(self, crawler: Crawler) -> None:
        settings = crawler.settings
        if not settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured
        self.crawler = crawler
        self.stats = crawler.stats
        self.useragent = settings["ROBOTSTXT_USER_AGENT"]
        self.default_useragent = settings["USER_AGENT"]
        self.parser_class = load_object(settings["ROBOTSTXT_PARSER"])
        build_from_crawler(self.parser_class, crawler, b"")  # its library is installed
        self.ttl = value(settings, "CRAWLER_ROBOTS_TTL")
        self.max_waits = value(settings, "CRAWLER_ROBOTS_MAX_WAITS")
        self.retry_after_max = value(settings, "CRAWLER_RETRY_AFTER_MAX")
        self.parsers: dict[str, RobotParser | Deferred[RobotParser | None] | None] = {}
        self.fetched_at: dict[str, float] = {}
        self.unavailable: set[str] = set()
        self.retry_after: dict[str, float] = {}  # netloc -> its robots.txt's Retry-After

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PoliteRobotsTxtMiddleware:
        return cls(crawler)

    async def process_request(self, request: Request, spider: Any = None) -> Request | None:
        if request.meta.get("dont_obey_robotstxt") or request.url.startswith(("data:", "file:")):
            return None
        url = urlparse_cached(request)
        if refused_host(url.hostname):  # known already: no robots.txt to try
            raise IgnoreRequest(PRIVATE_ADDRESS)
        netloc = host_port(url.netloc)
        if time.monotonic() - self.fetched_at.get(netloc, time.monotonic()) > self.ttl:
            self.parsers.pop(netloc, None)
        fetching = netloc not in self.parsers
        parser = await self.parser_of(url.scheme, netloc)
        if refused_host(url.hostname):  # its robots.txt found no address the netguard allows
            self.unavailable.discard(netloc)
            self.parsers.pop(netloc, None)
            raise IgnoreRequest(PRIVATE_ADDRESS)
        if netloc in self.unavailable:
            return self.wait_for_robots(request, netloc)
        self.obey(parser, request)
        node = node_of(self.crawler)
        if fetching and node is not None and (node.pending_gap(request) or 0) > 0:
            # robots.txt was just fetched: the request goes back to its host's queue
            # and waits out the host's gap there, not here holding its lease
            self.stats.inc_value("robotstxt/requeued_after_fetch")
            return request.replace(dont_filter=True)
        return None

    def obey(self, parser: RobotParser | None, request: Request) -> None:
        useragent = self.useragent or request.headers.get(b"User-Agent", self.default_useragent)
        if parser is not None and not parser.allowed(request.url, useragent):
            logger.debug("Forbidden by robots.txt: %s", request)
            self.stats.inc_value("robotstxt/forbidden")
            raise IgnoreRequest("Forbidden by robots.txt")

    async def parser_of(self, scheme: str, netloc: str) -> RobotParser | None:
        """The host's parser, fetching its robots.txt once however many requests wait."""
        if netloc not in self.parsers:
            waiting = self.parsers[netloc] = Deferred()
            self.parsers[netloc] = await self.fetch(f"{scheme}://{netloc}/robots.txt", netloc)
            self.stats.inc_value("robotstxt/request_count")
            waiting.callback(self.parsers[netloc])
        parser = self.parsers[netloc]
        if isinstance(parser, Deferred):
            return await maybe_deferred_to_future(parser)
        return parser

    async def fetch(self, url: str, netloc: str) -> RobotParser | None:
        request = Request(url, priority=ROBOTS_PRIORITY, callback=NO_CALLBACK,
                          meta={"dont_obey_robotstxt": True})
        try:
            response = await self.crawler.engine.download_async(request)
        except Exception as exc:  # noqa: BLE001 - any failure means "unreachable" here
            return self.unreachable(exc, request, netloc)
        return await self.parse(response, netloc, request)

    async def parse(self, response: Response, netloc: str, request: Request) -> RobotParser:
        self.fetched(netloc)
        self.stats.inc_value("robotstxt/response_count")
        self.stats.inc_value(f"robotstxt/response_status_count/{response.status}")
        body = response.body
        if response.status >= 500 or response.status == 429:  # 429: unavailable too
            self.unavailable.add(netloc)
            if wait := retry_after(response.headers.get(b"Retry-After"), self.retry_after_max):
                self.retry_after[netloc] = wait
            body = DISALLOW_ALL
        elif response.status >= 400:
            body = b""  # RFC 9309: unavailable means allow all
        parser = build_from_crawler(self.parser_class, self.crawler, body)
        await self.crawler.signals.send_catch_log_async(
            signal=signals.robots_parsed, robotparser=parser, request=request)
        return parser

    def unreachable(self, exc: Exception, request: Request, netloc: str) -> None:
        self.fetched(netloc)
        if not isinstance(exc, IgnoreRequest):
            logger.error("Error downloading %(request)s: %(f_exception)s",  # logs.OncePerHost
                         {"request": request, "f_exception": exc})
            self.stats.inc_value(f"robotstxt/exception_count/{type(exc)}")
            self.unavailable.add(netloc)  # RFC 9309: unreachable means disallow all

    def wait_for_robots(self, request: Request, netloc: str) -> Request:
        self.parsers.pop(netloc, None)  # fetch it again next time
        self.unavailable.discard(netloc)
        waits = request.meta.get("robots_waits", 0)
        if waits >= self.max_waits:
            raise IgnoreRequest(ROBOTS_UNAVAILABLE)
        if (node := node_of(self.crawler)) is not None:
            node.back_off(request, self.retry_after.pop(netloc, None), "robots_unavailable")
        self.stats.inc_value("robotstxt/unavailable_retry")
        return request.replace(dont_filter=True, meta={**request.meta, "robots_waits": waits + 1})

    def fetched(self, netloc: str) -> None:
        for old in remember(self.fetched_at, netloc, time.monotonic()):
            if not isinstance(self.parsers.get(old), Deferred):  # not being fetched
                self.parsers.pop(old, None)
            self.retry_after.pop(old, None)
