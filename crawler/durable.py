"""A page is settled only once its items are written: the promise a lease makes covers them.

The node sends the acks of settled pages to Redis in batches (:mod:`crawler.node.exchange`).
Right before a batch of acks leaves, :meth:`ItemDurability.make_durable` writes out every
item scraped so far, in this order:

1. every output registered with :meth:`crawler.node.api.NodeAPI.add_ack_barrier`: the
   ``-o``/``FEEDS`` files (:mod:`crawler.feeds`: plugins flushed, files fsynced) and the
   Redis item stream (:class:`crawler.ops.sink.RedisStreamSink`: its buffer written);
2. then the item digests of the incremental pass (:data:`items_durable`, which
   :class:`crawler.incremental.items.RevisitPipeline` waits for; the web archive too) and the
   rest of the revisit state (a thread's last known page, listing rows), so the state is
   never behind an ack.

Only if all of it succeeded do the acks go: a SIGKILL at any moment leaves every page whose
ack Redis holds with its items in the output, and every other page leased, so the crawl,
resumed, fetches it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crawler.redis import FAILED

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler

    from crawler.node.revisit import Revisits

#: Sent once every item scraped so far is in every output (feed files fsynced, the Redis
#: stream written), right before the acks of their pages leave; a receiver that returns
#: ``False`` (the web archive, unwritable) holds them.
items_durable = object()

#: Stat: a line saying which items were not written (the crawl exits non-zero with it).
ITEMS_ERROR_STAT = "items/error"
#: Stat: items scraped that reached no output (a feed that failed, a stream spilled).
NOT_WRITTEN_STAT = "items/not_written"


class ItemDurability:
    """See the module docstring. Built by the node; :meth:`make_durable` is the hook the
    exchange calls before it sends acks (``False``: keep the acks)."""

    def __init__(self, crawler: Crawler, revisits: Revisits) -> None:
        self.crawler = crawler
        self.revisits = revisits
        self._outputs: list[Callable[[], bool]] = []  # True: what it holds is durable

    def add_output(self, durable: Callable[[], bool]) -> None:
        """An output that must hold the items before their pages are acked: *durable*
        writes what it buffers, and says whether it holds every item now."""
        self._outputs.append(durable)

    def make_durable(self) -> bool:
        """Write every item scraped so far to every output, then the revisit state:
        whether the acks may go now."""
        if not all(durable() for durable in self._outputs):
            return False
        held = self.crawler.signals.send_catch_log(items_durable)
        if any(result is False for _, result in held):  # an output that failed (the archive)
            return False
        try:
            self.revisits.flush()  # kept for the next try if Redis fails
        except FAILED:
            return False
        return True
