"""This node's view of the ring, kept current by heartbeats; hosts move when it changes."""

from __future__ import annotations

import logging
from collections import Counter
from typing import TYPE_CHECKING

from crawler.frontier.errors import RingUnstable
from crawler.frontier.ring import Ring
from crawler.frontier.scripts import StaleEpoch

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from crawler.frontier.frontier import Beat, Frontier

logger = logging.getLogger(__name__)

__all__ = ["Membership", "RingUnstable"]


class Membership:
    """Join, heartbeat, failure detection, drain and leave for one node.

    Ownership is a pure function of the members' weights at an epoch, so every
    node computes the same owner for a host without asking anyone. When the epoch
    changes each node moves away the hosts it no longer owns and claims orphaned
    hosts it now owns: only hosts whose owner changed are touched.
    """

    def __init__(self, frontier: Frontier, *, weight: int, vnodes: int, timeout_ms: int,
                 dead_letter_after: int = 0) -> None:
        self.dead_letter_after = dead_letter_after  # attempts counted on deaths only
        self.frontier = frontier
        self.node = frontier.node
        self.weight = weight
        self.vnodes = vnodes
        self.timeout_ms = timeout_ms
        self.counts: Counter[str] = Counter()  # frontier/* stats, added by the node loop
        self.epoch = -1
        self.ring = Ring({}, vnodes)
        self._owners: dict[str, str] = {}
        self._swept_epoch = -1  # the epoch this node's ready set was last checked at

    def ready_key(self, host: str) -> str:
        """Where a host's work is announced: its owner's ready set, or orphans."""
        owner = self._owners.get(host)
        if owner is None:
            if not self.ring:
                return self.frontier.keys.orphans
            owner = self._owners[host] = self.ring.owner(host)
        return self.frontier.keys.ready(owner)

    def join(self) -> None:
        # a previous run of this node (a restarted pod) died with these leases
        if self.frontier.reclaim(self.node, dead_before_ms=None, remove=True,
                                 max_attempts=self.dead_letter_after):
            logger.info("Requeued the leases of a previous run of node %(node)s",
                        {"node": self.node})
        self.frontier.join(self.weight)
        self.refresh()
        logger.info("Node %(node)s joined the ring (weight %(w)d, %(n)d members)",
                    {"node": self.node, "w": self.weight, "n": len(self.ring.weights)})

    def rejoin(self) -> None:
        """Join a frontier built anew (its keys were lost): the ring is rebuilt from it."""
        self.epoch = -1
        self.join()

    def is_member(self) -> bool:
        """Whether this node owns hosts (its weight is not 0: not draining)."""
        return self.weight > 0

    def owns(self, host: str) -> bool:
        """Whether *host* is this node's on the ring as it last saw it."""
        return self.ready_key(host) == self.frontier.keys.ready(self.node)

    def members(self) -> list[str]:
        """The nodes that own hosts on the ring, as this node last saw it."""
        return list(self.ring.weights)

    def take_counts(self) -> Counter[str]:
        """The ``frontier/*`` counts since the last call (for the crawl's stats)."""
        counts, self.counts = self.counts, Counter()
        return counts

    def refresh(self) -> None:
        """Rebuild the ring from Redis and move hosts whose owner changed."""
        for _ in range(5):
            epoch, weights = self.frontier.ring_snapshot()
            if epoch != self.epoch:
                self.epoch = epoch
                self.ring = Ring({n: w for n, w in weights.items() if w > 0}, self.vnodes)
                self._owners.clear()
                self._swept_epoch = -1
            try:
                self._sweep()
                return
            except StaleEpoch:
                continue
        raise RingUnstable("membership kept changing during 5 consecutive sweeps")

    def _sweep(self) -> None:
        """Move away the hosts this node no longer owns, and claim its orphans.

        Its own ready set is read only when the epoch changed: within an epoch, every
        write that adds a host to it (push, ack, sweep) is fenced by that epoch and
        routed by its ring, so an idle node's refresh does not scan all its hosts."""
        keys = self.frontier.keys
        mine = keys.ready(self.node)
        away: dict[str, str] = {}
        if self.epoch != self._swept_epoch:
            away = {h: self.ready_key(h) for h in self.frontier.hosts_in(mine)}
            away = {h: k for h, k in away.items() if k != mine}
        claims = {h: mine for h in self.frontier.hosts_in(keys.orphans)
                  if self.ready_key(h) == mine} if self.ring else {}
        moved = self.frontier.sweep(mine, away, self.epoch)
        moved += self.frontier.sweep(keys.orphans, claims, self.epoch)
        self._swept_epoch = self.epoch
        if moved:
            self.counts["frontier/hosts_moved"] += moved
            self.frontier.ledger.record_rebalance(self.epoch, len(away), len(claims))
            logger.info("Ring epoch %(e)d: moved %(away)d hosts away, claimed %(claimed)d",
                        {"e": self.epoch, "away": len(away), "claimed": len(claims)})

    def with_ring(self, operation: Callable[[int], object]) -> object:
        """Run *operation(epoch)*, refreshing the ring whenever it proves stale."""
        for _ in range(5):
            try:
                return operation(self.epoch)
            except StaleEpoch:
                self.refresh()
        raise RingUnstable("membership kept changing during 5 consecutive attempts")

    def beat(self, reclaim_dead: bool = True) -> Beat:
        """Heartbeat; detect dead members and reclaim their work; follow the epoch.

        After a Redis outage every heartbeat is stale: the caller passes
        ``reclaim_dead=False`` until the others had a timeout to beat again.
        """
        beat = self.frontier.heartbeat(self.timeout_ms)
        if not beat.alive:
            logger.warning("Node %(node)s was declared dead (heartbeats late by over "
                           "%(t)dms); its leases were requeued. Rejoining.",
                           {"node": self.node, "t": self.timeout_ms})
            self.counts["frontier/rejoined"] += 1
            self.frontier.join(self.weight)
        for dead in beat.dead if reclaim_dead else ():
            if dead == self.node:
                continue
            requeued = self.frontier.reclaim(
                dead, dead_before_ms=self.frontier.now_ms() - self.timeout_ms, remove=True,
                max_attempts=self.dead_letter_after)
            if requeued is not None:
                logger.warning("Node %(dead)s is dead: requeued %(n)d leased requests and "
                               "orphaned its hosts", {"dead": dead, "n": requeued})
                self.counts["frontier/nodes_declared_dead"] += 1
                self.counts["frontier/reclaimed"] += requeued
        if not beat.alive or (beat.dead and reclaim_dead) or beat.epoch != self.epoch \
                or beat.orphans:
            self.refresh()
        return beat

    def acknowledge_pause(self, epoch: str) -> None:
        """Tell the pause command that pause *epoch* holds on this node."""
        self.frontier.link.command("hset", self.frontier.keys.control,
                                   f"paused:{self.frontier.node}", epoch)

    def undrain(self, weight: int) -> None:
        """Own hosts again after a drain (the operator cleared it)."""
        self.weight = weight
        self.frontier.join(weight)
        self.refresh()

    def drain(self, unstarted_leases: Iterable[str]) -> int:
        """Stop owning hosts at once and hand back leases not yet started.

        The node stays a member (weight 0) so that if it dies before its
        in-flight requests finish, those leases are still reclaimed.
        """
        self.weight = 0
        self.frontier.join(0)
        requeued = self.frontier.reclaim(self.node, dead_before_ms=None, remove=False,
                                         lease_ids=unstarted_leases)
        self.refresh()
        return requeued

    def leave(self) -> int:
        """Leave the ring; requeue every lease still held. Never deletes shared state."""
        requeued = self.frontier.reclaim(self.node, dead_before_ms=None, remove=True)
        logger.info("Node %(node)s left the ring, handing back %(n)d leased requests",
                    {"node": self.node, "n": requeued})
        return requeued
