"""Requests that cannot be queued in Redis, kept in this node's memory and crawled here.

A request whose meta or cb_kwargs are not JSON, or whose callback is a plain function
or a lambda, cannot be encoded (:mod:`.codec`). Scrapy's scheduler keeps such requests
in its memory queue (``scheduler/unserializable``); so does this one: they wait in the
node's dispatch as host batches without a lease, spaced by their host's gap, and count
as pending work, so the crawl does not end while they wait. They are not shared: only
this node fetches them, and they are lost if it dies or stops before.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from crawler.node.dispatch import HostBatch
from crawler.node.politeness import remember

if TYPE_CHECKING:
    from scrapy import Request, Spider

    from crawler.node.dispatch import Dispatch
    from crawler.node.outcomes import Outcomes

logger = logging.getLogger(__name__)


class Overflow:
    """This node's memory queue, one host batch (without lease) per host."""

    def __init__(self, dispatch: Dispatch, outcomes: Outcomes) -> None:
        self.dispatch = dispatch
        self.outcomes = outcomes
        self.batches: dict[str, HostBatch] = {}  # host -> its batch; kept for its last start
        self.logged = False

    def add(self, request: Request, host: str, reason: Exception, spider: Spider | None
            ) -> None:
        """Keep *request*, which *reason* says cannot be encoded."""
        self.outcomes.count("scheduler/unserializable", "scheduler/enqueued/memory",
                            "frontier/unserializable")
        if not self.logged:
            self.logged = True
            logger.warning("Unable to serialize request: %(request)s - reason: %(reason)s - "
                           "it is crawled by this node only (not shared, lost if the node "
                           "stops first); no more unserializable requests will be logged "
                           "(stats being collected)", {"request": request, "reason": reason},
                           extra={"spider": spider})
        batch = self.batches.get(host)
        if batch is not None and batch.waiting:  # still in the dispatch's rotation
            self.dispatch.add_to(batch, request)
            return
        fresh = HostBatch(host, leased=False)
        if batch is not None:
            fresh.last_start = batch.last_start
        remember(self.batches, host, fresh)
        fresh.waiting.append(request)
        self.dispatch.add(fresh)

    def waiting(self) -> int:
        """Requests kept here, not handed to the engine yet."""
        return sum(len(batch.waiting) for batch in self.batches.values())
