"""A spider middleware that blocks the reactor once, as a slow callback or a paused VM does:
``-s SPIDER_MIDDLEWARES='{"tests.helpers.stall.StallOnce": 10}' -s STALL_AT_RESPONSE=5
-s STALL_SECONDS=2.5``."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class StallOnce:
    def __init__(self, at: int, seconds: float) -> None:
        self.at = at
        self.seconds = seconds
        self.seen = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler.settings.getint("STALL_AT_RESPONSE"), crawler.settings.getfloat("STALL_SECONDS"))

    def process_spider_input(self, response: Any) -> None:
        self.seen += 1
        if self.seen == self.at:
            time.sleep(self.seconds)  # the fault itself: the reactor does nothing meanwhile
