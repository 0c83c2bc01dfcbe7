"""Periodic progress lines in the crawl log, and the node's rates published for ``status``."""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Any, NamedTuple, Self

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call

from crawler.ops.metrics import scheduler_health
from crawler.redis import UNREACHABLE, client_from_crawler, crawl_id
from crawler.scheduler.cluster import Cluster

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

_ETA_WINDOW = 5  # samples the frontier's shrink rate is measured over


class Sample(NamedTuple):
    t: float
    pages: int
    items: int
    errors: int
    queued: int | None


class ProgressExtension:
    """Every :setting:`CRAWLER_PROGRESS_INTERVAL` seconds (0: off) log one line::

        Progress: 12.4 pages/s, 30.1 items/s, frontier 5321 queued (cluster), 16 in flight,
        9 hosts active, 0 errors, ETA 7m09s

    Frontier size and in-flight leases are the cluster's (from the scheduler's last
    heartbeat); pages, items, errors and hosts active are this node's. The ETA shows
    only while the cluster's frontier shrinks, from its rate over the last few lines.

    Also stores this node's sample in the crawl's ``nodestats`` hash (one Redis
    command per interval), where ``python -m crawler status`` reads per-node rates.
    """

    def __init__(self, crawler: Crawler, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.samples: deque[Sample] = deque(maxlen=_ETA_WINDOW + 1)
        self._ticker: Any = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        interval = crawler.settings.getfloat("CRAWLER_PROGRESS_INTERVAL")
        if interval <= 0:
            raise NotConfigured("CRAWLER_PROGRESS_INTERVAL is 0")
        ext = cls(crawler, interval)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Spider) -> None:
        self.samples.append(self._sample())
        self._ticker = create_looping_call(self.log)
        self._ticker.start(self.interval, now=False)

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self._ticker is not None and self._ticker.running:
            self._ticker.stop()

    def log(self) -> None:
        sample = self._sample()
        previous = self.samples[-1]
        self.samples.append(sample)
        line = self.line(previous, sample)
        logger.info("Progress: %(line)s", {"line": line}, extra={"crawler": self.crawler})
        self._publish(previous, sample)

    def line(self, previous: Sample, sample: Sample) -> str:
        pages_s, items_s = _rates(previous, sample)
        engine = self.crawler.engine
        parts = [f"{pages_s:.1f} pages/s", f"{items_s:.1f} items/s",
                 f"frontier {'?' if sample.queued is None else sample.queued} queued (cluster)",
                 f"{len(engine.downloader.active)} in flight",
                 f"{sum(1 for s in engine.downloader.slots.values() if s.active)} hosts active",
                 f"{sample.errors} errors"]
        eta = self.eta()
        if eta is not None:
            parts.append(f"ETA {_duration(eta)}")
        return ", ".join(parts)

    def eta(self) -> float | None:
        """Seconds until the cluster's frontier is empty, if it has been shrinking."""
        known = [s for s in self.samples if s.queued is not None]
        if len(known) < 2:
            return None
        first, last = known[0], known[-1]
        shrink_rate = (first.queued - last.queued) / (last.t - first.t)
        return last.queued / shrink_rate if shrink_rate > 0 and last.queued > 0 else None

    def _sample(self) -> Sample:
        stats = self.crawler.stats
        health = scheduler_health(self.crawler)
        return Sample(time.monotonic(), stats.get_value("response_received_count", 0),
                      stats.get_value("item_scraped_count", 0),
                      stats.get_value("log_count/ERROR", 0),
                      None if health is None else health["cluster_queued"])

    def _publish(self, previous: Sample, sample: Sample) -> None:
        health = scheduler_health(self.crawler)
        if health is None:
            return
        pages_s, items_s = _rates(previous, sample)
        record = {"pages": sample.pages, "items": sample.items, "errors": sample.errors,
                  "pages_per_s": round(pages_s, 2), "items_per_s": round(items_s, 2),
                  "t": time.time()}
        try:
            Cluster(client_from_crawler(self.crawler), crawl_id(self.crawler)).publish_node_stats(
                health["node"], record)
        except UNREACHABLE:
            pass  # the scheduler reports Redis outages; a missed sample costs nothing


def _rates(previous: Sample, sample: Sample) -> tuple[float, float]:
    elapsed = max(sample.t - previous.t, 1e-9)
    return (sample.pages - previous.pages) / elapsed, (sample.items - previous.items) / elapsed


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"
