"""Items from every node in one place: a Redis stream per crawl."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Self

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.utils.asyncio import create_looping_call
from scrapy.utils.serialize import ScrapyJSONEncoder

from crawler.config import value
from crawler.redis import FAILED, client_from_crawler, crawl_id
from crawler.scheduler.cluster import Cluster
from crawler.scheduler.node import node_of
from crawler.ops.logs import disabled

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

_BATCH = 100  # items per XADD pipeline
_FLUSH_INTERVAL = 1.0  # seconds; bounds what a SIGKILL can lose

#: Sent after a batch of items reached the stream (``count``): what waits for items to be
#: stored (their digests, :class:`crawler.incremental.RevisitPipeline`) may be written now.
items_streamed = object()


class RedisStreamSink:
    """Appends every item, as one JSON object, to the crawl's stream ``crawler:{<crawl>}:items``.

    Every node writes to the same stream, so ``python -m crawler export`` gives one
    dataset for the whole cluster. Entries carry ``item`` (JSON, as Scrapy's JSON
    Lines feed writes it) and ``node``.

    Settings: :setting:`CRAWLER_ITEMS_STREAM` (``None``: on when :setting:`REDIS_URL`
    is set; ``True``/``False`` force it). Items are written in pipelined batches of
    100, at least every second and when the spider closes, to keep Redis round trips
    per page low; a node killed with SIGKILL loses at most the last second's items
    (its requests are not lost: their leases are requeued).
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.encoder = ScrapyJSONEncoder(ensure_ascii=False, separators=(",", ":"))
        self._buffer: list[str] = []
        self._cluster: Cluster | None = None
        self._node = ""
        self._ticker: Any = None

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
        self._cluster = Cluster(client_from_crawler(self.crawler), crawl_id(self.crawler))
        node = node_of(self.crawler)
        self._node = (node.health()["node"] if node is not None else None) \
            or self.crawler.settings.get("CRAWLER_NODE_ID") or ""
        self._ticker = create_looping_call(self.flush)
        self._ticker.start(_FLUSH_INTERVAL, now=False)

    def close_spider(self) -> None:
        # as a pipeline, before the scheduler closes and writes the last revisit state
        if self._ticker is not None and self._ticker.running:
            self._ticker.stop()
        self.flush()

    def process_item(self, item: Any) -> Any:
        self._buffer.append(self.encoder.encode(ItemAdapter(item).asdict()))
        if len(self._buffer) >= _BATCH:
            self.flush()
        return item

    def flush(self) -> None:
        if not self._buffer or self._cluster is None:
            return
        batch, self._buffer = self._buffer, []
        try:
            self._cluster.items.add(self._node, batch)
        except FAILED as exc:  # unreachable, or refusing (OOM, READONLY, MISCONF)
            self._buffer[:0] = batch  # keep them for the next try
            self.crawler.stats.inc_value("items/sink_errors")
            logger.warning("Cannot write %(n)d items to the item stream (%(exc)s); retrying",
                           {"n": len(batch), "exc": exc},
                           extra={"crawler": self.crawler})
            return
        self.crawler.stats.inc_value("items/streamed", len(batch))
        self.crawler.signals.send_catch_log(items_streamed, count=len(batch))
