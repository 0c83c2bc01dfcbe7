"""Python's cyclic garbage collector, tuned for a crawl.

A crawl allocates container objects by the million (requests, headers, meta, selectors,
items), nearly all freed at once by reference counting. With CPython's default
threshold (a young collection every 700 net allocations) the collector runs a few
hundred times a second and took 8-10% of a node's CPU in ``bench/run throughput``;
each full collection also walks everything imported (Scrapy, lxml, the engine
profiles), about 0.1 s a time. So while the spider is open:

- the objects alive at start (modules, classes, components) are frozen
  (``gc.freeze()``): full collections leave them out;
- young collections run every :setting:`CRAWLER_GC_THRESHOLD` net allocations.

Reference counting still frees almost everything at once; the collector only finds
cycles, later. Both are undone when the spider closes, so a process that runs
several crawls collects what they leave behind.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Self

from scrapy import signals

from crawler.config import value
from crawler.ops.logs import disabled

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class GcTuning:
    """Extension: the collector tuned from ``spider_opened`` to ``spider_closed``."""

    def __init__(self, crawler: Crawler, threshold: int) -> None:
        self.crawler = crawler
        self.threshold = threshold
        self._before: tuple[int, int, int] | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        threshold = value(crawler.settings, "CRAWLER_GC_THRESHOLD")
        if not threshold:
            raise disabled(cls, "CRAWLER_GC_THRESHOLD is 0 (Python's own collector settings)")
        extension = cls(crawler, threshold)
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_opened(self) -> None:
        gc.collect()  # what is garbage now is not frozen with the rest
        gc.freeze()
        self._before = gc.get_threshold()
        gc.set_threshold(self.threshold, *self._before[1:])
        self.crawler.stats.set_value("gc/frozen_objects", gc.get_freeze_count())

    def spider_closed(self) -> None:
        if self._before is not None:
            gc.set_threshold(*self._before)
            gc.unfreeze()
            self._before = None
