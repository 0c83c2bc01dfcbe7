"""This node's side of the per-host politeness gate.

The gate itself lives in Redis (``refill.lua``: in-flight count, next
start, backoff per host), so it holds across the cluster. This node feeds it what
only it sees: a robots.txt ``Crawl-delay`` larger than the default gap, and hosts
that answered 429/503 or failed to connect (backoff, applied when the lease settles).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from crawler.scheduler.keys import host_of

if TYPE_CHECKING:
    from scrapy import Request

    from crawler.scheduler.frontier import Ack
    from crawler.scheduler.leases import LeaseBook

logger = logging.getLogger(__name__)

#: hosts a node remembers something about (Crawl-delay, backoff logged, robots.txt);
#: the oldest are forgotten beyond it, so a crawl of millions of hosts stays bounded
HOSTS_REMEMBERED = 100_000


def remember(memory: dict, key: Any, value: Any, cap: int = HOSTS_REMEMBERED) -> list:
    """Set *key* in the insertion-ordered *memory*; return the oldest keys evicted."""
    memory.pop(key, None)
    memory[key] = value
    evicted = []
    while len(memory) > cap:
        oldest = next(iter(memory))
        del memory[oldest]
        evicted.append(oldest)
    return evicted


class Politeness:
    def __init__(self, delay: float, leases: LeaseBook, robots_user_agent: Any,
                 max_delay: float) -> None:
        self.delay = delay  # the default gap between request starts to a host (s)
        self.max_delay = max(delay, max_delay)  # cap on a Crawl-delay (CRAWLER_BACKOFF_MAX)
        self.leases = leases
        self.robots_user_agent = robots_user_agent  # callable(request) -> agent
        self._crawl_delays: dict[str, float] = {}
        self._unsaved: dict[str, int] = {}  # host -> Crawl-delay (ms) not yet in Redis
        self._backed_off: dict[str, None] = {}  # hosts whose backoff was logged

    def host_delay(self, request: Request) -> float:
        """The minimum gap between request starts to *request*'s host."""
        return self.gap(host_of(request))

    def gap(self, host: str) -> float:
        return max(self.delay, self._crawl_delays.get(host, 0.0))

    def soonest_due(self, acks: list[Ack]) -> float:
        """Seconds until the first of these acks' hosts may start a request again."""
        return min(max(self.gap(ack.host), ack.backoff_ms / 1000) for ack in acks)

    def robots_parsed(self, robotparser: Any, request: Request) -> None:
        """Signal handler: a robots.txt ``Crawl-delay`` larger than the default wins."""
        crawl_delay = robotparser.crawl_delay(self.robots_user_agent(request))
        if crawl_delay and crawl_delay > self.max_delay:
            logger.warning("Host %(host)s asks for a Crawl-delay of %(d)gs; capped at "
                           "CRAWLER_BACKOFF_MAX (%(m)gs)",
                           {"host": host_of(request), "d": crawl_delay, "m": self.max_delay})
            crawl_delay = self.max_delay
        if crawl_delay and crawl_delay > self.delay:
            host = host_of(request)
            remember(self._crawl_delays, host, crawl_delay)
            self._unsaved[host] = int(crawl_delay * 1000)
            self.leases.outcomes.counts["frontier/robots_crawl_delay"] += 1

    def take_unsaved(self) -> dict[str, int]:
        """Crawl delays to record in Redis, for whichever node owns their hosts."""
        unsaved, self._unsaved = self._unsaved, {}
        return unsaved

    def back_off(self, request: Request, seconds: float | None, reason: str) -> None:
        """Put *request*'s host into backoff when its lease settles: no request to
        it, on any node, for *seconds* (a Retry-After) or an exponential wait."""
        lease = self.leases.get(request)
        if lease is None:
            return
        lease.backoff_ms = -1 if seconds is None else max(1, int(seconds * 1000))
        counts = self.leases.outcomes.counts
        counts["frontier/host_backoff"] += 1
        counts[f"frontier/host_backoff/{reason}"] += 1
        if lease.host not in self._backed_off:
            remember(self._backed_off, lease.host, None)
            logger.info("Host %(host)s backs off (%(reason)s)%(wait)s; further backoffs of a "
                        "host are counted in frontier/host_backoff, not logged",
                        {"host": lease.host, "reason": reason,
                         "wait": "" if seconds is None else f" for {seconds:g}s"})
