"""The node's periodic life: heartbeat, deaths, operator control, outages, finishing."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy.utils.asyncio import create_looping_call

from crawler.embedded_redis import EmbeddedLost, Revival
from crawler.netguard import BLOCKED
from crawler.node.outage import TRANSIENT, FrontierLost
from crawler.node.pause import Pause
from crawler.redis import restart_watch

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from crawler.frontier.frontier import Beat, Frontier
    from crawler.frontier.membership import Membership
    from crawler.node.dispatch import Dispatch
    from crawler.node.dupefilter import BloomDupeFilter
    from crawler.node.exchange import Exchange
    from crawler.node.leases import LeaseBook
    from crawler.node.options import SchedulerOptions
    from crawler.node.outage import Outage
    from crawler.node.outcomes import Outcomes
    from crawler.node.revisit import Revisits

logger = logging.getLogger(__name__)

#: Shortest time between two looks at the frontier that a lone node's engine asks for
#: when it is idle (s): each is a heartbeat, and the engine may ask at every wake-up.
SOLO_CHECK_EVERY = 0.05

#: An embedded Redis restarted this many times within this many seconds that dies again
#: (killed over and over, or dying as it starts) stops the crawl (exit status 4)


class NodeLoop:
    """Every heartbeat: flush, beat, judge deaths, follow the operator, recover from an
    outage, and decide when the whole cluster's crawl is done.

    Also watches for the start of a graceful stop (Scrapy signals nothing when the
    first Ctrl-C or SIGTERM arrives), to hand off at once.
    """

    def __init__(self, crawler: Crawler, options: SchedulerOptions, frontier: Frontier,
                 membership: Membership, exchange: Exchange, leases: LeaseBook,
                 dispatch: Dispatch, dupefilter: BloomDupeFilter, outcomes: Outcomes,
                 outage: Outage, revisits: Revisits) -> None:
        self.crawler = crawler
        self.revisits = revisits
        self.options = options
        self.frontier = frontier
        self.membership = membership
        self.exchange = exchange
        self.leases = leases
        self.dispatch = dispatch
        self.outcomes = outcomes
        self.dupefilter = dupefilter
        self.outage = outage
        self.pause = Pause(crawler, exchange, membership)
        self.draining = False
        self._handback: list[str] = []  # unstarted leases a failed drain still owes Redis
        self.cluster_done = False
        self.last_beat: Beat | None = None
        self.last_beat_at: float | None = None
        self._last_good = time.monotonic()  # the last heartbeat Redis took (or the join)
        self._cut_off = False
        self._stranded: list[str] = []  # leases dropped at a cut-off, still ours in Redis
        self._closing = False  # the crawl is being stopped (its embedded Redis is lost)
        self._revival = Revival(crawler)
        self._quiet_since: float | None = None
        self._trust_deaths_after = 0.0
        self._recount_after = 0.0
        self._restarts = restart_watch(frontier.client)
        self._restarts_seen = self._restarts.restarts
        # The only node of an embedded Redis (no REDIS_URL: a socket in its state folder,
        # locked to this process): no other node can add work or hold leases, so an
        # empty frontier with nothing leased is the end; no CRAWLER_IDLE_CLOSE wait.
        self.solo = not crawler.settings.get("REDIS_URL")
        self._solo_next_check = 0.0
        self._engine_asks = False  # the lone node's look for finished() is under way
        self._ticker = create_looping_call(self.tick)
        self._stop_watch = create_looping_call(self._watch_for_stop)

    def start(self, control: dict[str, str]) -> None:
        """Start beating, following the operator's switches *control* at once: a node
        joining a paused crawl must not lease before its first heartbeat."""
        self._last_good = time.monotonic()  # the join, just before: Redis took it
        self._follow_control(control)
        self._ticker.start(self.options.heartbeat_interval, now=False)
        self._stop_watch.start(0.1, now=False)

    def stop(self) -> None:
        for loop in (self._ticker, self._stop_watch):
            if loop.running:
                loop.stop()

    def finished(self) -> bool:
        """Whether the whole cluster's crawl is done (see :meth:`_update_idle`).

        A lone node decides only when its engine asks, which it does once it has nothing
        in flight and every start request is queued: a heartbeat then and there (at most
        every :data:`SOLO_CHECK_EVERY` seconds; between two, it asks again after). Regular
        heartbeats decide nothing here: one may find nothing queued before start() yields."""
        if not self.solo or not self._ticker.running:
            return self.cluster_done
        now = time.monotonic()
        if now < self._solo_next_check:  # the last look, just now, stands (the engine
            if not self.cluster_done:      # asks twice before it closes): else ask again
                self.exchange.wake(at=self._solo_next_check)
            return self.cluster_done
        self._solo_next_check = now + SOLO_CHECK_EVERY
        self._engine_asks = True
        try:
            self.tick()
        finally:
            self._engine_asks = False
        return self.cluster_done

    def tick(self) -> None:
        # A stall noticed here first (not by next_request) cuts this node off all the same:
        # its unstarted leases go back with this very beat. Before the first beat too: a
        # stall between the join and it is one (the join was a beat Redis took).
        self.cut_off()
        # the acks of batch requests settled so far go with this beat, the rest of their
        # batch or not: after a SIGKILL at most a heartbeat's worth are fetched again
        self.exchange.release_acks(partial=True)
        try:
            try:
                self.exchange.flush()
            except FrontierLost:
                self._rebuild_lost_frontier()
                self.exchange.flush()
            beat = self.membership.beat(reclaim_dead=self._may_judge_deaths())
            promoted = self.revisits.tick()
            if not beat.alive:
                # declared dead (a long pause?): our leases went back to the queues, so
                # requests not yet started must not be fetched here as well; hand them
                # back too, in case one was granted while the reclaim ran
                self._stranded += self.exchange.unstarted()
            if self._stranded:
                # Unstarted leases dropped here (a cut-off, a death): back to the queues now.
                # Nobody else would requeue them if no node declared this one dead (a lone
                # node whose reactor stalled), and the crawl would never finish.
                self.frontier.reclaim(self.options.node, dead_before_ms=None, remove=False,
                                      lease_ids=self._stranded)
                self._stranded = []
            self._follow_control(beat.control)
            if self.outage.down or self._restarts.restarts != self._restarts_seen:
                self._recover_from_outage()
        except TRANSIENT as exc:
            self.outage.failed(exc)
            self._revive_embedded_redis()
            return
        self.last_beat, self.last_beat_at = beat, time.monotonic()
        self._last_good, self._cut_off = self.last_beat_at, False
        self.leases.settle_leaked(self.crawler.engine, len(self.dispatch))
        # listings this beat moved to the queues are work its counts (taken before) miss
        self._update_idle(beat.queued + beat.leased + beat.orphans + promoted)
        self.update_stats()
        self.outcomes.publish(self.frontier, TRANSIENT)

    def _revive_embedded_redis(self) -> None:
        """The crawl's own redis-server died: restart it (:class:`Revival`), or stop the
        crawl with one line if it cannot be, or keeps dying."""
        if self._closing:  # the crawl is stopping
            return
        try:
            if self._revival.revive_if_died():
                self.outcomes.count("frontier/embedded_redis_restarts")
        except EmbeddedLost as exc:
            self._stop_for_lost_embedded_redis(str(exc))

    def _stop_for_lost_embedded_redis(self, message: str) -> None:
        logger.critical(message)
        self.crawler.stats.set_value("frontier/embedded_redis_lost", 1)
        self.outcomes.update_stats()  # its restarts: no heartbeat will publish them now
        self._closing = True
        engine = self.crawler.engine
        if engine is not None:
            from scrapy.utils.defer import deferred_from_coro  # noqa: PLC0415
            from twisted.internet import reactor  # noqa: PLC0415

            reactor.callLater(0, lambda: deferred_from_coro(
                engine.close_spider_async(reason="embedded_redis_lost")))

    def cut_off(self) -> bool:
        """Whether this node's last heartbeat that Redis took is older than the node
        timeout: the others may have declared it dead and requeued its leases, so it
        must not start them here as well. Its unstarted leases are dropped and requeued
        by its next heartbeat that Redis takes; in-flight ones finish."""
        if time.monotonic() - self._last_good <= self.options.node_timeout:
            return False
        if not self._cut_off:
            self._cut_off = True
            dropped = self.exchange.unstarted()
            self._stranded += dropped
            self.outcomes.count("frontier/cut_off")
            logger.warning("No heartbeat reached Redis for over CRAWLER_NODE_TIMEOUT "
                           "(%(t)gs): this node may have been declared dead, so it starts "
                           "none of its %(n)d unstarted leased requests until Redis is back",
                           {"t": self.options.node_timeout, "n": len(dropped)})
        return True

    def update_stats(self) -> None:
        self.outcomes.add_counts(self.membership.take_counts())
        self.outcomes.update_stats()
        self.dupefilter.update_stats(self.frontier)
        self.crawler.stats.set_value("frontier/redis_round_trips", self.frontier.round_trips())
        for key, count in self.revisits.stats().items():
            self.crawler.stats.inc_value(key, count)
        if (due := self.revisits.next_watch_due()) is not None:
            self.crawler.stats.set_value("revisit/next_due", due)
        if BLOCKED[0]:
            self.crawler.stats.set_value("netguard/blocked", BLOCKED[0])

    def _may_judge_deaths(self) -> bool:
        """Only a node that has itself been beating steadily for a whole timeout may
        take another's silence for death: after a Redis stall or a pause of its own,
        every heartbeat looks stale, its own included."""
        now = time.monotonic()
        last = self.last_beat_at
        if self.outage.down or last is None \
                or now - last > 2 * self.options.heartbeat_interval + 1:
            self._trust_deaths_after = max(self._trust_deaths_after,
                                           now + self.options.node_timeout)
        return now >= self._trust_deaths_after

    def _watch_for_stop(self) -> None:
        if not self.crawler.crawling and not self.draining:
            try:
                self.drain()
            except TRANSIENT as exc:  # tried again next time; close() hands back the rest
                self.outage.failed(exc)
                return
            self._stop_watch.stop()

    def _rebuild_lost_frontier(self) -> None:
        """Redis answers but the crawl's keys are gone (restarted without persistence,
        flushed, purged): say so loudly, start a new frontier and rejoin it, and go on
        with what this node holds (its buffer, its leased requests, what it finds next)."""
        self.outcomes.count("frontier/frontier_lost")
        logger.error(
            "The frontier in Redis was lost: the crawl's keys are gone (Redis restarted "
            "without persistence, or was flushed or purged). Its queues, leases and Bloom "
            "filter are gone: requests queued there will not be fetched unless found again. "
            "Node %(node)s rejoins and goes on with the %(n)d requests it holds; turn on "
            "appendonly in Redis to avoid this.",
            {"node": self.options.node,
             "n": self.exchange.unsent_count() + len(self.leases)})
        self.frontier.recreate()
        self.dupefilter.forget()
        self.membership.rejoin()

    def _recover_from_outage(self) -> None:
        """Redis is back: requeue leases granted by calls whose replies were lost,
        and give the other nodes a heartbeat timeout to show they are alive."""
        if (down_for := self.outage.over()) is not None:
            logger.warning("Redis is reachable again after %(s).1fs; %(n)d requests were "
                           "buffered meanwhile", {"s": down_for,
                                                  "n": self.exchange.unsent_count()})
        if self._restarts.restarts != self._restarts_seen:
            self._restarts_seen = self._restarts.restarts
            self.outcomes.count("frontier/redis_restarts")
            logger.warning("Redis restarted (a new run id); requeueing the leases it holds "
                           "for this node that this node no longer knows")
        self._trust_deaths_after = time.monotonic() + self.options.node_timeout
        # Redis may be back without its last writes (an older AOF or snapshot): the
        # links this node remembers pushing may be gone with them, and the pages that
        # found them come back with their lost acks. Push such links again; the Bloom
        # filter still drops those Redis kept.
        self.dupefilter.forget()
        unknown = set(self.frontier.lease_ids()) - self.leases.ours()
        if unknown:
            self.frontier.reclaim(self.options.node, dead_before_ms=None, remove=False,
                                  lease_ids=unknown)
            self.membership.refresh()
            self.outcomes.count("frontier/reclaimed", n=len(unknown))

    def _follow_control(self, control: dict[str, str]) -> None:
        """Apply the operator's switches (``python -m crawler pause|drain ...``)."""
        self.pause.follow(control.get("paused"))
        drain = control.get(f"drain:{self.options.node}") == "1"
        if drain and not self.draining:
            self.drain()
        elif not drain and self.draining and self.crawler.crawling:
            self.draining = False
            self.membership.undrain(self.options.weight)
            logger.info("Node %(node)s owns hosts again", {"node": self.options.node})
            self.exchange.wake()

    def allows(self) -> tuple[bool, bool]:
        """What the operator's switches allow now: (lease more, hand out what is held)."""
        closed = self.pause.closed()
        return not (self.draining or closed), not closed

    def drain(self) -> None:
        """Shutting down (SIGTERM, Ctrl-C): hand off hosts and unstarted work at once."""
        self._handback += self.exchange.unstarted()
        # draining only once Redis took it: a drain that failed is tried again
        requeued = self.membership.drain(self._handback)
        self._handback = []
        self.draining = True
        logger.info("Draining node %(node)s: handed off its hosts and %(n)d unstarted "
                    "requests; waiting for %(f)d in flight",
                    {"node": self.options.node, "n": requeued, "f": len(self.leases)})

    def _update_idle(self, cluster_work: int) -> None:
        local_work = len(self.dispatch) or self.exchange.has_unsent() or self.leases.busy()
        if cluster_work and not local_work:
            cluster_work = self._recount(cluster_work)
        if cluster_work or local_work or self.revisits.watching():  # watching: never done
            self._quiet_since = None
            self.cluster_done = False
            return
        if self.solo and not self._engine_asks:
            return  # a regular heartbeat: the lone node decides when its engine asks
        now = time.monotonic()
        if self._quiet_since is None:
            self._quiet_since = now
            if not self.solo:  # other nodes may still push work: wait CRAWLER_IDLE_CLOSE
                return
        quiet_for = 0.0 if self.solo else self.options.idle_close
        if self.cluster_done or now - self._quiet_since < quiet_for:
            return
        self.cluster_done = True
        if self.solo:
            logger.info("The frontier is empty and nothing is leased: finishing")
        else:
            logger.info("The cluster's frontier has been empty for %(s)gs: finishing",
                        {"s": quiet_for})
        self.exchange.wake()

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
            self.crawler.stats.inc_value("frontier/counters_drifted")
            logger.warning("The frontier's counters say %(n)d requests are queued or leased, "
                           "but no queue or lease holds any: ignoring the counters",
                           {"n": counted})
        return actual

    def health(self) -> dict[str, Any]:
        """What the health endpoints and the progress log report about this node."""
        beat = self.last_beat
        return {
            "node": self.options.node,
            "member": self.membership.is_member() and not self.draining,
            "draining": self.draining,
            "paused": self.pause.acknowledged(),
            "redis_reachable": not self.outage.down,
            "seconds_since_heartbeat": None if self.last_beat_at is None
            else time.monotonic() - self.last_beat_at,
            "ring_epoch": self.membership.epoch,
            "ring_members": len(self.membership.members()),
            "cluster_queued": beat.queued if beat else None,
            "cluster_leased": beat.leased if beat else None,
            "local_ready": len(self.dispatch),
            "local_leased": len(self.leases),
            "outbox": self.exchange.unsent_count(),
            "redis_round_trips": self.frontier.round_trips(),
        }
