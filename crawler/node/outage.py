"""What the node's parts share about failing: the errors they retry, and the outage state.

A Redis that fails or refuses, a ring that keeps churning, or a frontier whose keys are
gone: the node keeps its local work and tries again later (:data:`TRANSIENT`).
:class:`Outage` remembers since when, so the failure is logged once.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from crawler.frontier.errors import FrontierLost, RedisTooOld, RingUnstable
from crawler.redis import FAILED

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

__all__ = ["TRANSIENT", "FrontierLost", "Outage", "RedisTooOld", "RingUnstable"]


#: A Redis that fails or refuses, or a ring that churns: keep local work, retry later
TRANSIENT = (*FAILED, RingUnstable, FrontierLost)


class Outage:
    """Whether Redis is failing for this node, and since when (logged once)."""

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats
        self.since: float | None = None

    @property
    def down(self) -> bool:
        return self.since is not None

    def failed(self, exc: Exception) -> None:
        if self.since is None:
            self.since = time.monotonic()
            logger.error("Redis unreachable or failing (%(exc)s); keeping local work and retrying",
                         {"exc": exc})
        self.stats.inc_value("frontier/redis_errors")

    def over(self) -> float | None:
        """Redis answers again: how long it failed (s), or None if it was not down."""
        since, self.since = self.since, None
        return None if since is None else time.monotonic() - since
