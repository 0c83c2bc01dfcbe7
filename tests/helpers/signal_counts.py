"""A Scrapy extension for tests: counts the engine's request signals into the stats."""

from __future__ import annotations

from scrapy import signals


class SignalCounts:
    def __init__(self, crawler) -> None:
        self.stats = crawler.stats
        crawler.signals.connect(self.scheduled, signal=signals.request_scheduled)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def scheduled(self, request, spider) -> None:
        self.stats.inc_value("test/request_scheduled")
