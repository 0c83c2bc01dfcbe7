"""Items from every node in one place: a Redis stream per crawl."""

from __future__ import annotations

import logging
import os
import re
import time
from typing import TYPE_CHECKING, Any, Self

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.utils.asyncio import create_looping_call
from scrapy.utils.serialize import ScrapyJSONEncoder

from crawler.config import value
from crawler.durable import ITEMS_ERROR_STAT, NOT_WRITTEN_STAT
from crawler.frontier.cluster import Cluster
from crawler.node.api import node_name, node_of
from crawler.ops.logs import disabled
from crawler.redis import FAILED, client_from_crawler, crawl_id
from crawler.state import state_root

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

_BATCH = 100  # items per XADD pipeline
_FLUSH_INTERVAL = 1.0  # seconds; bounds what a SIGKILL can lose

#: Sent after a batch of items reached the stream (``count``): what waits for items to be
#: stored (their digests, :class:`crawler.incremental.items.RevisitPipeline`) may be written now.
items_streamed = object()


class RedisStreamSink:
    """Appends every item, as one JSON object, to the crawl's stream ``crawler:{<crawl>}:items``.

    Every node writes to the same stream, so ``python -m crawler export`` gives one
    dataset for the whole cluster. Entries carry ``item`` (JSON, as Scrapy's JSON
    Lines feed writes it) and ``node``.

    Settings: :setting:`CRAWLER_ITEMS_STREAM` (``None``: on when :setting:`REDIS_URL`
    is set; ``True``/``False`` force it). Items are written in pipelined batches of
    100, at least every second, before the node sends the acks of their pages
    (:mod:`crawler.durable`: a node killed with SIGKILL loses no item, the pages of
    unwritten ones are still leased) and when the spider closes. If Redis will not take
    the last ones at the close (full, restarting) for :setting:`CRAWLER_NODE_TIMEOUT`,
    they go to a local file, ``items-unsent-<crawl>-<node>.jl`` in
    :setting:`CRAWLER_STATE_DIR`, and the crawl exits
    non-zero saying so.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.encoder = ScrapyJSONEncoder(ensure_ascii=False, separators=(",", ":"))
        self._buffer: list[str] = []
        self._cluster: Cluster | None = None
        self._node = ""
        self._ticker: Any = None
        self._failing = False
        self._crawl = ""
        # how long the close waits for Redis to take the last items: the node timeout,
        # as the node's own close waits for Redis
        self._patience = float(value(crawler.settings, "CRAWLER_NODE_TIMEOUT"))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        s = crawler.settings
        enabled = value(s, "CRAWLER_ITEMS_STREAM")
        on = bool(s.get("REDIS_URL")) if enabled is None else enabled
        if not on:
            raise disabled(cls, "CRAWLER_ITEMS_STREAM is off")
        sink = cls(crawler)
        crawler.signals.connect(sink.spider_opened, signal=signals.spider_opened)
        return sink

    def spider_opened(self) -> None:
        self._crawl = crawl_id(self.crawler)
        self._cluster = Cluster(client_from_crawler(self.crawler), self._crawl)
        self._node = node_name(self.crawler)
        if (node := node_of(self.crawler)) is not None:
            node.add_ack_barrier(self.flush)  # no ack before the page's items are in the stream
        self._ticker = create_looping_call(self.flush)
        self._ticker.start(_FLUSH_INTERVAL, now=False)

    def close_spider(self) -> None:
        # as a pipeline, before the scheduler closes and writes the last revisit state
        if self._ticker is not None and self._ticker.running:
            self._ticker.stop()
        # Redis full or restarting as the crawl ends: try again for a while (as the node
        # waits out a short outage at its close), then write the items to a local file
        deadline = time.monotonic() + self._patience
        while not self.flush():
            if time.monotonic() > deadline:
                self._spill()
                return
            time.sleep(0.5)

    def process_item(self, item: Any) -> Any:
        self._buffer.append(self.encoder.encode(ItemAdapter(item).asdict()))
        if len(self._buffer) >= _BATCH:
            self.flush()
        return item

    def flush(self) -> bool:
        """Write the buffered items to the stream: whether it holds every item now."""
        if not self._buffer:
            return True
        if self._cluster is None:
            return False
        batch, self._buffer = self._buffer, []
        try:
            self._cluster.items.add(self._node, batch)
        except FAILED as exc:  # unreachable, or refusing (OOM, READONLY, MISCONF)
            self._buffer[:0] = batch  # keep them for the next try
            self.crawler.stats.inc_value("items/sink_errors")
            if not self._failing:  # once per outage: the node tries before every ack
                self._failing = True
                logger.warning("Cannot write %(n)d items to the item stream (%(exc)s); "
                               "retrying (the pages they came from stay leased meanwhile)",
                               {"n": len(batch), "exc": exc}, extra={"crawler": self.crawler})
            return False
        if self._failing:
            self._failing = False
            logger.info("The item stream takes items again", extra={"crawler": self.crawler})
        self.crawler.stats.inc_value("items/streamed", len(batch))
        self.crawler.signals.send_catch_log(items_streamed, count=len(batch))
        return True

    def _spill(self) -> None:
        """Redis would not take the last items: keep them in a local file, and say so."""
        batch, self._buffer = self._buffer, []
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{self._crawl}-{self._node or 'node'}")
        path = state_root(value(self.crawler.settings, "CRAWLER_STATE_DIR")) \
            / f"items-unsent-{name}.jl"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8") as out:
                out.write("".join(line + "\n" for line in batch))
                out.flush()
                os.fsync(out.fileno())
        except OSError as exc:
            message = (f"{len(batch)} items could not be written to the Redis item stream, "
                       f"nor to {path} ({exc.strerror or exc}): they are lost")
            self.crawler.stats.inc_value(NOT_WRITTEN_STAT, len(batch))
        else:
            message = (f"{len(batch)} items could not be written to the Redis item stream "
                       f"(Redis refused them for {self._patience:g}s): they are in {path}")
            self.crawler.stats.inc_value("items/spilled", len(batch))
        self.crawler.stats.set_value(ITEMS_ERROR_STAT, message)
        logger.error("%(message)s", {"message": message[0].upper() + message[1:]},
                     extra={"crawler": self.crawler})
