"""Bench-only experiment for the throughput regression of commit d0d75ed ("acks wait until
Scrapy finished scraping their response"): a held ack is released only at the next refill,
and a node with nothing due sleeps up to CRAWLER_IDLE_BACKOFF_MAX (1 s) before that refill,
so hosts whose ack is held stay busy long after their response was scraped.

Proposed fix, patched in here: while acks are held, never sleep longer than 10 ms before
the next refill (the lead's version could instead release them from a callback when the
scraper slot finishes the response).
"""

from __future__ import annotations

from crawler.scheduler import scheduler as scheduler_module

Scheduler = scheduler_module.Scheduler
_wait = Scheduler._wait


def _wait_short_while_held(self, seconds: float) -> None:
    if getattr(self, "_held", None):
        seconds = min(seconds, 0.01)
    _wait(self, seconds)


Scheduler._wait = _wait_short_while_held


class AckWake:
    """Loaded as an extension only so that this module is imported in the crawl."""

    @classmethod
    def from_crawler(cls, crawler) -> AckWake:
        return cls()
