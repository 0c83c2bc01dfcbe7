"""This node's side of the politeness gate for the requests it holds: host batches.

A lease takes up to ``CRAWLER_HOST_BATCH`` requests of a due host at once
(``refill.lua``), and the host stays parked in Redis until all of them are acked.
Here they wait their turn: at most ``CRAWLER_HOST_MAX_INFLIGHT`` of a host at once,
each start at least the host's delay after the previous start and after the last
response (the gap Redis keeps between leases). Their acks go to Redis together,
when the batch is done, so the host's cycle in Redis is paid once per batch.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request

    from crawler.frontier.frontier import Ack


class HostBatch:
    """Requests of one host leased together, from the lease until their acks go."""

    __slots__ = ("host", "waiting", "running", "last_start", "last_done", "unsettled", "acks",
                 "leased", "off_queue_done_ms")

    def __init__(self, host: str, leased: bool = True) -> None:
        self.host = host
        # False: requests kept in this node's memory (:mod:`.overflow`), no lease; nothing
        # reports their responses, so only the gap between their starts is kept
        self.leased = leased
        self.waiting: deque[Request] = deque()  # not handed to the engine yet
        self.running = 0  # handed to the engine, no response yet
        self.last_start = self.last_done = 0.0  # time.monotonic() of the last start, response
        self.unsettled = 0  # leases whose acks are not in self.acks yet
        self.acks: list[Ack] = []  # sent together once the batch is done
        # Redis' clock when the last off-queue request (:mod:`.turns`) got its answer: the
        # batch's acks carry it, so the host's next lease starts a gap after it
        self.off_queue_done_ms = 0

    def response_in(self, now: float) -> None:
        """A request of this batch has its response (or failed): its slot is free."""
        self.running -= 1
        self.last_done = now


class Dispatch:
    """The batches this node holds, handing out the next request a host's gate allows."""

    def __init__(self, max_inflight: int) -> None:
        self.max_inflight = max_inflight
        self.batches: deque[HostBatch] = deque()  # those with requests waiting
        self.waiting = 0
        # waiting requests of a priority other than 0: while there are any, the host
        # whose next request has the highest priority goes first (hosts' batches come
        # from Redis in priority order); else hosts simply take turns
        self.prioritized = 0

    def __len__(self) -> int:
        return self.waiting

    def add(self, batch: HostBatch) -> None:
        self.batches.append(batch)
        self.waiting += len(batch.waiting)
        self.prioritized += sum(1 for request in batch.waiting if request.priority)

    def add_to(self, batch: HostBatch, request: Request) -> None:
        """One more request for *batch*, which still has requests waiting."""
        batch.waiting.append(request)
        self.waiting += 1
        self.prioritized += request.priority != 0

    def next(self, now: float, gap: Callable[[str], float]) -> Request | None:
        """The next request whose host may start one now, hosts taken in turn; *gap*:
        host -> seconds between its requests (delay, Crawl-delay)."""
        if self.prioritized:
            return self._next_by_priority(now, gap)
        for _ in range(len(self.batches)):
            batch = self.batches[0]
            if not batch.waiting:
                self.batches.popleft()
                continue
            self.batches.rotate(-1)
            if batch.running < self.max_inflight and now >= self._next_start(batch, gap):
                return self._start(batch, now)
        return None

    def _next_by_priority(self, now: float, gap: Callable[[str], float]) -> Request | None:
        """The next request of the highest priority among the hosts that may start one
        now (the first such host in turn, which then goes last)."""
        self.batches = deque(batch for batch in self.batches if batch.waiting)
        best = None
        for batch in self.batches:
            if batch.running < self.max_inflight and now >= self._next_start(batch, gap) \
                    and (best is None or batch.waiting[0].priority > best.waiting[0].priority):
                best = batch
        if best is None:
            return None
        self.batches.remove(best)
        self.batches.append(best)
        return self._start(best, now)

    def _start(self, batch: HostBatch, now: float) -> Request:
        batch.running += batch.leased
        batch.last_start = now
        self.waiting -= 1
        request = batch.waiting.popleft()
        self.prioritized -= request.priority != 0
        return request

    @staticmethod
    def _next_start(batch: HostBatch, gap: Callable[[str], float]) -> float:
        seconds = gap(batch.host)
        return max(batch.last_start, batch.last_done) + seconds if seconds else 0.0

    def next_start(self, gap: Callable[[str], float]) -> float | None:
        """When the first host that waits only for its gap may start (monotonic)."""
        starts = [self._next_start(b, gap) for b in self.batches
                  if b.waiting and b.running < self.max_inflight]
        return min(starts, default=None)

    def take_waiting(self, batch: HostBatch) -> list[Request]:
        """Take *batch*'s waiting requests out (handed back to Redis)."""
        taken = list(batch.waiting)
        batch.waiting.clear()
        self.waiting -= len(taken)
        self.prioritized -= sum(1 for request in taken if request.priority)
        return taken

    def take_all(self) -> list[Request]:
        """Take every leased waiting request out, batch by batch in queue order (those
        kept in memory stay: Redis cannot take them)."""
        taken = [request for batch in self.batches if batch.leased
                 for request in self.take_waiting(batch)]
        self.batches = deque(batch for batch in self.batches if not batch.leased)
        return taken
