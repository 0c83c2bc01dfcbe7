"""The Scrapy scheduler of the distributed frontier: a thin front over named parts.

==================  =============================================================
part                does
==================  =============================================================
``options``         the settings, read and checked once (:mod:`.options`)
``leases``          the lease book: settle, release, leaks (:mod:`.leases`)
``dispatch``        host batches held here, handed out within each host's gate (:mod:`.dispatch`)
``outcomes``        one outcome per URL, per-request counters (:mod:`.outcomes`)
``politeness``      Crawl-delays and host backoff fed to the gate (:mod:`.politeness`)
``exchange``        batches out, leases in, engine wake-ups (:mod:`.exchange`)
``loop``            heartbeat, deaths, control, outages, finish (:mod:`.node_loop`)
``frontier``        the Redis state, one method per Lua script (:mod:`.frontier`)
``membership``      the ring and rebalancing (:mod:`.membership`)
==================  =============================================================
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Self

from scrapy import signals
from scrapy.core.scheduler import BaseScheduler
from scrapy.utils.httpobj import urlparse_cached

from crawler.redis import FAILED, client_from_crawler, crawl_id
from crawler.scheduler import codec
from crawler.scheduler.bloom import BloomLayoutError
from crawler.scheduler.dispatch import Dispatch
from crawler.scheduler.dupefilter import BloomDupeFilter
from crawler.scheduler.exchange import TRANSIENT, Exchange
from crawler.scheduler.frontier import Frontier, Pending, RedisTooOld
from crawler.scheduler.keys import Keys, host_of
from crawler.scheduler.leases import LeaseBook
from crawler.scheduler.membership import Membership
from crawler.scheduler.node_loop import NodeLoop, Outage
from crawler.scheduler.options import SchedulerOptions
from crawler.scheduler.outcomes import Outcomes
from crawler.scheduler.politeness import Politeness
from crawler.scheduler.revisit import Revisits, watch_argument
from crawler.scheduler.traps import strip_session_ids

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

REFUSED_STAT = "frontier/refused"  # why Redis refused the start (read by `scrapy crawl`)


class Scheduler(BaseScheduler):
    """A frontier shared by every node of a crawl, kept in Redis.

    Hosts belong to nodes by a consistent-hash ring over the live members; a node
    only fetches hosts it owns, one host queue at a time (FIFO: breadth-first per
    host), within a per-host politeness gate that holds across the cluster. A
    request handed to Scrapy stays leased in Redis until its outcome has been
    processed; a dead node's leases go back to the queues.

    Engine contract: ``enqueue_request`` returns False only for a request dropped
    at once (seen recently by this node, filtered, or not encodable); the
    cluster-wide duplicate check happens when the request is flushed to Redis, and
    is counted under ``dupefilter/filtered``. ``next_request`` returns None when no
    owned host is due; the scheduler wakes the engine when one becomes due.
    ``has_pending_requests`` stays True until the whole cluster's frontier has
    been empty, with no leases out, for :setting:`CRAWLER_IDLE_CLOSE` seconds.

    Middlewares reach the parts through :func:`frontier_scheduler`. Closing never
    deletes shared state.
    """

    def __init__(self, crawler: Crawler, dupefilter: BloomDupeFilter,
                 options: SchedulerOptions) -> None:
        self.crawler = crawler
        self.df = dupefilter
        self.options = options
        self.node = options.node
        self.spider: Spider | None = None
        self.outage = Outage(crawler.stats)
        self.outcomes = Outcomes(self.node, crawler.stats)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler, BloomDupeFilter.from_crawler(crawler),
                   SchedulerOptions.from_settings(crawler.settings))

    # -- lifecycle --------------------------------------------------------------

    def open(self, spider: Spider) -> None:
        try:
            self._open(spider)
        except FAILED as exc:  # Redis took the connection but refuses the crawl's state
            self._refuse(f"Redis refused to start the crawl's frontier "
                         f"({type(exc).__name__}: {exc})")
        except (BloomLayoutError, RedisTooOld) as exc:  # an older crawl's state or server
            self._refuse(str(exc))

    def _refuse(self, message: str) -> None:
        """Say so in one line and end the crawl at once: nothing is queued, so the engine
        closes the spider as soon as it is idle, and ``scrapy crawl`` exits non-zero (an
        exception here would end in Scrapy's tracebacks of a half-opened engine)."""
        logger.error(message)
        self.crawler.stats.set_value(REFUSED_STAT, message)
        self.enqueue_request = lambda request: False  # type: ignore[method-assign]
        self.next_request = lambda: None  # type: ignore[method-assign]
        self.has_pending_requests = lambda: False  # type: ignore[method-assign]

    def _open(self, spider: Spider) -> None:
        self.spider = spider
        o, crawler = self.options, self.crawler
        self.frontier = Frontier(
            client_from_crawler(crawler), Keys(crawl_id(crawler)), self.node,
            delay_ms=int(o.delay * 1000), max_inflight=o.max_inflight, host_limit=o.host_limit,
            bloom_capacity=o.bloom_capacity, bloom_error_rate=o.bloom_error_rate,
            backoff_base_ms=int(o.backoff_base * 1000), backoff_max_ms=int(o.backoff_max * 1000),
            host_batch=o.host_batch)
        self.membership = Membership(self.frontier, weight=o.weight, vnodes=o.vnodes,
                                     timeout_ms=int(o.node_timeout * 1000),
                                     dead_letter_after=o.dead_letter_after)
        self.leases = LeaseBook(self.outcomes, self.frontier.now_ms, Dispatch(o.max_inflight))
        self.politeness = Politeness(o.delay, self.leases, self._robots_agent,
                                     max_delay=o.backoff_max)
        self.exchange = Exchange(crawler, o, self.frontier, self.membership, self.leases,
                                 self.politeness, self.df, self.outage)
        self.membership.join()
        self.revisits = Revisits(self.frontier, self.membership, self.outcomes,
                                 watch=self._watch(spider),
                                 min_interval=o.revisit_min_interval,
                                 max_interval=o.revisit_max_interval)
        self.revisits.open(self._finished_at())
        self.loop = NodeLoop(crawler, o, self.frontier, self.membership, self.exchange, self.df,
                             self.outage, self.revisits)
        self.df.open()
        connect = crawler.signals.connect
        connect(self.leases.request_scheduled, signal=signals.request_scheduled)
        connect(self.leases.request_started, signal=signals.request_reached_downloader)
        connect(self.leases.response_received, signal=signals.response_received)
        connect(self.politeness.robots_parsed, signal=signals.robots_parsed)
        self._say_what_the_addon_adds()
        self.loop.start()

    def _watch(self, spider: Spider) -> float:
        """:setting:`CRAWLER_WATCH`, or the spider argument ``-a watch=<seconds>``."""
        raw = getattr(spider, "watch", None)
        return self.options.watch if raw in (None, "") else watch_argument(raw)

    def _finished_at(self) -> int | None:
        finished = self.frontier._send("hget", self.frontier.keys.control, "finished_at")
        return int(finished) if finished else None

    def close(self, reason: str) -> None:
        if not hasattr(self, "loop"):  # the start failed: nothing to hand back
            return
        self.loop.stop()
        self.exchange.waker.cancel()
        # what was leased but never started goes back with leave(); the batches it
        # belonged to are done, so their acks go out with the flush
        self.exchange.unstarted()
        deadline = time.monotonic() + self.options.node_timeout
        while True:  # hand back everything, waiting out a short Redis outage
            try:
                self.exchange.flush()
                self.revisits.flush()
                self.membership.leave()
                break
            except TRANSIENT as exc:
                self.outage.failed(exc)
                if time.monotonic() > deadline:
                    logger.error("Redis stayed unreachable: %(n)d discovered requests could not "
                                 "be stored; this node's leases return to the queues once it "
                                 "times out", {"n": len(self.exchange.outbox)})
                    return
                time.sleep(0.5)
        self.leases.leased.clear()
        self.loop.update_stats()
        self.outcomes.publish(self.frontier, TRANSIENT)
        if not self.outcomes.unpublished():
            self.outcomes.retire(self.frontier, TRANSIENT)
        self.df.close(reason)

    # -- the engine's interface -------------------------------------------------

    def has_pending_requests(self) -> bool:
        return bool(self.leases.dispatch or self.exchange.has_unsent() or self.leases.leased) \
            or not self.loop.cluster_done

    def __len__(self) -> int:
        return len(self.leases.dispatch) + len(self.exchange.outbox)

    def enqueue_request(self, request: Request) -> bool:
        retry = self.leases.continue_lease(request)
        fingerprint = None
        if not retry:
            if self.drop_if_seen(request):
                return False
            self.outcomes.record("discovered")
            dedup = self._deduplicated(request)
            found_as = request.url
            request = self._without_session_ids(request)
            # Filters first: a URL dropped here (too deep) must not enter the seen
            # cache, or found again where it is allowed it would pass for a duplicate.
            if reason := self._filter_reason(request):
                self.outcomes.record(f"filtered/{reason}")
                return False
            if dedup:
                fingerprint = self.df.check(request, found_as)
                if fingerprint is None:
                    self.outcomes.record("filtered/duplicate")
                    return False
        host = host_of(request)
        try:
            payload = codec.encode(request, self.spider, host)
        except codec.EncodeError as exc:
            self.outcomes.record("failed/unencodable", request.url)
            logger.error("Cannot queue %(request)s: %(exc)s (queued requests hold plain data: "
                         "URL, callback name, JSON-able meta and cb_kwargs)",
                         {"request": request, "exc": exc}, extra={"spider": self.spider})
            return False
        self.exchange.push(Pending(host, fingerprint, payload, request.url, retry), request)
        return True

    def drop_if_seen(self, request: Request) -> bool:
        """Drop *request* if this node queued its exact URL lately: the cheapest test,
        which the add-on's spider middleware runs on a callback's output so that
        repeated links (navigation, board lists) skip Scrapy's path to the scheduler."""
        if self._deduplicated(request) and self.df.seen_url(request):
            self.outcomes.record("discovered")
            self.outcomes.record("filtered/duplicate")
            return True
        return False

    @staticmethod
    def _deduplicated(request: Request) -> bool:
        # Start requests are deduplicated even when dont_filter (Scrapy's default for
        # start_urls): otherwise every node, and every resumed run, fetches them again.
        return not request.dont_filter or bool(request.meta.get("is_start_request"))

    def next_request(self) -> Request | None:
        if self.loop.cut_off():
            return None
        return self.exchange.next_request(paused=self.loop.draining or self.loop.paused)

    def _filter_reason(self, request: Request) -> str | None:
        if self.options.depth_limit and request.meta.get("depth", 0) > self.options.depth_limit:
            return "depth"
        if reason := self.options.traps.reason(request.url, urlparse_cached(request)):
            return f"trap/{reason}"
        return None

    def _without_session_ids(self, request: Request) -> Request:
        url = strip_session_ids(request.url)
        if url == request.url:
            return request
        self.outcomes.counts["frontier/session_ids_stripped"] += 1
        return request.replace(url=url)

    def _say_what_the_addon_adds(self) -> None:
        middlewares = self.crawler.settings.getwithbase("SPIDER_MIDDLEWARES")
        if "crawler.scheduler.middleware.LeaseSpiderMiddleware" in middlewares:
            return
        logger.info(
            "Running without crawler.addon.ClusterAddon: the frontier settles its leases "
            "through signals and uses its defaults. The add-on would add: the exact reason of "
            "each download error, host backoff on 429/503 and connection errors, polite "
            "robots.txt (RFC 9309), binary responses stopped at their headers, depth and URL "
            "length counted as outcomes, DOWNLOAD_DELAY held by the cluster-wide gate only, "
            "the item stream, health endpoints and progress lines, repeated links dropped "
            "before Scrapy's spider middlewares, and Python's garbage collector tuned for "
            "crawling. "
            "Add ADDONS = {\"crawler.addon.ClusterAddon\": 0} to get them.",
            extra={"spider": self.spider})

    def _robots_agent(self, request: Request) -> str | bytes | None:
        settings = self.crawler.settings
        return settings.get("ROBOTSTXT_USER_AGENT") or request.headers.get(b"User-Agent") \
            or settings.get("USER_AGENT")

    def health(self) -> dict:
        """What the health endpoints and the progress log report about this node."""
        return self.loop.health()


def frontier_scheduler(crawler: Crawler) -> Scheduler | None:
    """The crawl's :class:`Scheduler` once it is open, for middlewares and extensions."""
    scheduler = getattr(crawler.engine, "scheduler", None)
    if isinstance(scheduler, Scheduler) and hasattr(scheduler, "loop"):
        return scheduler
    return None
