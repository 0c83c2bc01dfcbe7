"""What the frontier records for people and for the status command: outcome counters,
permanent failures, dead letters, rebalances. Bounded: streams are capped, and a
finished run's counters fold into the cluster's retired totals."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redis.client import Pipeline

    from crawler.frontier.keys import Keys
    from crawler.frontier.link import RedisLink

FAILURES_MAXLEN = 100_000  # failures and dead letters kept (the latest)


class Ledger:
    """The frontier's records, sent over its link (its round trips are counted there)."""

    def __init__(self, link: RedisLink, keys: Keys, node: str) -> None:
        self.link = link
        self.keys = keys
        self.node = node

    def publish(self, run: str, outcomes: dict[str, int],
                failures: Sequence[tuple[str, str]]) -> None:
        """Record this node's outcome counters and new permanent failures."""
        def build(pipe: Pipeline) -> None:
            if outcomes:
                pipe.hset(self.keys.outcomes,
                          mapping={f"{run}/{k}": v for k, v in outcomes.items()})
            for url, reason in failures:
                pipe.xadd(self.keys.failures, {"url": url, "reason": reason, "node": self.node},
                          maxlen=FAILURES_MAXLEN, approximate=True)

        if outcomes or failures:
            self.link.pipeline(build)

    def retire(self, run: str, outcomes: dict[str, int]) -> None:
        """Fold a finished run's outcome counters into the cluster's retired totals, so
        the outcomes hash does not grow by one set of fields per node run."""
        def build(pipe: Pipeline) -> None:
            for key, count in outcomes.items():
                pipe.hincrby(self.keys.outcomes, f"retired/{key}", count)
            pipe.hdel(self.keys.outcomes, *(f"{run}/{key}" for key in outcomes))

        if outcomes:
            self.link.pipeline(build, True)

    def dead_letter(self, letters: Sequence[tuple[str, bytes, str]]) -> None:
        """Keep queued requests that cannot be used (host, payload, reason) for a person
        to look at, out of the queues."""
        self.link.pipeline(lambda pipe: [pipe.xadd(
            self.keys.dead_letters, {"host": host, "payload": payload, "reason": reason,
                                     "node": self.node}, maxlen=FAILURES_MAXLEN, approximate=True)
            for host, payload, reason in letters])

    def record_rebalance(self, epoch: int, away: int, claimed: int) -> None:
        """Keep the last rebalances readable by ``python -m crawler status``."""
        self.link.command("xadd", self.keys.events,
                          {"epoch": epoch, "node": self.node, "away": away, "claimed": claimed},
                          maxlen=100, approximate=True)

    def mark_finished(self, at_ms: int) -> None:
        """The crawl finished at *at_ms*: its next run is an incremental pass."""
        self.link.command("hset", self.keys.control, "finished_at", str(at_ms))
