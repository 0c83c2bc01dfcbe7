"""The Scrapy scheduler of the distributed frontier."""

from __future__ import annotations

import logging
import os
import socket
import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

from scrapy import signals
from scrapy.core.scheduler import BaseScheduler
from scrapy.utils.asyncio import call_later, create_looping_call

from crawler.redis import FAILED, client_from_crawler, crawl_id
from crawler.scheduler import codec
from crawler.scheduler.codec import LEASE_META
from crawler.scheduler.dupefilter import BloomDupeFilter
from crawler.scheduler.frontier import DUPLICATE, OVER_HOST_LIMIT, Ack, Beat, Frontier, Pending
from crawler.scheduler.keys import Keys, host_of
from crawler.scheduler.membership import Membership, RingUnstable
from crawler.scheduler.traps import TrapRules, strip_session_ids

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from scrapy.http import Response

logger = logging.getLogger(__name__)

# A Redis that fails or refuses, or a ring that churns: keep local work, retry later
TRANSIENT = (*FAILED, RingUnstable)


class Scheduler(BaseScheduler):
    """A frontier shared by every node of a crawl, kept in Redis.

    Hosts belong to nodes by a consistent-hash ring over the live members; a node
    only fetches hosts it owns, one host queue at a time (FIFO: breadth-first per
    host), within a per-host politeness gate that holds across the cluster. A
    request handed to Scrapy stays leased in Redis until its outcome has been
    processed; a dead node's leases go back to the queues.

    Engine contract: ``enqueue_request`` returns False only for a request dropped
    at once (seen recently by this node, or not encodable); the cluster-wide
    duplicate check happens when the request is flushed to Redis, and is counted
    under ``dupefilter/filtered``. ``next_request`` returns None when no owned
    host is due; the scheduler wakes the engine when one becomes due.
    ``has_pending_requests`` stays True until the whole cluster's frontier has
    been empty, with no leases out, for :setting:`CRAWLER_IDLE_CLOSE` seconds.

    Settings: every ``CRAWLER_*`` setting, :setting:`REDIS_URL`,
    :setting:`CONCURRENT_REQUESTS`. Redis keys: see :mod:`crawler.scheduler.keys`
    (an implementation detail that may change). Closing never deletes shared state.
    """

    def __init__(self, crawler: Crawler, dupefilter: BloomDupeFilter,
                 options: SchedulerOptions) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.df = dupefilter
        self.options = options
        self.node = options.node
        self.spider: Spider | None = None
        self._outbox: list[Pending] = []
        self._acks: list[Ack] = []
        self._ready: deque[Request] = deque()
        self._leased: dict[str, _Lease] = {}
        self._refill_after = 0.0
        self._wake_call: Any = None
        self._quiet_since: float | None = None
        self._cluster_done = False
        self._draining = False
        self._redis_down_since: float | None = None
        self._expected_false_positives = 0.0
        self._crawl_delays: dict[str, float] = {}
        self._paused = False
        self._trust_deaths_after = 0.0
        self._recount_after = 0.0
        self._unconfirmed: tuple[str, list[Pending]] | None = None
        self._held: list[tuple[Ack, Request]] = []
        self._crawl_delays_unsaved: dict[str, int] = {}
        self._batches = 0
        self._backed_off_hosts: set[str] = set()
        self._outcomes: Counter[str] = Counter()
        # per-request stats, added to Scrapy's at each heartbeat: a stats call costs
        # several microseconds, and these happen for every discovered link
        self._counts: Counter[str] = Counter()
        self._failures: list[tuple[str, str]] = []
        self._run = f"{self.node}@{int(time.time() * 1000)}"
        self._last_beat: Beat | None = None
        self._last_beat_at: float | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler, BloomDupeFilter.from_crawler(crawler),
                   SchedulerOptions.from_settings(crawler.settings))

    # -- lifecycle --------------------------------------------------------------

    def open(self, spider: Spider) -> None:
        self.spider = spider
        o = self.options
        self.frontier = Frontier(
            client_from_crawler(self.crawler), Keys(crawl_id(self.crawler)), self.node,
            delay_ms=int(o.delay * 1000), max_inflight=o.max_inflight, host_limit=o.host_limit,
            bloom_capacity=o.bloom_capacity, bloom_error_rate=o.bloom_error_rate,
            backoff_base_ms=int(o.backoff_base * 1000), backoff_max_ms=int(o.backoff_max * 1000))
        self.membership = Membership(self.frontier, weight=o.weight, vnodes=o.vnodes,
                                     timeout_ms=int(o.node_timeout * 1000), stats=self.stats)
        self.membership.join()
        self.df.open()
        connect = self.crawler.signals.connect
        connect(self._request_started, signal=signals.request_reached_downloader)
        connect(self._response_received, signal=signals.response_received)
        connect(self._robots_parsed, signal=signals.robots_parsed)
        self._ticker = create_looping_call(self._tick)
        self._ticker.start(self.options.heartbeat_interval, now=False)
        # Scrapy signals nothing when a graceful stop begins (the first Ctrl-C or
        # SIGTERM): watch for it, cheaply, to hand off at once.
        self._stop_watch = create_looping_call(self._watch_for_stop)
        self._stop_watch.start(0.1, now=False)

    def close(self, reason: str) -> None:
        for loop in (self._ticker, self._stop_watch):
            if loop.running:
                loop.stop()
        if self._wake_call is not None:
            self._wake_call.cancel()
        deadline = time.monotonic() + self.options.node_timeout
        while True:  # hand back everything, waiting out a short Redis outage
            try:
                self._flush()
                self.membership.leave()
                break
            except TRANSIENT as exc:
                self._redis_unreachable(exc)
                if time.monotonic() > deadline:
                    logger.error("Redis stayed unreachable: %(n)d discovered requests could not "
                                 "be stored; this node's leases return to the queues once it "
                                 "times out", {"n": len(self._outbox)})
                    return
                time.sleep(0.5)
        self._ready.clear()
        self._leased.clear()
        self._update_stats()
        self._publish()
        self.df.close(reason)

    # -- the engine's interface -------------------------------------------------

    def has_pending_requests(self) -> bool:
        return bool(self._ready or self._outbox or self._unconfirmed or self._leased) \
            or not self._cluster_done

    def __len__(self) -> int:
        return len(self._ready) + len(self._outbox)

    def enqueue_request(self, request: Request) -> bool:
        retry = self._continue_lease(request)
        fingerprint = None
        if not retry:
            self._record("discovered")
            request = self._without_session_ids(request)
            # Start requests are deduplicated even when dont_filter (Scrapy's default
            # for start_urls): otherwise every node, and every resumed run, fetches them
            # again. The cheap local check goes first: most links are repeats.
            if not request.dont_filter or request.meta.get("is_start_request"):
                fingerprint = self.df.fingerprint(request)
                if self.df.seen_recently(fingerprint):
                    self.df.log(request)
                    self._record("filtered/duplicate")
                    return False
            if reason := self._filter_reason(request):
                self._record(f"filtered/{reason}")
                return False
        host = host_of(request)
        try:
            payload = codec.encode(request, self.spider, host)
        except codec.EncodeError as exc:
            self._record("failed/unencodable", request.url)
            logger.error("Cannot queue %(request)s: %(exc)s (queued requests hold plain data: "
                         "URL, callback name, JSON-able meta and cb_kwargs)",
                         {"request": request, "exc": exc}, extra={"spider": self.spider})
            return False
        self._outbox.append(Pending(host, fingerprint, payload, request.url, retry))
        self._counts["frontier/enqueued"] += 1
        self._expedite()
        if len(self._outbox) >= self.options.flush_size and self._redis_down_since is None:
            try:
                self._flush()
            except TRANSIENT as exc:  # keep buffering; flushed when Redis returns
                self._redis_unreachable(exc)
        return True

    def _filter_reason(self, request: Request) -> str | None:
        if self.options.depth_limit and request.meta.get("depth", 0) > self.options.depth_limit:
            return "depth"
        if reason := self.options.traps.reason(request.url):
            return f"trap/{reason}"
        return None

    def _without_session_ids(self, request: Request) -> Request:
        url = strip_session_ids(request.url)
        if url == request.url:
            return request
        self.stats.inc_value("frontier/session_ids_stripped")
        return request.replace(url=url)

    def next_request(self) -> Request | None:
        # The engine asks right after it finishes scraping a response: the moment
        # that response's held ack may go, and its host become due again.
        if self._held:
            self._release_acks()
        if not self._ready and not (self._draining or self._paused):
            self._refill()
        if not self._ready:
            return None
        request = self._ready.popleft()
        self._counts["frontier/dequeued"] += 1
        return request

    # -- leases -----------------------------------------------------------------

    def settle(self, request: Request, outcome: str | None) -> None:
        """The outcome of *request* has been processed: release its lease.

        *outcome* (``fetched/200``, ``filtered/robots``, ``failed/<error>``) is
        counted once per lease; None settles without an outcome (a retry follows).
        """
        self._settle(request.meta.get(LEASE_META), outcome)

    def _settle(self, lease_id: str | None, outcome: str | None) -> None:
        lease = self._leased.pop(lease_id, None)
        if lease is None:
            return
        done = lease.done_ms or self.frontier.now_ms()
        self._held.append((Ack(lease_id, lease.host, done, lease.backoff_ms), lease.request))
        self._counts["frontier/settled"] += 1
        if outcome is not None:
            self._record(outcome, lease.url)

    def _record(self, outcome: str, url: str | None = None) -> None:
        """Count one outcome, under its category and its detail (outcomes/fetched/200)."""
        self._outcomes[outcome] += 1
        category = outcome.split("/", 1)[0]
        if category != outcome:
            self._outcomes[category] += 1
        if category == "failed" and url is not None:
            self._failures.append((url, outcome.split("/", 1)[1]))

    def back_off(self, request: Request, seconds: float | None, reason: str) -> None:
        """Put *request*'s host into backoff when its lease settles: no request to
        it, on any node, for *seconds* (a Retry-After) or an exponential wait."""
        lease = self._leased.get(request.meta.get(LEASE_META))
        if lease is None:
            return
        lease.backoff_ms = -1 if seconds is None else max(1, int(seconds * 1000))
        self.stats.inc_value("frontier/host_backoff")
        self.stats.inc_value(f"frontier/host_backoff/{reason}")
        if lease.host not in self._backed_off_hosts:
            self._backed_off_hosts.add(lease.host)
            logger.info("Host %(host)s backs off (%(reason)s)%(wait)s; further backoffs of a "
                        "host are counted in frontier/host_backoff, not logged",
                        {"host": lease.host, "reason": reason,
                         "wait": "" if seconds is None else f" for {seconds:g}s"},
                        extra={"spider": self.spider})

    def _continue_lease(self, request: Request) -> bool:
        """Settle the lease that *request* continues, if any; True for a retry.

        A retry or redirect of a leased request, made before any response was
        processed, replaces it: its lease settles once the new request is pushed.
        A callback's request that merely copied response.meta continues nothing.
        """
        lease_id = request.meta.pop(LEASE_META, None)
        lease = self._leased.get(lease_id)
        if lease is None or lease.done_ms is not None:
            return False
        if request.url == lease.url:
            self._settle(lease_id, None)
            return True
        reasons = request.meta.get("redirect_reasons") or ["redirect"]
        self._settle(lease_id, f"fetched/{reasons[-1]}")
        return False

    def _request_started(self, request: Request, spider: Spider) -> None:
        lease = self._leased.get(request.meta.get(LEASE_META))
        if lease is not None:
            lease.started = True

    def _response_received(self, response: Response, request: Request, spider: Spider) -> None:
        lease = self._leased.get(request.meta.get(LEASE_META))
        if lease is not None:
            lease.done_ms = self.frontier.now_ms()

    def _robots_parsed(self, robotparser: Any, request: Request) -> None:
        agent = self.crawler.settings.get("ROBOTSTXT_USER_AGENT") or \
            request.headers.get(b"User-Agent") or self.crawler.settings.get("USER_AGENT")
        crawl_delay = robotparser.crawl_delay(agent)
        if crawl_delay and crawl_delay > self.options.delay:
            self._crawl_delays[host_of(request)] = crawl_delay
            self._crawl_delays_unsaved[host_of(request)] = int(crawl_delay * 1000)
            self.stats.inc_value("frontier/robots_crawl_delay")

    def host_delay(self, request: Request) -> float:
        """The minimum gap between request starts to *request*'s host."""
        return max(self.options.delay, self._crawl_delays.get(host_of(request), 0.0))

    # -- Redis traffic ----------------------------------------------------------

    def _expedite(self, due_in: float = 0.01) -> None:
        # Local news may make a host due: a new request at once (refill in about
        # 10 ms, to batch), a settled lease once its host's gap has passed.
        if self._refill_after > time.monotonic() + due_in:
            self._wait(due_in)

    def _release_acks(self) -> None:
        """Acks wait until Scrapy has finished scraping their response: the spider
        middleware sees the callback's output end before the scraper's workers have
        handed all of it to the engine (CONCURRENT_ITEMS at a time)."""
        slot = getattr(self.crawler.engine.scraper, "slot", None) if self.crawler.engine else None
        active = slot.active if slot is not None else ()
        done = [(ack, request) for ack, request in self._held if request not in active]
        if done:
            self._held = [(ack, request) for ack, request in self._held if request in active]
            self._acks += [ack for ack, _ in done]
            # each released lease makes its host due once its gap has passed
            soonest = min(max(self.options.delay, self._crawl_delays.get(ack.host, 0.0),
                              ack.backoff_ms / 1000) for ack, _ in done)
            self._expedite(max(0.002, soonest))

    def _flush(self, peek: bool = False) -> None:
        """Send what is buffered; with *peek*, also read the due hosts for a lease."""
        self._release_acks()
        # A batch whose reply was lost is retried as it was, under its id, so that
        # Redis can answer with its first result (see push.lua).
        if self._unconfirmed is None and self._outbox:
            self._batches += 1
            self._unconfirmed = (f"{self._run}:{self._batches}", self._outbox)
            self._outbox = []
        if self._crawl_delays_unsaved:  # before the acks that would use them
            self.frontier.set_crawl_delays(self._crawl_delays_unsaved)
            self._crawl_delays_unsaved = {}
        batch, pushes = self._unconfirmed or ("", [])
        # acks go with (after) the pushes of every request discovered before them
        acks, self._acks = ([], self._acks) if self._outbox else (self._acks, [])
        if not (pushes or acks):
            return
        try:
            codes = self.membership.with_ring(lambda epoch: self.frontier.flush(
                pushes, acks, epoch, self.membership.ready_key, batch,
                peek=self._lease_arguments() if peek and not self._outbox else None))
        except TRANSIENT:
            self._acks[:0] = acks
            raise
        self._unconfirmed = None
        rate = self.frontier.bloom_false_positive_rate()
        for pending, code in zip(pushes, codes):
            if code == DUPLICATE:
                self._counts["dupefilter/filtered"] += 1
                self._record("filtered/duplicate")
            elif code == OVER_HOST_LIMIT:
                self._record("filtered/host_limit")
            else:
                self._counts["frontier/queued"] += 1
                if pending.fingerprint:
                    self._expected_false_positives += rate
        if self._outbox:  # a retried batch went first; now the rest
            self._flush(peek)

    def _refill(self) -> None:
        now = time.monotonic()
        if now < self._refill_after:
            return
        try:
            self._flush(peek=True)
            want, steal_from, steal_after_ms = self._lease_arguments()
            leased, next_due = self.membership.with_ring(
                lambda epoch: self.frontier.lease(want, epoch, steal_from, steal_after_ms))
        except TRANSIENT as exc:
            self._redis_unreachable(exc)
            self._wait(self.options.idle_backoff_max)
            return
        for lease in leased:
            request = codec.decode(lease.payload, self.spider, lease.host)
            request.meta[LEASE_META] = lease.lease_id
            self._leased[lease.lease_id] = _Lease(lease.host, request)
            self._ready.append(request)
        self._counts["frontier/leased"] += len(leased)
        if stolen := sum(lease.stolen for lease in leased):
            self._counts["frontier/stolen"] += stolen
        if leased:
            self._refill_after = 0.0
            return
        # Nothing due: sleep until the next owned host is, but at most
        # CRAWLER_IDLE_BACKOFF_MAX, the delay to notice work pushed by other nodes.
        wait = self.options.idle_backoff_max
        if next_due is not None:
            wait = min(wait, max(0.005, (next_due - self.frontier.now_ms()) / 1000))
            self.stats.inc_value("frontier/politeness_waits")
        self._wait(wait)

    def _lease_arguments(self) -> tuple[int, tuple[str, ...], int]:
        """How many to lease, and from whose hosts a node short of work may steal."""
        if self.options.steal_after is None:
            return self.options.prefetch, (), 0
        others = tuple(node for node in self.membership.ring.weights if node != self.node)
        return self.options.prefetch, others, int(self.options.steal_after * 1000)

    def _wait(self, seconds: float) -> None:
        """Refill no sooner than in *seconds*, and wake the engine then."""
        self._refill_after = time.monotonic() + seconds
        if self._wake_call is not None:
            self._wake_call.cancel()
        self._wake_call = call_later(seconds, self._wake_engine)

    def _wake_engine(self) -> None:
        self._wake_call = None
        # Scrapy has no public "poll the scheduler now"; without this the engine
        # waits for its 5 s heartbeat when a politeness delay ends.
        slot = getattr(self.crawler.engine, "_slot", None)
        if slot is not None:
            slot.nextcall.schedule()

    # -- periodic work ----------------------------------------------------------

    def _tick(self) -> None:
        try:
            self._flush()
            beat = self.membership.beat(reclaim_dead=self._may_judge_deaths())
            if not beat.alive:
                # declared dead (a long pause?): our leases went back to the queues, so
                # requests not yet started must not be fetched here as well; hand them
                # back too, in case one was granted while the reclaim ran
                dropped = [request.meta[LEASE_META] for request in self._ready]
                for lease_id in dropped:
                    self._leased.pop(lease_id, None)
                self._ready.clear()
                if dropped:
                    self.frontier.reclaim(self.node, dead_before_ms=None, remove=False,
                                          lease_ids=dropped)
            self._follow_control(beat.control)
            if self._redis_down_since is not None:
                self._recover_from_outage()
        except TRANSIENT as exc:
            self._redis_unreachable(exc)
            return
        self._last_beat, self._last_beat_at = beat, time.monotonic()
        self._settle_leaked()
        self._update_idle(beat.queued + beat.leased + beat.orphans)
        self._update_stats()
        self._publish()

    def _may_judge_deaths(self) -> bool:
        """Only a node that has itself been beating steadily for a whole timeout may
        take another's silence for death: after a Redis stall or a pause of its own,
        every heartbeat looks stale, its own included."""
        now = time.monotonic()
        last = self._last_beat_at
        if self._redis_down_since is not None or last is None \
                or now - last > 2 * self.options.heartbeat_interval + 1:
            self._trust_deaths_after = max(self._trust_deaths_after, now + self.options.node_timeout)
        return now >= self._trust_deaths_after

    def _watch_for_stop(self) -> None:
        if not self.crawler.crawling and not self._draining:
            self._stop_watch.stop()
            try:
                self._drain()
            except TRANSIENT as exc:  # close() hands everything back later
                self._redis_unreachable(exc)

    def _recover_from_outage(self) -> None:
        """Redis is back: requeue leases granted by calls whose replies were lost,
        and give the other nodes a heartbeat timeout to show they are alive."""
        assert self._redis_down_since is not None
        logger.warning("Redis is reachable again after %(s).1fs; %(n)d requests were "
                       "buffered meanwhile", {"s": time.monotonic() - self._redis_down_since,
                                              "n": len(self._outbox)})
        self._redis_down_since = None
        self._trust_deaths_after = time.monotonic() + self.options.node_timeout
        # ours: leased here, or settled with the ack still held or waiting to be sent
        ours = {*self._leased, *(a.lease_id for a, _ in self._held),
                *(a.lease_id for a in self._acks)}
        unknown = set(self.frontier.lease_ids()) - ours
        if unknown:
            self.frontier.reclaim(self.node, dead_before_ms=None, remove=False, lease_ids=unknown)
            self.membership.refresh()
            self.stats.inc_value("frontier/reclaimed", len(unknown))

    def _publish(self) -> None:
        failures, self._failures = self._failures, []
        try:
            self.frontier.publish(self._run, dict(self._outcomes), failures)
        except TRANSIENT:
            self._failures[:0] = failures

    def _follow_control(self, control: dict[str, str]) -> None:
        """Apply the operator's switches (``python -m crawler pause|drain ...``)."""
        paused = control.get("paused") == "1"
        if paused != self._paused:
            self._paused = paused
            logger.info("Crawl %(state)s by the operator", {"state": "paused" if paused else "resumed"})
            if not paused:
                self._wake_engine()
        drain = control.get(f"drain:{self.node}") == "1"
        if drain and not self._draining:
            self._drain()
        elif not drain and self._draining and self.crawler.crawling:
            self._draining = False
            self.membership.undrain(self.options.weight)
            logger.info("Node %(node)s owns hosts again", {"node": self.node})
            self._wake_engine()

    def health(self) -> dict[str, Any]:
        """What the health endpoints and the progress log report about this node."""
        beat = self._last_beat
        return {
            "node": self.node,
            "member": self.membership.weight > 0 and not self._draining,
            "draining": self._draining,
            "paused": self._paused,
            "redis_reachable": self._redis_down_since is None,
            "seconds_since_heartbeat": None if self._last_beat_at is None
            else time.monotonic() - self._last_beat_at,
            "ring_epoch": self.membership.epoch,
            "ring_members": len(self.membership.ring.weights),
            "cluster_queued": beat.queued if beat else None,
            "cluster_leased": beat.leased if beat else None,
            "local_ready": len(self._ready),
            "local_leased": len(self._leased),
            "outbox": len(self._outbox),
            "redis_round_trips": self.frontier.round_trips,
        }

    def _drain(self) -> None:
        """Shutting down (SIGTERM, Ctrl-C): hand off hosts and unstarted work at once."""
        self._draining = True
        unstarted = [r.meta[LEASE_META] for r in self._ready]
        for lease_id in unstarted:
            self._leased.pop(lease_id, None)
        self._ready.clear()
        requeued = self.membership.drain(unstarted)
        logger.info("Draining node %(node)s: handed off its hosts and %(n)d unstarted "
                    "requests; waiting for %(f)d in flight",
                    {"node": self.node, "n": requeued, "f": len(self._leased)})

    def _settle_leaked(self) -> None:
        # Every path out of Scrapy settles a lease (middlewares, signals); this is
        # the safety net for a path we did not foresee, so the crawl can finish.
        engine = self.crawler.engine
        if (not self._leased or self._ready or engine.downloader.active
                or not engine.scraper.slot.is_idle()):
            return
        for lease_id, lease in list(self._leased.items()):
            if not lease.started:
                continue
            self._settle(lease_id, "failed/lease_leaked")
            self.stats.inc_value("frontier/lease_leaked")
            logger.warning("Lease %(id)s of host %(host)s was never settled; settling it",
                           {"id": lease_id, "host": lease.host})

    def _update_idle(self, cluster_work: int) -> None:
        local_work = (self._ready or self._outbox or self._unconfirmed or self._leased
                      or self._acks or self._held)
        if cluster_work and not local_work:
            cluster_work = self._recount(cluster_work)
        if cluster_work or local_work:
            self._quiet_since = None
            self._cluster_done = False
            return
        now = time.monotonic()
        if self._quiet_since is None:
            self._quiet_since = now
        elif now - self._quiet_since >= self.options.idle_close and not self._cluster_done:
            self._cluster_done = True
            logger.info("The cluster's frontier has been empty for %(s)gs: finishing",
                        {"s": self.options.idle_close})
            self._wake_engine()

    def _recount(self, counted: int) -> int:
        """The cluster's counters say work is left but this node has none: every
        CRAWLER_IDLE_CLOSE, look at the queues and leases themselves, so counters
        that drifted (writes lost by a Redis crash with AOF every second) cannot
        keep the crawl from finishing."""
        now = time.monotonic()
        if now < self._recount_after:
            return counted
        self._recount_after = now + max(self.options.idle_close, self.options.heartbeat_interval)
        actual = self.frontier.work_left()
        if actual == 0:
            self.stats.inc_value("frontier/counters_drifted")
            logger.warning("The frontier's counters say %(n)d requests are queued or leased, "
                           "but no queue or lease holds any: ignoring the counters",
                           {"n": counted})
        return actual

    def _redis_unreachable(self, exc: Exception) -> None:
        if self._redis_down_since is None:
            self._redis_down_since = time.monotonic()
            logger.error("Redis unreachable or failing (%(exc)s); keeping local work and retrying",
                         {"exc": exc})
        self.stats.inc_value("frontier/redis_errors")

    def _update_stats(self) -> None:
        counts, self._counts = self._counts, Counter()
        for key, count in counts.items():
            self.stats.inc_value(key, count)
        self.df.update_stats()
        for outcome, count in self._outcomes.items():
            self.stats.set_value(f"outcomes/{outcome}", count)
        frontier = self.frontier
        self.stats.set_value("frontier/redis_round_trips", frontier.round_trips)
        self.stats.set_value("dupefilter/false_positive_rate", frontier.bloom_false_positive_rate())
        self.stats.set_value("dupefilter/expected_false_positives",
                             round(self._expected_false_positives, 3))
        self.stats.set_value("dupefilter/bloom_layers", len(frontier.bloom_layers))


class _Lease:
    __slots__ = ("host", "url", "request", "started", "done_ms", "backoff_ms")

    def __init__(self, host: str, request: Request) -> None:
        self.host = host
        self.url = request.url
        self.request = request  # the object the engine scrapes, to see when it is done
        self.backoff_ms = 0
        self.started = False  # reached the downloader
        self.done_ms: int | None = None  # when its response arrived


@dataclass(frozen=True)
class SchedulerOptions:
    """The scheduler's settings, read and checked once (see docs/settings.md)."""

    node: str
    weight: int
    flush_size: int
    prefetch: int
    idle_close: float
    idle_backoff_max: float
    heartbeat_interval: float
    node_timeout: float
    vnodes: int
    delay: float
    max_inflight: int
    host_limit: int
    bloom_capacity: int
    bloom_error_rate: float
    backoff_base: float
    backoff_max: float
    depth_limit: int
    steal_after: float | None
    traps: TrapRules

    @classmethod
    def from_settings(cls, s: BaseSettings) -> SchedulerOptions:
        """Raises ValueError, in one line naming the setting, for a bad value."""
        def get(name: str, kind: type) -> Any:
            try:
                return {int: s.getint, float: s.getfloat}[kind](name)
            except (TypeError, ValueError):
                raise ValueError(f"{name} ({s.get(name)!r}) must be a number") from None

        options = cls(
            node=s.get("CRAWLER_NODE_ID") or f"{socket.gethostname()}-{os.getpid()}",
            weight=get("CRAWLER_NODE_WEIGHT", int),
            flush_size=get("CRAWLER_FLUSH_SIZE", int),
            prefetch=get("CRAWLER_PREFETCH", int) or get("CONCURRENT_REQUESTS", int),
            idle_close=get("CRAWLER_IDLE_CLOSE", float),
            idle_backoff_max=get("CRAWLER_IDLE_BACKOFF_MAX", float),
            heartbeat_interval=get("CRAWLER_HEARTBEAT_INTERVAL", float),
            node_timeout=get("CRAWLER_NODE_TIMEOUT", float),
            vnodes=get("CRAWLER_RING_VNODES", int),
            delay=get("CRAWLER_HOST_DELAY", float),
            max_inflight=get("CRAWLER_HOST_MAX_INFLIGHT", int),
            host_limit=get("CRAWLER_HOST_PAGE_LIMIT", int),
            bloom_capacity=get("CRAWLER_BLOOM_CAPACITY", int),
            bloom_error_rate=get("CRAWLER_BLOOM_ERROR_RATE", float),
            backoff_base=get("CRAWLER_BACKOFF_BASE", float),
            backoff_max=get("CRAWLER_BACKOFF_MAX", float),
            depth_limit=get("CRAWLER_DEPTH_LIMIT", int),
            steal_after=None if s.get("CRAWLER_STEAL_AFTER") in (None, "None", "")
            else get("CRAWLER_STEAL_AFTER", float),
            traps=TrapRules(max_url_length=get("URLLENGTH_LIMIT", int),
                            max_repeated_segment=get("CRAWLER_TRAP_MAX_REPEATED_SEGMENT", int),
                            max_query_params=get("CRAWLER_TRAP_MAX_QUERY_PARAMS", int)),
        )
        options._validate()
        return options

    def _validate(self) -> None:
        def check(ok: bool, setting: str, value: object, expected: str) -> None:
            if not ok:
                raise ValueError(f"{setting} ({value!r}) must be {expected}")

        check(self.weight >= 0, "CRAWLER_NODE_WEIGHT", self.weight, ">= 0")
        check(self.delay >= 0, "DOWNLOAD_DELAY", self.delay, ">= 0")
        check(self.max_inflight >= 1, "CRAWLER_HOST_MAX_INFLIGHT", self.max_inflight, ">= 1")
        check(self.host_limit >= 0, "CRAWLER_HOST_PAGE_LIMIT", self.host_limit, ">= 0 (0: no limit)")
        check(self.flush_size >= 1, "CRAWLER_FLUSH_SIZE", self.flush_size, ">= 1")
        check(self.prefetch >= 1, "CRAWLER_PREFETCH", self.prefetch, ">= 1")
        check(self.idle_close >= 0, "CRAWLER_IDLE_CLOSE", self.idle_close, ">= 0")
        check(self.heartbeat_interval > 0, "CRAWLER_HEARTBEAT_INTERVAL", self.heartbeat_interval,
              "> 0")
        check(self.node_timeout > 2 * self.heartbeat_interval, "CRAWLER_NODE_TIMEOUT",
              self.node_timeout, "more than twice CRAWLER_HEARTBEAT_INTERVAL "
              f"({self.heartbeat_interval!r}), or live nodes would be declared dead")
        check(self.backoff_base > 0, "CRAWLER_BACKOFF_BASE", self.backoff_base, "> 0")
        check(self.backoff_max >= self.backoff_base, "CRAWLER_BACKOFF_MAX", self.backoff_max,
              f"at least CRAWLER_BACKOFF_BASE ({self.backoff_base!r})")
        check(self.steal_after is None or self.steal_after >= 0, "CRAWLER_STEAL_AFTER",
              self.steal_after, ">= 0 (or None: never steal)")
        check(self.vnodes >= 1, "CRAWLER_RING_VNODES", self.vnodes, ">= 1")
        check(self.bloom_capacity >= 1000, "CRAWLER_BLOOM_CAPACITY", self.bloom_capacity, ">= 1000")
        check(0 < self.bloom_error_rate < 0.1, "CRAWLER_BLOOM_ERROR_RATE", self.bloom_error_rate,
              "between 0 and 0.1")
