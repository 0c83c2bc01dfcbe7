"""The node runtime: one node's parts of the distributed frontier, behind a small API.

==================  =============================================================
part                does
==================  =============================================================
``options``         the settings, read and checked once (:mod:`.options`)
``frontier``        the Redis state, one method per Lua script (:mod:`.frontier`)
``membership``      the ring and rebalancing (:mod:`.membership`)
``dispatch``        host batches held here, handed out within each host's gate (:mod:`.dispatch`)
``leases``          the lease book: settle, hand back, leaks (:mod:`.leases`)
``acks``            settled leases' acks on their way to Redis (:mod:`.leases`)
``outcomes``        one outcome per URL, per-request counters (:mod:`.outcomes`)
``politeness``      Crawl-delays and host backoff fed to the gate (:mod:`.politeness`)
``turns``           the gate for requests the frontier never queues: attachments (:mod:`.turns`)
``exchange``        batches out, leases in, engine wake-ups (:mod:`.exchange`)
``revisits``        the state of incremental re-crawls and watch mode (:mod:`.revisit`)
``loop``            heartbeat, deaths, control, outages, finish (:mod:`.node_loop`)
==================  =============================================================

:class:`~crawler.scheduler.Scheduler` drives a :class:`Node` for the engine. Everything
else (the middlewares, :mod:`crawler.incremental`, :mod:`crawler.ops`, the learned
templates' store) sees it only as a :class:`NodeAPI`, found with :func:`node_of`.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Self

from scrapy import signals
from scrapy.utils.httpobj import urlparse_cached

from crawler.durable import ItemDurability
from crawler.frontier import codec
from crawler.frontier.bloom import BloomLayoutError
from crawler.frontier.frontier import Frontier, Pending
from crawler.frontier.keys import Keys, queue_host
from crawler.frontier.membership import Membership
from crawler.node.api import NodeAPI, node_of
from crawler.node.dispatch import Dispatch
from crawler.node.dupefilter import BloomDupeFilter
from crawler.node.exchange import Exchange
from crawler.node.leases import AckQueue, LeaseBook
from crawler.node.node_loop import NodeLoop
from crawler.node.outage import TRANSIENT, Outage, RedisTooOld
from crawler.node.outcomes import Outcomes, run_id
from crawler.node.overflow import Overflow
from crawler.node.politeness import Politeness
from crawler.node.revisit import Revisits, watch_argument
from crawler.node.traps import strip_session_ids, strip_userinfo
from crawler.node.turns import HostTurns
from crawler.redis import FAILED, RedisUnavailable, client_from_crawler, crawl_id

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from crawler.node.dupefilter import LocalDupeFilter
    from crawler.node.options import SchedulerOptions

logger = logging.getLogger(__name__)

__all__ = ["REFUSALS", "REFUSED_STAT", "Node", "NodeAPI", "Refused", "node_of", "refusal"]

REFUSED_STAT = "frontier/refused"  # why Redis refused the start (read by `scrapy crawl`)

#: What ends a node's start at once (see :class:`Refused`): a Redis that takes the
#: connection but refuses the crawl's state, an older crawl's Bloom filter, an old
#: server, or one out of reach (``scrapy crawl`` checks that first, in its preflight)
REFUSALS = (*FAILED, BloomLayoutError, RedisTooOld, RedisUnavailable)


class Node:
    """One node's runtime: its parts, wired together (see the module docstring).

    Redis keys: the crawl's, through :class:`~crawler.frontier.frontier.Frontier` and
    :class:`~crawler.node.revisit.Revisits`. Closing never deletes shared state.
    """

    def __init__(self, crawler: Crawler, options: SchedulerOptions, frontier: Frontier,
                 dupefilter: BloomDupeFilter | LocalDupeFilter, *, watch: float,
                 robots_user_agent: str | None, user_agent: str | None, addon: bool) -> None:
        o = options
        self.crawler = crawler
        self.spider = crawler.spider  # the spider whose callbacks queued requests name
        self.options = options
        self.name = o.node
        self.frontier = frontier
        self.dupefilter = dupefilter
        self.addon = addon  # the add-on's middlewares settle leases (else signals do)
        self.outage = Outage(crawler.stats)
        run = run_id(o.node)
        self.outcomes = Outcomes(run, crawler.stats)
        self.membership = Membership(frontier, weight=o.weight, vnodes=o.vnodes,
                                     timeout_ms=int(o.node_timeout * 1000),
                                     dead_letter_after=o.dead_letter_after)
        self.dispatch = Dispatch(o.max_inflight)
        self.acks = AckQueue()
        self.leases = LeaseBook(self.outcomes, frontier.now_ms, self.dispatch, self.acks)
        self.politeness = Politeness(o.delay, self.leases, self.outcomes, max_delay=o.backoff_max,
                                     robots_user_agent=robots_user_agent, user_agent=user_agent,
                                     slots=crawler.settings.getdict("DOWNLOAD_SLOTS"))
        self.turns = HostTurns(self.leases, self.politeness, o.max_inflight, frontier.now_ms)
        # acks go only once their pages' items are written (all True), and the revisit state
        ack_barriers: list[Callable[[], bool]] = []
        self.exchange = Exchange(crawler, o, frontier, self.membership, self.leases, self.acks,
                                 self.dispatch, self.politeness, dupefilter, self.outcomes,
                                 self.outage, ack_barriers, run)
        self.revisits = Revisits(frontier, self.membership, self.outcomes, watch=watch,
                                 min_interval=o.revisit_min_interval,
                                 max_interval=o.revisit_max_interval,
                                 deep_passes=o.revisit_deep_passes,
                                 deep_days=o.revisit_deep_days)
        self.durability = ItemDurability(crawler, self.revisits)
        ack_barriers.append(self.durability.make_durable)
        self.loop = NodeLoop(crawler, o, frontier, self.membership, self.exchange, self.leases,
                             self.dispatch, dupefilter, self.outcomes, self.outage, self.revisits)
        self.overflow = Overflow(self.dispatch, self.outcomes)
        self.joined = False  # open() joined the ring: close() hands back and leaves
        # a crawl whose seen-set is empty at the start: its dont_filter start requests are
        # deduplicated against the other nodes only (see _deduplicated)
        self.fresh = not any(frontier.bloom.counts)
        self._start_fingerprints: set[str] = set()  # a fresh crawl's start requests queued here

    @classmethod
    def from_crawler(cls, crawler: Crawler, options: SchedulerOptions,
                     dupefilter: BloomDupeFilter | LocalDupeFilter) -> Self:
        """Connect to Redis (:func:`~crawler.redis.client_from_crawler`) and read the
        crawl's Bloom filter; raises one of :data:`REFUSALS` if Redis refuses."""
        o, settings = options, crawler.settings
        frontier = Frontier(
            client_from_crawler(crawler), Keys(crawl_id(crawler)), o.node,
            delay_ms=int(o.delay * 1000), max_inflight=o.max_inflight, host_limit=o.host_limit,
            bloom_capacity=o.bloom_capacity, bloom_error_rate=o.bloom_error_rate,
            backoff_base_ms=int(o.backoff_base * 1000), backoff_max_ms=int(o.backoff_max * 1000),
            host_batch=o.host_batch)
        raw_watch = getattr(crawler.spider, "watch", None)  # the spider argument -a watch=
        return cls(crawler, options, frontier, dupefilter,
                   watch=o.watch if raw_watch in (None, "") else watch_argument(raw_watch),
                   robots_user_agent=settings.get("ROBOTSTXT_USER_AGENT"),
                   user_agent=settings.get("USER_AGENT"),
                   addon="crawler.node.middleware.LeaseSpiderMiddleware"
                   in settings.getwithbase("SPIDER_MIDDLEWARES"))

    # -- lifecycle ----------------------------------------------------------------

    def open(self, spider: Spider) -> None:
        """Join the ring and start beating; raises one of :data:`REFUSALS` if Redis refuses."""
        self.fresh = not any(self.frontier.bloom.counts)
        self.membership.join()
        self.joined = True
        control = self.frontier.control()
        finished = control.get("finished_at")
        self.revisits.open(int(finished) if finished else None)
        self.dupefilter.open()
        connect = self.crawler.signals.connect
        connect(self.leases.request_scheduled, signal=signals.request_scheduled)
        connect(self.leases.request_started, signal=signals.request_reached_downloader)
        connect(self.leases.response_received, signal=signals.response_received)
        connect(self.politeness.robots_parsed, signal=signals.robots_parsed)
        if not self.addon:
            _say_what_the_addon_adds(spider)
        self.loop.start(control)

    def close(self, reason: str) -> None:
        """Hand everything back (waiting out a short Redis outage) and leave the ring."""
        if not self.joined:  # the engine closes a spider whose start failed before open()
            return
        self.loop.stop()
        self.exchange.stop()
        # what was leased but never started goes back with leave(); the batches it
        # belonged to are done, so their acks go out with the flush
        self.exchange.unstarted()
        deadline = time.monotonic() + self.options.node_timeout
        while True:
            try:
                self.exchange.flush()
                self.revisits.flush()
                self.membership.leave()
                if reason == "finished":  # the next run is an incremental pass (Revisits.open)
                    self.frontier.ledger.mark_finished(self.frontier.now_ms())
                break
            except TRANSIENT as exc:
                self.outage.failed(exc)
                if time.monotonic() > deadline:
                    logger.error("Redis stayed unreachable: %(n)d discovered requests could not "
                                 "be stored; this node's leases return to the queues once it "
                                 "times out", {"n": self.exchange.unsent_count()})
                    return
                time.sleep(0.5)
        self.leases.clear()
        if kept := self.overflow.waiting():
            logger.warning("%(n)d requests that could not be queued in Redis were not "
                           "fetched: they lived in this node's memory only", {"n": kept})
        self.loop.update_stats()
        self.outcomes.publish(self.frontier, TRANSIENT)
        if not self.outcomes.unpublished():
            self.outcomes.retire(self.frontier, TRANSIENT)
        self.dupefilter.close(reason)

    # -- the engine's side (through the Scheduler) ----------------------------------

    def has_pending(self) -> bool:
        return bool(len(self.dispatch) or self.exchange.has_unsent() or self.leases) \
            or not self.loop.finished()

    def holds_work(self) -> bool:
        """Requests held here and not handed to the engine yet (leased or kept in
        memory), or on their way to Redis: the scheduler is not empty."""
        return bool(len(self.dispatch) or self.exchange.sending_requests())

    def __len__(self) -> int:
        return len(self.dispatch) + self.exchange.unsent_count()

    def enqueue(self, request: Request) -> bool:
        retry = self.leases.continue_lease(request)
        fingerprint = None
        if not retry:
            if self.drop_if_seen(request):
                return False
            self.outcomes.record("discovered")
            dedup = self._deduplicated(request)
            if dedup and self.fresh and request.dont_filter:  # a fresh crawl's start request
                self._start_fingerprints.add(self.dupefilter.fingerprint(request))
            found_as = request.url
            request = self._cleaned(request)
            # Filters first: a URL dropped here (too deep) must not enter the seen
            # cache, or found again where it is allowed it would pass for a duplicate.
            if reason := self._filter_reason(request):
                self.outcomes.record(f"filtered/{reason}")
                return False
            if dedup:
                fingerprint = self.dupefilter.check(request, found_as)
                if fingerprint is None:
                    self.outcomes.record("filtered/duplicate")
                    return False
        host = queue_host(request)
        if "#" in host:  # a slot of its own (download_slot)
            self.politeness.slot_queue(host)
        try:
            payload = codec.encode(request, self.spider, host)
        except codec.EncodeError as exc:  # kept and crawled here (Scrapy's memory queue)
            self.overflow.add(request, host, exc, self.spider)
            return True
        mark = fingerprint is None and not retry and self._marked(request)
        if mark:
            fingerprint = self.dupefilter.fingerprint(request)
        self.exchange.push(Pending(host, fingerprint or None, payload, request.url, retry, mark),
                           request)
        return True

    def next_request(self) -> Request | None:
        if self.loop.cut_off():
            return None
        return self.exchange.next_request(*self.loop.allows())

    def _deduplicated(self, request: Request) -> bool:
        # dont_filter means what Scrapy says, except for start requests: a resumed crawl (or
        # a node joining a running one) deduplicates them, or every run and every node would
        # fetch them again. In a fresh crawl, a start request's first copy on this node goes
        # through the cluster's filter, atomically with queueing (nodes that start the crawl
        # together all found it empty); its repeats on this node are dont_filter, as in Scrapy.
        if not request.dont_filter or not request.meta.get("is_start_request"):
            return not request.dont_filter
        return not self.fresh or isinstance(self.dupefilter, BloomDupeFilter) \
            and self.dupefilter.fingerprint(request) not in self._start_fingerprints

    def _marked(self, request: Request) -> bool:
        """A fresh crawl's start request queued as dont_filter: marked seen in the
        cluster's Bloom filter anyway, for the resumed runs and the other nodes."""
        return bool(request.meta.get("is_start_request")) \
            and isinstance(self.dupefilter, BloomDupeFilter)

    def _filter_reason(self, request: Request) -> str | None:
        if self.options.depth_limit and request.meta.get("depth", 0) > self.options.depth_limit:
            return "depth"
        if reason := self.options.traps.reason(request.url, urlparse_cached(request)):
            return f"trap/{reason}"
        return None

    def _cleaned(self, request: Request) -> Request:
        """*request* for its URL without a userinfo (queued, deduplicated and fetched as the
        URL without it) nor session ids."""
        url = strip_userinfo(request.url)
        if (clean := strip_session_ids(url)) != url:
            self.outcomes.count("frontier/session_ids_stripped")
        return request if clean == request.url else request.replace(url=clean)

    # -- NodeAPI ------------------------------------------------------------------------

    def settle(self, request: Request, outcome: str | None) -> None:
        self.leases.settle(request, outcome)

    def back_off(self, request: Request, seconds: float | None, reason: str) -> None:
        self.politeness.back_off(request, seconds, reason)

    def drop_if_seen(self, request: Request) -> bool:
        # the add-on's spider middleware runs it on a callback's output, so that repeated
        # links (navigation, board lists) skip Scrapy's path to the scheduler
        if self._deduplicated(request) and self.dupefilter.seen_url(request):
            self.outcomes.record("discovered")
            self.outcomes.record("filtered/duplicate")
            return True
        return False

    def pending_gap(self, request: Request) -> float | None:
        if self.leases.get(request) is None:
            return None
        return self.politeness.host_delay(request)

    def space_host(self, host: str, gap: float) -> None:
        self.politeness.longer_gap(host, gap)

    def add_ack_barrier(self, barrier: Callable[[], bool]) -> None:
        # before the item digests and revisit state (crawler.durable)
        self.durability.add_output(barrier)

    def health(self) -> dict[str, Any]:
        return self.loop.health()


class Refused:
    """A node whose start Redis refused (see :data:`REFUSALS`): it says so in one line
    and the crawl ends at once. Nothing is queued, so the engine closes the spider as
    soon as it is idle, and ``scrapy crawl`` exits non-zero (an exception would end in
    Scrapy's tracebacks of a half-opened engine)."""

    def __init__(self, stats: StatsCollector, message: str) -> None:
        self.stats = stats
        self.message = message

    def open(self, spider: Spider) -> None:
        logger.error(self.message)
        self.stats.set_value(REFUSED_STAT, self.message)

    def close(self, reason: str) -> None:
        """Nothing to hand back: this node never joined."""

    def has_pending(self) -> bool:
        return False

    def holds_work(self) -> bool:
        return False

    def __len__(self) -> int:
        return 0

    def enqueue(self, request: Request) -> bool:
        return False

    def next_request(self) -> Request | None:
        return None


def refusal(exc: Exception) -> str:
    """The one line that says why Redis refused the start (*exc*: one of :data:`REFUSALS`)."""
    if isinstance(exc, (BloomLayoutError, RedisTooOld, RedisUnavailable)):  # says it all
        return str(exc)
    return f"Redis refused to start the crawl's frontier ({type(exc).__name__}: {exc})"


def _say_what_the_addon_adds(spider: Spider) -> None:
    logger.info(
        "Running without crawler.addon.ClusterAddon: the frontier settles its leases "
        "through signals and uses its defaults. The add-on would add: the exact reason of "
        "each download error, host backoff on 429/503 and connection errors, polite "
        "robots.txt (RFC 9309), binary responses stopped at their headers, depth and URL "
        "length counted as outcomes, DOWNLOAD_DELAY held by the cluster-wide gate only, "
        "the item stream, feeds written before their pages are acked, health endpoints and "
        "progress lines, and repeated links dropped "
        "before Scrapy's spider middlewares. "
        "Add ADDONS = {\"crawler.addon.ClusterAddon\": 0} to get them.",
        extra={"spider": spider})
