"""The lease book: requests leased to this node, from the lease until their ack is sent.

A lease moves through three stages here: *leased* (handed to Scrapy: the
:class:`LeaseBook`), then its ack is *held* (its outcome is known but Scrapy is still
scraping its response, whose links must reach the frontier before the lease goes) and
*queued* (waiting for the next flush): the :class:`AckQueue`. The acks of a host batch
wait for each other and go together (:mod:`.dispatch`), but never longer than a
heartbeat: each heartbeat sends those settled so far (:meth:`AckQueue.release_partial`),
so a node killed mid-batch leaves at most a heartbeat's worth of settled pages to be
fetched again, whatever the batch's size.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from crawler.frontier.codec import LEASE_META
from crawler.frontier.frontier import HANDED_BACK, Ack
from crawler.node.outcomes import response_outcome

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

    from scrapy import Request
    from scrapy.core.engine import ExecutionEngine
    from scrapy.http import Response

    from crawler.node.dispatch import Dispatch, HostBatch
    from crawler.node.outcomes import Outcomes

logger = logging.getLogger(__name__)


class Lease:
    __slots__ = ("host", "url", "request", "batch", "started", "handed", "running", "done_ms",
                 "outcome", "backoff_ms")

    def __init__(self, host: str, request: Request, batch: HostBatch) -> None:
        self.host = host
        self.url = request.url
        self.request = request  # the object the engine scrapes, to see when it is done
        self.batch = batch
        self.running = False  # handed to the engine, no response yet (holds a host slot)
        self.backoff_ms = 0  # put the host into backoff at the ack: ms, or -1 (exponential)
        self.started = False  # reached the downloader
        self.handed = False  # given to the engine
        self.done_ms: int | None = None  # when its response arrived
        self.outcome: str | None = None  # its response's outcome, once received

    def free_slot(self) -> None:
        """Its response came (or it failed): its host's slot is free."""
        if self.running:
            self.running = False
            self.batch.response_in(time.monotonic())


class AckQueue:
    """Acks on their way to Redis: *held* while Scrapy still scrapes their response
    (whose links must reach the frontier first), then queued for the next flush. The
    acks of a host batch wait for each other and go together."""

    def __init__(self) -> None:
        self.held: list[tuple[Ack, Request, HostBatch]] = []
        self.queued: list[Ack] = []  # to send with the next flush
        # batches with settled acks waiting for the rest of the batch (insertion-ordered)
        self.partial: dict[HostBatch, None] = {}
        # the latest response time of the acks a batch sent early (release_partial): Redis
        # counts those off the host and no more, so its last acks carry it (the host's gap)
        self.partial_done: dict[HostBatch, int] = {}

    def __bool__(self) -> bool:
        return bool(self.held or self.queued)

    def holding(self) -> bool:
        """Acks held while Scrapy still scrapes their responses."""
        return bool(self.held)

    def due(self) -> bool:
        """Any ack queued for the next flush."""
        return bool(self.queued)

    def hold(self, ack: Ack, request: Request, batch: HostBatch) -> None:
        self.held.append((ack, request, batch))

    def add(self, ack: Ack) -> None:
        """Queue *ack* for the next flush at once (a request that could not be used)."""
        self.queued.append(ack)

    def ids(self) -> set[str]:
        """Lease ids of the acks held, queued, or waiting for the rest of their batch."""
        batches = {batch for _, _, batch in self.held}
        return {*(ack.lease_id for ack, _, _ in self.held),
                *(ack.lease_id for ack in self.queued),
                *(ack.lease_id for batch in batches for ack in batch.acks)}

    def batch_settled(self, batch: HostBatch, acks: list[Ack]) -> None:
        """One lease of *batch* is settled (*acks*: its ack, or none if Redis took it
        back): once all are, the batch's acks go out together."""
        batch.acks += acks
        batch.unsettled -= 1
        if batch.unsettled == 0:
            done = max(self.partial_done.pop(batch, 0), batch.off_queue_done_ms)
            if done:  # not on a hand-back's (-1): it has no response
                batch.acks = [a._replace(done_ms=max(a.done_ms, done)) if a.done_ms >= 0 else a
                              for a in batch.acks]
            self.queued += batch.acks
            batch.acks = []
            self.partial.pop(batch, None)
        elif batch.acks:
            self.partial[batch] = None

    def release_partial(self) -> int:
        """Queue the acks settled so far of batches still running (each heartbeat): a
        batch's acks then cost Redis one more host cycle per heartbeat it spans, and a
        SIGKILL loses at most a heartbeat's worth of settled pages. How many were queued."""
        before = len(self.queued)
        for batch in self.partial:
            self.partial_done[batch] = max(self.partial_done.get(batch, 0),
                                           *(ack.done_ms for ack in batch.acks))
            self.queued += batch.acks
            batch.acks = []
        self.partial.clear()
        return len(self.queued) - before

    def release(self, scraping: Collection[Request]) -> list[Ack]:
        """Move held acks whose response Scrapy finished scraping to the send queue.

        The spider middleware sees the callback's output end before the scraper's
        workers have handed all of it to the engine (CONCURRENT_ITEMS at a time).
        """
        done = [held for held in self.held if held[1] not in scraping]
        if not done:
            return []
        self.held = [held for held in self.held if held[1] in scraping]
        before = len(self.queued)
        for ack, _, batch in done:
            self.batch_settled(batch, [ack])
        return self.queued[before:]

    def batch_of(self, host: str) -> HostBatch | None:
        """A batch of *host* whose acks are held or partly sent, if any."""
        held = (batch for _, _, batch in self.held)
        return next((batch for batch in (*held, *self.partial) if batch.host == host), None)

    def take(self) -> list[Ack]:
        acks, self.queued = self.queued, []
        return acks

    def restore(self, acks: list[Ack]) -> None:
        """A flush failed: send these first next time."""
        self.queued[:0] = acks


class LeaseBook:
    """Every lease this node holds, and the settling of each on every way out of Scrapy.

    Middlewares and signals call :meth:`settle` with the request's outcome; a retry
    or a redirect replaces its lease (:meth:`continue_lease`); :meth:`settle_leaked`
    is the safety net for a path nobody foresaw. A settled lease's ack goes to the
    :class:`AckQueue`.
    """

    def __init__(self, outcomes: Outcomes, now_ms: Callable[[], int], dispatch: Dispatch,
                 acks: AckQueue) -> None:
        self.outcomes = outcomes
        self.dispatch = dispatch  # the leased requests not handed to the engine yet
        self.now_ms = now_ms  # Redis' clock: acks are compared with other nodes' times
        self.acks = acks  # where a settled lease's ack goes
        self.leased: dict[str, Lease] = {}
        # those handed to the engine: what settle_finished checks at every next_request
        # (a node holds up to CRAWLER_PREFETCH x CRAWLER_HOST_BATCH leases, most waiting)
        self.handed_out: dict[str, Lease] = {}

    def __len__(self) -> int:
        return len(self.leased)

    def busy(self) -> bool:
        """Any lease not yet acknowledged by Redis."""
        return bool(self.leased or self.acks)

    def ours(self) -> set[str]:
        """Lease ids this node still accounts for (leased, held, or ack unsent)."""
        return {*self.leased, *self.acks.ids(),
                *(ack.lease_id for lease in self.leased.values() for ack in lease.batch.acks)}

    def clear(self) -> None:
        """Every lease went back to Redis with this node's leave: none is held here."""
        self.leased.clear()
        self.handed_out.clear()

    def add(self, lease_id: str, request: Request, batch: HostBatch) -> None:
        request.meta[LEASE_META] = lease_id
        self.leased[lease_id] = Lease(batch.host, request, batch)
        batch.unsettled += 1

    def handed(self, request: Request) -> bool:
        """*request* goes to the engine: it holds one of its host's slots. False if it
        has no lease (kept in memory: :mod:`.overflow`)."""
        if (lease := self.get(request)) is None:
            return False
        lease.handed = lease.running = True
        self.handed_out[request.meta[LEASE_META]] = lease
        return True

    def get(self, request: Request) -> Lease | None:
        return self.leased.get(request.meta.get(LEASE_META))

    def forget(self, lease_ids: Iterable[str]) -> None:
        """Drop leases handed back to Redis (drain, declared dead)."""
        for lease_id in lease_ids:
            self.handed_out.pop(lease_id, None)
            if (lease := self.leased.pop(lease_id, None)) is not None:
                self.acks.batch_settled(lease.batch, [])

    def settle(self, request: Request, outcome: str | None) -> None:
        """The outcome of *request* has been processed: release its lease.

        *outcome* (``fetched/200``, ``filtered/robots``, ``failed/<error>``) is
        counted once per lease; None settles without an outcome (a retry follows).
        """
        self._settle(request.meta.get(LEASE_META), outcome)

    def _settle(self, lease_id: str | None, outcome: str | None) -> None:
        lease = self.leased.pop(lease_id, None)
        if lease is None:
            return
        self.handed_out.pop(lease_id, None)
        lease.free_slot()
        done = lease.done_ms or self.now_ms()
        self.acks.hold(Ack(lease_id, lease.host, done, lease.backoff_ms), lease.request,
                       lease.batch)
        if lease.backoff_ms:
            # the host backs off: the batch's requests not started yet go back to the
            # head of its queue (with the batch's acks), not fetched here after the wait
            self.hand_back(self.dispatch.take_waiting(lease.batch))
        self.outcomes.count("frontier/settled")
        if outcome is not None:
            self.outcomes.record(outcome, lease.url)

    def hand_back(self, requests: Iterable[Request]) -> int:
        """Leased *requests* taken out of the dispatch unstarted go back to the head of
        their queues, acked as handed back with their batches' acks; how many."""
        handed = 0
        for request in requests:
            lease_id = request.meta[LEASE_META]
            self.handed_out.pop(lease_id, None)
            if (lease := self.leased.pop(lease_id, None)) is not None:
                self.acks.batch_settled(lease.batch,
                                        [Ack(lease_id, lease.host, HANDED_BACK)])
                handed += 1
        if handed:
            self.outcomes.count("frontier/handed_back", n=handed)
        return handed

    def refuse(self, lease_id: str, host: str, reason: str) -> None:
        """A leased request that cannot be used at all (it does not decode): ack it at
        once, so its host goes on, and count its outcome."""
        self.acks.add(Ack(lease_id, host, self.now_ms()))
        self.outcomes.count("frontier/settled")
        self.outcomes.record(f"failed/{reason}")

    def continue_lease(self, request: Request) -> bool:
        """Settle the lease that *request* continues, if any; True for a retry.

        A retry or redirect of a leased request, made before any response was
        processed, replaces it: its lease settles once the new request is pushed.
        A callback's request that merely copied response.meta continues nothing.
        """
        lease_id = request.meta.pop(LEASE_META, None)
        lease = self.leased.get(lease_id)
        if lease is None or lease.done_ms is not None:
            return False
        if request.url == lease.url:
            self._settle(lease_id, None)
            return True
        reasons = request.meta.get("redirect_reasons") or ["redirect"]
        self._settle(lease_id, f"fetched/{reasons[-1]}")
        return False

    # signal handlers
    def request_scheduled(self, request: Request, spider: object) -> None:
        """A redirect settles the lease it continues as soon as it is scheduled: a
        handler of this same signal (Scrapy's OffsiteMiddleware) may drop it before
        the scheduler sees it. Retries (same URL) wait for :meth:`continue_lease`."""
        lease = self.leased.get(request.meta.get(LEASE_META))
        if lease is not None and request.url != lease.url:
            self.continue_lease(request)

    def request_started(self, request: Request, spider: object) -> None:
        if (lease := self.get(request)) is not None:
            lease.started = True

    def response_received(self, response: Response, request: Request, spider: object) -> None:
        if (lease := self.get(request)) is not None:
            lease.done_ms = self.now_ms()
            lease.outcome = response_outcome(response)
            lease.free_slot()

    def settle_finished(self, downloading: Collection[Request], scraping: Collection[Request]
                        ) -> None:
        """Settle every lease whose request the engine is done with: handed to it, and
        neither downloading (``engine.downloader.active``: its middlewares, the download)
        nor being scraped (``engine.scraper.slot.active``).

        This needs no middleware of ours, so the scheduler settles its own leases in
        any Scrapy project; the add-on's middlewares settle earlier, with the exact
        reason of a download error. A retry or a redirect has replaced its lease
        (:meth:`continue_lease`) before the engine lets go of the request.
        """
        for lease_id, lease in list(self.handed_out.items()):
            if lease.request not in downloading and lease.request not in scraping:
                self._settle(lease_id, lease.outcome or "failed/download_error")

    def back_off(self, request: Request, backoff_ms: int) -> str | None:
        """Put *request*'s host into backoff when its lease settles (*backoff_ms*: ms to
        wait, or -1: exponential); its host, or None if this node holds no such lease."""
        if (lease := self.get(request)) is None:
            return None
        lease.backoff_ms = backoff_ms
        return lease.host

    def settle_leaked(self, engine: ExecutionEngine, ready: int) -> None:
        """Every path out of Scrapy settles a lease (middlewares, signals); this is
        the safety net for a path we did not foresee, so the crawl can finish."""
        if (not self.leased or ready or engine.downloader.active
                or not engine.scraper.slot.is_idle()):
            return
        for lease_id, lease in list(self.leased.items()):
            if not lease.started:
                continue
            self._settle(lease_id, "failed/lease_leaked")
            self.outcomes.count("frontier/lease_leaked")
            logger.warning("Lease %(id)s of host %(host)s was never settled; settling it",
                           {"id": lease_id, "host": lease.host})


def held_batch(leases: LeaseBook, host: str) -> HostBatch | None:
    """A batch of *host* this node holds (a lease of it not acked yet), if any."""
    for lease in leases.leased.values():
        if lease.host == host:
            return lease.batch
    return leases.acks.batch_of(host)
