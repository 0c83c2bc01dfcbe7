"""Turns at a host for requests the frontier never queues (a post's attachments).

The pipelines download such requests with ``engine.download()``, past the scheduler and so
past the host's gate (:mod:`.dispatch`). A request marked with :data:`OFF_QUEUE` waits for
its turn in :class:`HostTurnMiddleware`, closest to the downloader, on every try (a
redirect's too):

- when this node holds a batch of the request's host (a lease not acked yet: the page the
  attachment comes from is one, its ack waits for the files), the request takes a slot of
  that batch, so it keeps the host's gap and in-flight limit with the batch's pages; the
  host stays parked in Redis meanwhile, so no other node starts one, and the batch's acks
  carry the request's response time, so the next lease of the host, on any node, starts
  a gap after it;
- else (a file on another host), the host's gap is kept between this node's requests to it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Self

from crawler.frontier.keys import queue_host
from crawler.login.signin import sleep_for
from crawler.node.api import node_of
from crawler.node.dispatch import HostBatch
from crawler.node.leases import held_batch
from crawler.node.politeness import remember

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from crawler.node.leases import LeaseBook
    from crawler.node.politeness import Politeness

__all__ = ["OFF_QUEUE", "HostTurnMiddleware", "HostTurns"]

#: Request meta: a request the frontier does not queue, that waits for its host's turn.
OFF_QUEUE = "crawler_off_queue"
_TURN = "crawler_host_turn"  # request meta: the batch whose slot the request holds
#: how often a request that waits for a free slot of its host looks again (s)
RECHECK = 0.05


class HostTurns:
    """Slots of host batches for off-queue requests: see the module docstring."""

    def __init__(self, leases: LeaseBook, politeness: Politeness, max_inflight: int,
                 now_ms: Callable[[], int]) -> None:
        self.leases = leases
        self.politeness = politeness
        self.max_inflight = max_inflight
        self.now_ms = now_ms  # Redis' clock, the one acks carry
        self.unheld: dict[str, HostBatch] = {}  # hosts with no batch here: paced alone

    async def take(self, request: Request) -> HostBatch:
        """Wait until *request* may start at its host; the batch whose slot it holds."""
        host = queue_host(request)
        while True:
            batch = held_batch(self.leases, host) or self._unheld(host)
            now = time.monotonic()
            start = max(batch.last_start, batch.last_done) + self.politeness.gap(host)
            if batch.running < self.max_inflight and now >= start:
                batch.running += 1
                batch.last_start = now
                return batch
            await sleep_for(max(start - now, RECHECK))

    def give_back(self, batch: HostBatch) -> None:
        """The request holding a slot of *batch* has its answer (or failed)."""
        batch.response_in(time.monotonic())
        batch.off_queue_done_ms = self.now_ms()

    def _unheld(self, host: str) -> HostBatch:
        if (batch := self.unheld.get(host)) is None:
            batch = HostBatch(host, leased=False)
            remember(self.unheld, host, batch)
        return batch


class HostTurnMiddleware:
    """Downloader middleware (990, after every other): see the module docstring."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    async def process_request(self, request: Request, spider: Any = None) -> None:
        if request.meta.get(OFF_QUEUE) and (node := node_of(self.crawler)) is not None:
            request.meta[_TURN] = await node.turns.take(request)

    def process_response(self, request: Request, response: Response,
                         spider: Any = None) -> Response:
        self._give_back(request)
        return response

    def process_exception(self, request: Request, exception: Exception,
                          spider: Any = None) -> None:
        self._give_back(request)

    def _give_back(self, request: Request) -> None:
        batch = request.meta.pop(_TURN, None)
        if batch is not None and (node := node_of(self.crawler)) is not None:
            node.turns.give_back(batch)
