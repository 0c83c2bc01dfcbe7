"""This node's side of the per-host politeness gate.

The gate itself lives in Redis (``refill.lua``: in-flight count, next
start, backoff per host), so it holds across the cluster. This node feeds it what
only it sees: a robots.txt ``Crawl-delay`` larger than the default gap, and hosts
that answered 429/503 or failed to connect (backoff, applied when the lease settles).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from crawler.frontier.keys import host_of, queue_host

if TYPE_CHECKING:
    from scrapy import Request

    from crawler.frontier.frontier import Ack
    from crawler.node.leases import LeaseBook
    from crawler.node.outcomes import Outcomes

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
    """Crawl-delays and host backoff, fed to the gate.

    *robots_user_agent* and *user_agent* are :setting:`ROBOTSTXT_USER_AGENT` and
    :setting:`USER_AGENT`: the agent whose robots.txt rules apply is the first of
    ``ROBOTSTXT_USER_AGENT``, the request's ``User-Agent`` header, ``USER_AGENT``.
    """

    def __init__(self, delay: float, leases: LeaseBook, outcomes: Outcomes, *,
                 max_delay: float, robots_user_agent: str | None = None,
                 user_agent: str | None = None, slots: dict | None = None) -> None:
        self.delay = delay  # the default gap between request starts to a host (s)
        self.max_delay = max(delay, max_delay)  # cap on a Crawl-delay (CRAWLER_BACKOFF_MAX)
        self.leases = leases
        self.outcomes = outcomes
        self.robots_user_agent = robots_user_agent
        self.user_agent = user_agent
        self._crawl_delays: dict[str, float] = {}
        self._unsaved: dict[str, int] = {}  # host -> Crawl-delay (ms) not yet in Redis
        self._backed_off: dict[str, None] = {}  # hosts whose backoff was logged
        # DOWNLOAD_SLOTS' delays by slot: Scrapy's slot spaces its requests by its delay
        # from their starts, the gate by its gap from the last response; the gap is the
        # larger of the two, so the slot's wait is over when the gate lets one go (one
        # delay, not two stacked)
        self.slot_delays = {name: float(slot["delay"]) for name, slot in (slots or {}).items()
                            if isinstance(slot, dict) and slot.get("delay") is not None}
        for name, seconds in self.slot_delays.items():  # slots named after their host
            self.longer_gap(name, seconds)

    def host_delay(self, request: Request) -> float:
        """The minimum gap between request starts to *request*'s host (or slot)."""
        return self.gap(queue_host(request))

    def slot_queue(self, host: str) -> None:
        """*host* is a ``<host>#<slot>`` queue: its gap is its slot's delay if larger."""
        slot = host.split("#", 1)[1]
        if slot in self.slot_delays and host not in self._crawl_delays:
            self.longer_gap(host, self.slot_delays[slot])

    def longer_gap(self, host: str, seconds: float) -> None:
        """*host*'s requests at least *seconds* apart, cluster-wide (robots.txt's Crawl-delay,
        a site's own rule such as Discuz!'s anti-CC gap), if that is longer than its gap."""
        if seconds > max(self.delay, self._crawl_delays.get(host, 0.0)):
            remember(self._crawl_delays, host, seconds)
            self._unsaved[host] = int(seconds * 1000)

    def gap(self, host: str) -> float:
        return max(self.delay, self._crawl_delays.get(host, 0.0))

    def soonest_due(self, acks: list[Ack]) -> float:
        """Seconds until the first of these acks' hosts may start a request again."""
        return min(max(self.gap(ack.host), ack.backoff_ms / 1000) for ack in acks)

    def robots_parsed(self, robotparser: Any, request: Request) -> None:
        """Signal handler: a robots.txt ``Crawl-delay`` larger than the default wins."""
        agent = self.robots_user_agent or request.headers.get(b"User-Agent") or self.user_agent
        crawl_delay = robotparser.crawl_delay(agent)
        if crawl_delay and crawl_delay > self.max_delay:
            logger.warning("Host %(host)s asks for a Crawl-delay of %(d)gs; capped at "
                           "CRAWLER_BACKOFF_MAX (%(m)gs)",
                           {"host": host_of(request), "d": crawl_delay, "m": self.max_delay})
            crawl_delay = self.max_delay
        if crawl_delay and crawl_delay > self.delay:
            self.longer_gap(host_of(request), crawl_delay)
            self.outcomes.count("frontier/robots_crawl_delay")

    def take_unsaved(self) -> dict[str, int]:
        """Crawl delays to record in Redis, for whichever node owns their hosts."""
        unsaved, self._unsaved = self._unsaved, {}
        return unsaved

    def back_off(self, request: Request, seconds: float | None, reason: str) -> None:
        """Put *request*'s host into backoff when its lease settles: no request to
        it, on any node, for *seconds* (a Retry-After) or an exponential wait."""
        host = self.leases.back_off(request,
                                    -1 if seconds is None else max(1, int(seconds * 1000)))
        if host is None:
            return
        self.outcomes.count("frontier/host_backoff", f"frontier/host_backoff/{reason}")
        if host not in self._backed_off:
            remember(self._backed_off, host, None)
            logger.info("Host %(host)s backs off (%(reason)s)%(wait)s; further backoffs of a "
                        "host are counted in frontier/host_backoff, not logged",
                        {"host": host, "reason": reason,
                         "wait": "" if seconds is None else f" for {seconds:g}s"})
