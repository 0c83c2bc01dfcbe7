"""The crawl's final stats as a JSON file, for scripts and tests (no log scraping)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Self

from scrapy import signals

from crawler import config
from crawler.ops.logs import disabled

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class StatsFile:
    """Writes every stat, as one JSON object, to :setting:`CRAWLER_STATS_FILE` when
    the spider closes (after the scheduler's last counts are in)."""

    def __init__(self, crawler: Crawler, path: Path) -> None:
        self.crawler = crawler
        self.path = path

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        path = config.value(crawler.settings, "CRAWLER_STATS_FILE")
        if not path:
            raise disabled(cls, "CRAWLER_STATS_FILE is not set")
        extension = cls(crawler, Path(path))
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_closed(self, reason: str) -> None:
        stats = {**self.crawler.stats.get_stats(), "finish_reason": reason}
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(stats, default=str, sort_keys=True, indent=1))
        tmp.replace(self.path)  # readers never see half a file
