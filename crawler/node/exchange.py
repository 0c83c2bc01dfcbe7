"""The node's traffic with the frontier: batches out, leased requests in.

Discovered requests and settled leases go out together in batches (one round trip);
leased requests come back, in host batches, into the node's dispatch, which hands
them to the engine within each host's gate (:mod:`.dispatch`). A refill is one round
trip: the pushes, the acks and the lease, in that order.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, NamedTuple

from crawler.frontier import codec
from crawler.frontier.frontier import DUPLICATE, OVER_HOST_LIMIT, QUEUED, LeaseAsk
from crawler.frontier.scripts import StaleEpoch
from crawler.node.dispatch import HostBatch
from crawler.node.outage import TRANSIENT
from crawler.node.wakeup import ReplyWatch, Waker

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request
    from scrapy.crawler import Crawler

    from crawler.frontier.frontier import Ack, Frontier, Leased, Pending, Sending
    from crawler.frontier.membership import Membership
    from crawler.node.dispatch import Dispatch
    from crawler.node.dupefilter import BloomDupeFilter
    from crawler.node.leases import AckQueue, LeaseBook
    from crawler.node.options import SchedulerOptions
    from crawler.node.outage import Outage
    from crawler.node.outcomes import Outcomes
    from crawler.node.politeness import Politeness

logger = logging.getLogger(__name__)

BATCHING = 0.01  # s: new requests wait this long to go out together (Waker.expedite's)
UNLEASED_MAX = 4096  # pushed requests kept to skip their decode when leased here (oldest go)


class _Refill(NamedTuple):
    """A batch on the wire, and what to restore or resend if it fails."""

    sending: Sending
    pushes: list[Pending]
    acks: list[Ack]
    batch: str
    ask: LeaseAsk | None


class Exchange:
    """Batches this node's writes to the frontier and refills its buffer of leases."""

    def __init__(self, crawler: Crawler, options: SchedulerOptions, frontier: Frontier,
                 membership: Membership, leases: LeaseBook, acks: AckQueue, dispatch: Dispatch,
                 politeness: Politeness, dupefilter: BloomDupeFilter, outcomes: Outcomes,
                 outage: Outage, ack_barriers: list[Callable[[], bool]], run: str) -> None:
        self.crawler = crawler
        self.options = options
        self.frontier = frontier
        self.membership = membership
        self.leases = leases
        self.acks = acks
        self.politeness = politeness
        self.dupefilter = dupefilter
        self.outcomes = outcomes
        self.outage = outage
        self.waker = Waker(crawler)
        self.run = run  # this node run's id: its batch ids are unique
        self.dispatch = dispatch
        self.outbox: list[Pending] = []
        # requests this node pushed, by host and payload: leased back here, they need no
        # decode (equal payloads of one host are equal requests; a payload holds no host)
        self.unleased: dict[tuple[str, bytes], Request] = {}
        # a batch whose reply was lost is retried as it was, under its id, so that
        # Redis can answer with its first result (see refill.lua)
        self.unconfirmed: tuple[str, list[Pending]] | None = None
        self._batches = 0
        # a refill on the wire: the node works on while Redis runs it (see refill)
        self.sending: _Refill | None = None
        # a refill waited for (downloader idle) at most every BATCHING seconds, so that
        # a page's links still go out together (the round trips per page stay as they are)
        self._at_once_after = 0.0
        self._reply_watch = ReplyWatch(self.waker)
        # called before acks are sent: False keeps them (items not written yet)
        self.before_acks = ack_barriers  # the node's (NodeAPI.add_ack_barrier)
        self.acks_held_back = False  # a hook said no: they wait (no refill at once for them)

    def has_unsent(self) -> bool:
        return bool(self.outbox or self.unconfirmed or self.sending)

    def sending_requests(self) -> bool:
        """Requests on their way to Redis: buffered, or in a batch not confirmed yet
        (a refill that only leases does not count)."""
        return bool(self.outbox or self.unconfirmed
                    or (self.sending is not None and self.sending.pushes))

    def unsent_count(self) -> int:
        """Discovered requests buffered here, not yet sent to Redis."""
        return len(self.outbox)

    def wake(self, at: float | None = None) -> None:
        """Wake the engine now (news it should act on: a resume, the crawl's end), or
        at *at* (monotonic) unless a wake-up comes first."""
        if at is None:
            self.waker.wake()
        else:
            self.waker.wake_at(at)

    def stop(self) -> None:
        """Cancel the pending wake-ups (the node closes)."""
        self.waker.cancel()

    def push(self, pending: Pending, request: Request | None = None) -> None:
        self.outbox.append(pending)
        if request is not None:
            self.unleased[pending.host, pending.payload] = request
            if len(self.unleased) > UNLEASED_MAX:
                del self.unleased[next(iter(self.unleased))]
        self.outcomes.count("frontier/enqueued")
        self.waker.expedite()
        if len(self.outbox) >= self.options.flush_size and not self.outage.down:
            try:
                self.flush()
            except TRANSIENT as exc:  # keep buffering; flushed when Redis returns
                self.outage.failed(exc)

    def next_request(self, lease: bool = True, hand_out: bool = True) -> Request | None:
        """The next request for the engine; *lease*: more may be leased (not draining nor
        paused), *hand_out*: what is held may be handed out (the operator did not pause)."""
        # The engine asks right after it finishes scraping a response: the moment
        # that response's held ack may go, and its host become due again.
        if self.leases or self.acks.holding():
            self.release_acks()
        if self.sending is not None and self.sending.sending.sent.ready():
            self.finish_refill()
        if not hand_out:  # paused: the unstarted leases went back to Redis, the rest waits
            return None
        paused = not lease
        now = time.monotonic()
        request = self.dispatch.next(now, self.politeness.gap)
        if request is None and not paused and self.outbox and now >= self._at_once_after \
                and not self.leases and not self.acks \
                and (engine := self.crawler.engine) is not None and not engine.downloader.active:
            request = self._refill_at_once()
        # more hosts: when none of those held may start now, up to a refill's worth
        if request is None and not paused \
                and len(self.dispatch) < self.options.prefetch * self.options.host_batch:
            self.refill()
        if request is None:
            if (start := self.dispatch.next_start(self.politeness.gap)) is not None:
                self.waker.wake_at(start)
            return None
        self.outcomes.count("frontier/dequeued")
        if not self.leases.handed(request):
            self.outcomes.count("scheduler/dequeued/memory")
        return request

    def _refill_at_once(self) -> Request | None:
        """Nothing to download or scrape (no lease out, no ack held), and new requests
        buffered: send them and lease now, waiting for the reply (the engine has nothing
        else to do). Not while a page's lease is out: its links may still be coming, and
        its ack must not overtake them. As Scrapy's own
        scheduler, a request queued when the downloader is idle is downloading by the
        time the engine's loop looks again: a lazy start() (``needs_backout``) waits
        for it rather than yielding the next start request at once."""
        self._at_once_after = time.monotonic() + BATCHING
        self.finish_refill()
        self.waker.refill_now()
        self.refill()
        self.finish_refill()
        return self.dispatch.next(time.monotonic(), self.politeness.gap)

    def unstarted(self) -> list[str]:
        """Take back the leases of requests not handed to the engine yet."""
        self.finish_refill()
        lease_ids = [request.meta[codec.LEASE_META] for request in self.dispatch.take_all()]
        self.leases.forget(lease_ids)
        return lease_ids

    def hand_back_unstarted(self) -> int:
        """The crawl is paused: the leased requests not handed to the engine yet go back
        to the head of their queues at once (their hosts stay this node's); how many."""
        self.finish_refill()
        handed = self.leases.hand_back(self.dispatch.take_all())
        self.release_acks(partial=True)  # their acks go now, with those settled of their batches
        if self.acks.due():
            self.flush()
        return handed

    def release_acks(self, partial: bool = False) -> None:
        """Queue the acks of requests Scrapy is done with for the next flush; with
        ``partial`` (each heartbeat), also those of host batches not done yet (their hosts
        stay parked in Redis)."""
        engine = self.crawler.engine
        slot = engine.scraper.slot if engine is not None else None
        scraping = slot.active if slot is not None else ()
        if slot is not None:
            # in the downloader (its middlewares included), then scraped: a request moves
            # from one set to the other in one call, so one it is in neither is done with
            self.leases.settle_finished(engine.downloader.active, scraping)
        released = self.acks.release(scraping)
        if released:  # each released lease makes its host due once its gap has passed
            self.waker.expedite(max(0.002, self.politeness.soonest_due(released)))
        if partial:
            self.acks.release_partial()

    def flush(self) -> None:
        """Send what is buffered and wait for Redis' replies (leasing nothing; a
        refill on the wire is finished first)."""
        self.finish_refill()
        while (refill := self._send(lease=False)) is not None:
            self._settle(refill)

    def _send(self, lease: bool) -> _Refill | None:
        """Write the next batch (pushes, then acks, then the lease) without waiting."""
        self.release_acks()
        if self.unconfirmed is None and self.outbox:
            self._batches += 1
            self.unconfirmed = (f"{self.run}:{self._batches}", self.outbox)
            self.outbox = []
        if delays := self.politeness.take_unsaved():  # before the acks that would use them
            self.frontier.set_crawl_delays(delays)
        batch, pushes = self.unconfirmed or ("", [])
        # acks go with (after) the pushes of every request discovered before them
        # ... and only once every item scraped so far is written (crawler.durable)
        if not self.outbox:
            self.acks_held_back = self.acks.due() and not all(hook() for hook in self.before_acks)
        acks = [] if self.outbox or self.acks_held_back else self.acks.take()
        lease_now = lease and not self.outbox  # a retried batch first, then the rest and the lease
        if not (pushes or acks or lease_now):
            return None
        ask = self._lease_ask() if lease_now else None
        try:
            sending = self.frontier.start_send(pushes, acks, self.membership.epoch,
                                               self.membership.ready_key, batch, lease=ask)
        except TRANSIENT:
            self.acks.restore(acks)
            raise
        return _Refill(sending, pushes, acks, batch, ask)

    def _settle(self, refill: _Refill) -> tuple[list[Leased], int | None]:
        """Read a batch's reply (waiting if need be) and account for its pushes."""
        try:
            try:
                codes, leased = self.frontier.finish_send(refill.sending)
            except StaleEpoch:  # the ring changed: this batch was refused as a whole
                self.membership.refresh()
                codes, leased = self.membership.with_ring(lambda epoch: self.frontier.send(
                    refill.pushes, refill.acks, epoch, self.membership.ready_key,
                    refill.batch, lease=refill.ask))
        except TRANSIENT:
            self.acks.restore(refill.acks)
            raise
        self.unconfirmed = None
        self._count(refill.pushes, codes)
        return leased

    def _count(self, pushes: list[Pending], codes: list[int]) -> None:
        admitted = 0
        for pending, code in zip(pushes, codes):
            if code != QUEUED:
                self.unleased.pop((pending.host, pending.payload), None)
            if code == DUPLICATE:
                self.outcomes.count("dupefilter/filtered")
                self.outcomes.record("filtered/duplicate")
            elif code == OVER_HOST_LIMIT:
                self.outcomes.record("filtered/host_limit")
            else:
                self.outcomes.count("frontier/queued")
                admitted += pending.fingerprint is not None
        self.dupefilter.admitted(admitted, self.frontier.bloom)

    def refill(self) -> None:
        """Send a refill (pushes, acks, lease) and return: the engine goes on with its
        downloads and callbacks while Redis runs the scripts, and the reply is read
        when it has come (:meth:`next_request`; a reactor reader wakes the engine)."""
        if self.sending is not None or not self.waker.due():
            return
        try:
            self.sending = self._send(lease=True)
        except TRANSIENT as exc:
            self.outage.failed(exc)
            self.waker.wait(self.options.idle_backoff_max)
            return
        if self.sending is not None:
            self._reply_watch.watch(self.sending.sending.sent)

    def finish_refill(self) -> None:
        """Take in the refill on the wire, if any (waiting for its reply if need be)."""
        refill, self.sending = self.sending, None
        if refill is None:
            return
        self._reply_watch.stop()
        try:
            leased, next_due = self._settle(refill)
        except TRANSIENT as exc:
            self.outage.failed(exc)
            self.waker.wait(self.options.idle_backoff_max)
            return
        self._take(leased)
        self.outcomes.count("frontier/leased", n=len(leased))
        if stolen := sum(lease.stolen for lease in leased):
            self.outcomes.count("frontier/stolen", n=stolen)
        # More to lease, or to send: pushes, or acks released while this refill was on
        # the wire (their hosts are free now; waiting would idle them up to a second).
        if leased or refill.ask is None or self.outbox \
                or (self.acks.due() and not self.acks_held_back):
            self.waker.refill_now()
            return
        # Nothing due: sleep until the next owned host is, but at most
        # CRAWLER_IDLE_BACKOFF_MAX, the delay to notice work pushed by other nodes.
        wait = self.options.idle_backoff_max
        if next_due is not None:
            wait = min(wait, max(0.005, (next_due - self.frontier.now_ms()) / 1000))
            self.outcomes.count("frontier/politeness_waits")
        self.waker.wait(wait)

    def _take(self, leased: list[Leased]) -> None:
        """Decode each leased request on its own: one that cannot be decoded (its
        callback renamed, a foreign payload) is acked as ``failed/undecodable`` and kept
        in the dead-letter stream, and the others go on."""
        spider = self.crawler.spider
        bad = []
        batches: list[HostBatch] = []  # a host's batch comes in one run of the reply
        for lease in leased:
            try:
                request = self.unleased.pop((lease.host, lease.payload), None)
                if request is None:
                    request = codec.decode(lease.payload, spider, lease.host)
                else:
                    self.outcomes.count("frontier/decode_skipped")
            except Exception as exc:  # noqa: BLE001 - any payload must not stop the engine
                bad.append((lease.host, lease.payload, f"undecodable: {exc}"))
                self.leases.refuse(lease.lease_id, lease.host, "undecodable")
                continue
            if not batches or batches[-1].host != lease.host:
                batches.append(HostBatch(lease.host))
            self.leases.add(lease.lease_id, request, batches[-1])
            batches[-1].waiting.append(request)
        for batch in batches:
            self.dispatch.add(batch)
        self.outcomes.count("frontier/host_batches", n=len(batches))
        if bad:
            logger.error("%(n)d queued requests could not be decoded (e.g. %(e)s); they are "
                         "acked as failed/undecodable and kept in the dead-letter stream",
                         {"n": len(bad), "e": bad[0][2]}, extra={"spider": spider})
            try:
                self.frontier.ledger.dead_letter(bad)
            except TRANSIENT as exc:
                self.outage.failed(exc)

    def _lease_ask(self) -> LeaseAsk:
        """How many to lease, and from whose hosts a node short of work may steal."""
        if self.options.steal_after is None:
            return LeaseAsk(self.options.prefetch)
        others = tuple(node for node in self.membership.members() if node != self.options.node)
        return LeaseAsk(self.options.prefetch, others, int(self.options.steal_after * 1000))
