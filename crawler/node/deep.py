"""Deep revisits: every thread or article is read again in full, from its first page, at
least every :setting:`CRAWLER_REVISIT_DEEP_PASSES` passes or
:setting:`CRAWLER_REVISIT_DEEP_DAYS` days, whichever comes first.

An edit changes no thread-list row (most engines do not bump a thread for it), so the
row-driven revisits (:mod:`crawler.incremental`) never see it. Each thread's first request
is kept (field ``d<key>`` of ``rv:<host>``) with a *phase* in ``rvd:<host>``: a fixed
point in [0, 1) drawn from its key. Two cycles sweep the phases, one of N passes and one
of D days; a thread is read again when either passes its phase. Each pass thus reads
about 1/N of the threads (or the share of D that went by since the last pass, if that is
more), never all at once, and every thread within N passes and within D days.

The host's owner runs the sweep (``deep.lua``) at its first heartbeat of a pass, then at
most every :setting:`CRAWLER_REVISIT_MIN_INTERVAL` (watch mode: the time cycle only, by
the clock); the host's mark in ``revisit:deep`` (pass and time swept to) makes each share
promoted once, whichever node runs it.
"""

from __future__ import annotations

import hashlib
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crawler.frontier.membership import Membership
    from crawler.frontier.revisits import RevisitStore

#: Meta key of the pages of a deep revisit: the item's pages are all read again.
DEEP = "revisit_deep"

_DAY_MS = 86_400_000
_HOSTS_PER_CALL = 100


def phase(key: str) -> float:
    """Where thread *key*'s deep revisits fall in their cycle: in [0, 1), the same on
    every node and every run."""
    drawn = hashlib.blake2b(key.encode("utf-8"), digest_size=8, person=b"deep").digest()
    return int.from_bytes(drawn, "big") / 2 ** 64


class DeepRevisits:
    """One node's deep revisits: threads kept (buffered until :meth:`flush`) and the
    sweep of the host it owns (:meth:`sweep`)."""

    def __init__(self, store: RevisitStore, membership: Membership, mine: str, *, passes: int,
                 days: float, every: float) -> None:
        self.store = store
        self.membership = membership
        self.mine = mine  # this node's ready queue, where promoted threads go
        self.passes = passes
        self.span_ms = int(days * _DAY_MS)
        self.every = every  # s between two sweeps
        self.pass_number = 0
        self._phases: dict[str, dict[str, float]] = {}  # host -> key -> phase, unsent
        self._swept_at: float | None = None  # monotonic

    @property
    def enabled(self) -> bool:
        return bool(self.passes or self.span_ms)

    def start_pass(self, number: int) -> None:
        """The crawl's pass *number* began: the pass cycle's clock."""
        self.pass_number = number

    def keep(self, host: str, key: str) -> None:
        """Thread *key* of *host* (its first request kept by the caller) for deep revisits."""
        self._phases.setdefault(host, {})[key] = phase(key)

    def flush(self, now_ms: int) -> None:
        """Send the threads kept since the last flush (a new host's cycles start now)."""
        if self._phases:
            self.store.keep_deep(self._phases, f"{self.pass_number} {now_ms}")
            self._phases = {}

    def sweep(self, now_ms: int, clock_ms: int) -> int:
        """Promote the threads of this node's hosts whose phase the cycles passed since
        each host's last sweep, up to this pass and *clock_ms*; how many."""
        if not self.enabled or self._swept_at is not None \
                and time.monotonic() - self._swept_at < self.every:
            return 0
        self._swept_at = time.monotonic()
        hosts = [h for h in self.store.deep_hosts() if self.membership.owns(h)]
        promoted = 0
        for i in range(0, len(hosts), _HOSTS_PER_CALL):
            batch = hosts[i:i + _HOSTS_PER_CALL]
            promoted += int(self.membership.with_ring(
                lambda epoch, batch=batch: self.store.promote_deep(
                    batch, self.mine, epoch, now_ms, pass_number=self.pass_number,
                    passes=self.passes, clock=clock_ms, span_ms=self.span_ms)) or 0)
        return promoted
