"""A Scrapy extension for bench runs: counts Redis round trips and dumps the stats.

Round trips are counted where redis-py writes to the socket: one write per command,
one per pipeline (however many commands it holds). That is what a network round trip
is, for any client of redis-py: ours and scrapy-redis alike.
"""

from __future__ import annotations

import gc
import json
import resource
import time
from pathlib import Path

from redis.connection import AbstractConnection
from scrapy import signals

_sent = {"n": 0}
_original = AbstractConnection.send_packed_command


def _counting_send(self, command, check_health=True):
    _sent["n"] += 1
    return _original(self, command, check_health)


AbstractConnection.send_packed_command = _counting_send  # before any scheduler connects

# CPU seconds in the cyclic garbage collector, per generation (a crawl allocates a lot)
_gc = {"started": 0.0, "cpu": [0.0, 0.0, 0.0], "runs": [0, 0, 0]}


def _gc_timer(phase: str, info: dict) -> None:
    if phase == "start":
        _gc["started"] = time.process_time()
    else:
        _gc["cpu"][info["generation"]] += time.process_time() - _gc["started"]
        _gc["runs"][info["generation"]] += 1


gc.callbacks.append(_gc_timer)


class BenchStats:
    def __init__(self, crawler) -> None:
        self.crawler = crawler
        self.path = crawler.settings.get("BENCH_STATS_FILE")
        self.started = time.time()
        crawler.signals.connect(self.closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler) -> BenchStats:
        return cls(crawler)

    def closed(self, spider, reason) -> None:
        if not self.path:
            return
        usage = resource.getrusage(resource.RUSAGE_SELF)
        stats = self.crawler.stats.get_stats()
        data = {"stats": {k: v for k, v in stats.items() if isinstance(v, (int, float, str))},
                "reason": reason, "redis_sends": _sent["n"],
                "cpu_self": usage.ru_utime + usage.ru_stime,
                "gc_cpu": _gc["cpu"], "gc_runs": _gc["runs"],
                "started": self.started, "closed": time.time()}
        Path(self.path).write_text(json.dumps(data))
