"""What a local test server saw: every request, per-host concurrency, gaps between starts.

:class:`~crawler.demo.server.LoopbackServer` calls :meth:`Recorder.begin` when it has read a
request line and :meth:`Recorder.end` just before it writes the response, so a client that
holds a response always finds it recorded. Times are ``time.monotonic()`` of the server process.

The gap analysis is also offered as two plain functions over intervals
(:func:`peak_overlap`, :func:`min_start_gap`), which the benchmarks apply to server logs.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise

__all__ = ["Recorder", "RequestRecord", "min_start_gap", "peak_overlap"]


@dataclass(frozen=True, slots=True)
class RequestRecord:
    host: int  # index of the host in the site
    netloc: str
    method: str
    path: str  # the request target as sent on the request line, query included
    status: int
    start: float  # time.monotonic() in the server process
    end: float
    size: int = 0  # body bytes sent

    @property
    def url(self) -> str:
        return f"http://{self.netloc}{self.path}"

    @property
    def is_robots(self) -> bool:
        return self.path == "/robots.txt"


def peak_overlap(intervals: Iterable[tuple[float, float]]) -> int:
    """Most intervals ``(start, end)`` open at one instant; an end at the very instant of a
    start frees its slot first (log timestamps are rounded to the millisecond)."""
    events = sorted(e for start, end in intervals for e in ((start, 1), (end, -1)))
    level = peak = 0
    for _, step in events:
        level += step
        peak = max(peak, level)
    return peak


def min_start_gap(starts: Iterable[float]) -> float:
    """Smallest gap between two consecutive starts; ``inf`` for fewer than two."""
    return min((b - a for a, b in pairwise(sorted(starts))), default=float("inf"))


class Recorder:
    """A thread-safe log of the requests a server answered, for ``hosts`` hosts.

    In-flight counts are tracked live (not rebuilt from the log), so a peak is exact even
    for requests that never completed. ``on_record`` is called with each record, in the
    serving thread and outside the lock (the benchmarks write their access log with it).
    """

    def __init__(self, hosts: int,
                 on_record: Callable[[RequestRecord], None] | None = None) -> None:
        self.hosts: int = hosts
        self._on_record = on_record
        # RLock so that wait_for() predicates may call the (locking) query methods.
        self._cond = threading.Condition(threading.RLock())
        self._log: list[RequestRecord] = []
        self._fetched: set[str] = set()
        self._inflight = [0] * hosts
        self._peak = [0] * hosts

    def begin(self, host: int) -> float:
        """A request to ``host`` has started; returns its start time."""
        with self._cond:
            self._inflight[host] += 1
            self._peak[host] = max(self._peak[host], self._inflight[host])
            self._cond.notify_all()  # lets wait_for() observe in-flight requests
            return time.monotonic()

    def end(self, record: RequestRecord) -> None:
        """The request begun for ``record.host`` is answered (its response is about to go out)."""
        with self._cond:
            self._inflight[record.host] -= 1
            self._log.append(record)
            if not record.is_robots:
                self._fetched.add(record.url)
            self._cond.notify_all()
        if self._on_record is not None:
            self._on_record(record)

    @property
    def requests(self) -> list[RequestRecord]:
        """Snapshot of all recorded requests, in completion order."""
        with self._cond:
            return list(self._log)

    def fetch_counts(self, include_robots: bool = False) -> Counter[str]:
        """Absolute URL -> number of requests (any method, any status)."""
        return Counter(r.url for r in self.requests if include_robots or not r.is_robots)

    def fetched_urls(self) -> set[str]:
        """Distinct non-robots URLs requested so far."""
        with self._cond:
            return set(self._fetched)

    def peak_inflight(self) -> list[int]:
        """Per host index, the most requests that were in flight at once."""
        with self._cond:
            return list(self._peak)

    def min_gaps(self) -> list[float]:
        """Per host index, the smallest gap in seconds between two request starts (robots.txt
        included, since it counts against a crawler's politeness too); ``inf`` if fewer than two."""
        starts: list[list[float]] = [[] for _ in range(self.hosts)]
        for r in self.requests:
            starts[r.host].append(r.start)
        return [min_start_gap(s) for s in starts]

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` is true (re-checked after every request begins or ends);
        False on timeout."""
        with self._cond:
            return self._cond.wait_for(predicate, timeout)

    def wait_fetched(self, n: int, timeout: float) -> bool:
        """Block until at least ``n`` distinct non-robots URLs have been requested."""
        return self.wait_for(lambda: len(self._fetched) >= n, timeout)

    def reset(self) -> None:
        """Forget the log; peaks restart from what is in flight now."""
        with self._cond:
            self._log.clear()
            self._fetched.clear()
            self._peak = list(self._inflight)
