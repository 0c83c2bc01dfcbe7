"""Every discovered URL's one outcome, and the node's per-request counters."""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING

from scrapy.exceptions import DownloadCancelledError, IgnoreRequest, StopDownload
from scrapy.utils.httpobj import urlparse_cached

from crawler.netguard import refused_host

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector

    from crawler.frontier.frontier import Frontier


class Outcomes:
    """Counts outcomes (``fetched/200``, ``filtered/robots``, ``failed/<error>``) under
    their category and their detail, lists permanent failures, and publishes both to
    Redis, where ``python -m crawler status`` sums them over the cluster.

    Per-request counters (``frontier/enqueued``...) are kept here too and added to
    Scrapy's stats at each heartbeat: a stats call costs several microseconds, and
    they happen for every discovered link.
    """

    def __init__(self, run: str, stats: StatsCollector) -> None:
        self.stats = stats
        self.run = run  # counters are kept per node run (:func:`run_id`)
        self.counts: Counter[str] = Counter()
        self._outcomes: Counter[str] = Counter()
        self._failures: list[tuple[str, str]] = []

    def record(self, outcome: str, url: str | None = None) -> None:
        """Count one outcome, under its category and its detail (outcomes/fetched/200)."""
        self._outcomes[outcome] += 1
        category = outcome.split("/", 1)[0]
        if category != outcome:
            self._outcomes[category] += 1
        if category == "failed" and url is not None:
            self._failures.append((url, outcome.split("/", 1)[1]))

    def count(self, *keys: str, n: int = 1) -> None:
        """Add *n* to each per-request counter of *keys* (``frontier/...``)."""
        for key in keys:
            self.counts[key] += n

    def add_counts(self, counts: dict[str, int]) -> None:
        """Add another part's counters (membership's, taken at each heartbeat)."""
        self.counts.update(counts)

    def update_stats(self) -> None:
        counts, self.counts = self.counts, Counter()
        # Scrapy's scheduler's names beside ours, for tools that read them (counted
        # here, not per request): every request queued (in Redis, or in memory) and
        # handed to the engine
        memory = counts.get("scheduler/enqueued/memory", 0)
        if enqueued := counts.get("frontier/enqueued", 0) + memory:
            counts["scheduler/enqueued"] = enqueued
        if dequeued := counts.get("frontier/dequeued", 0):
            counts["scheduler/dequeued"] = dequeued
        for key, count in counts.items():
            self.stats.inc_value(key, count)
        for outcome, count in self._outcomes.items():
            self.stats.set_value(f"outcomes/{outcome}", count)

    def unpublished(self) -> bool:
        return bool(self._failures)

    def retire(self, frontier: Frontier, transient: tuple[type[Exception], ...]) -> None:
        """The run is over: fold its published counters into the retired totals."""
        try:
            frontier.ledger.retire(self.run, dict(self._outcomes))
        except transient:
            pass  # its fields stay: still counted, just not folded

    def publish(self, frontier: Frontier, transient: tuple[type[Exception], ...]) -> None:
        """Send the counters and new failures; failures stay queued if Redis fails."""
        failures, self._failures = self._failures, []
        try:
            frontier.ledger.publish(self.run, dict(self._outcomes), failures)
        except transient:
            self._failures[:0] = failures


def run_id(node: str) -> str:
    """A node run's id: its counters in Redis and its batch ids are kept under it."""
    return f"{node}@{int(time.time() * 1000)}"


def response_outcome(response: Response) -> str:
    """A response is a fetch, unless its status says the server failed us."""
    if "download_stopped" in response.flags:
        return "filtered/not_a_page"
    if response.status >= 500 or response.status in (408, 429):
        return f"failed/http_{response.status}"
    return f"fetched/{response.status}"


#: A page that is not content (crawler.login.pages): a login page or "not authorised"
LOGIN_REQUIRED = "filtered/login_required"
#: ... and a bot wall or challenge page (Cloudflare, DDoS-Guard): a failure, listed
CHALLENGE = "failed/challenge"
#: Why a request ends when its host's robots.txt stayed unavailable (RFC 9309: disallow all)
ROBOTS_UNAVAILABLE = "Forbidden by robots.txt (unavailable)"
#: Why a request ends when the netguard refused every address of its host
#: (:func:`crawler.netguard.refused_host`): filtered, as the crawl was told, not a failure
PRIVATE_ADDRESS = "Refused: the host is on a private address (CRAWLER_ALLOW_PRIVATE_ADDRESSES)"


def exception_outcome(exception: Exception, request: Request | None = None) -> str:
    """The outcome of a download of *request* that ended with *exception*."""
    if isinstance(exception, IgnoreRequest):
        # Scrapy's own middlewares say why only in the message
        message = str(exception)
        if message == ROBOTS_UNAVAILABLE:  # no robots.txt, no answer: a failure to report
            return "failed/robots_unavailable"
        if message == PRIVATE_ADDRESS:
            return "filtered/private_address"
        if message.startswith("Forbidden by robots.txt"):
            return "filtered/robots"
        if message.startswith("Filtered offsite"):
            return "filtered/offsite"
        return "filtered/ignored"
    if isinstance(exception, StopDownload):  # a binary type, stopped at its headers
        return "filtered/not_a_page"
    if isinstance(exception, DownloadCancelledError):  # over DOWNLOAD_MAXSIZE
        return "filtered/too_large"
    if request is not None and refused_host(urlparse_cached(request).hostname):
        return "filtered/private_address"  # the netguard left it no address to connect to
    return f"failed/{type(exception).__name__}"
