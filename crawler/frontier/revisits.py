"""The revisit state in Redis: listings kept for revisits, item digests, the pass's start.

The node's :class:`~crawler.node.revisit.Revisits` buffers and decides; this is its store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crawler.frontier.scripts import SPECS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from crawler.frontier.keys import Keys
    from crawler.frontier.link import RedisLink


class RevisitStore:
    """Reads and writes of one crawl's revisit keys, each one round trip."""

    def __init__(self, link: RedisLink, keys: Keys) -> None:
        self.link = link
        self.keys = keys

    def pass_begun(self) -> int | None:
        """Start (ms) of the current run-again pass; None before the first one."""
        begun = self.link.command("get", self.keys.revisit_pass)
        return int(begun) if begun else None

    def begin_pass(self, at_ms: int) -> None:
        self.link.pipeline(lambda pipe: (pipe.set(self.keys.revisit_pass, at_ms),
                                         pipe.incr(self.keys.revisit_passes)))

    def pass_number(self) -> int:
        """How many run-again passes began (0: the crawl's first pass)."""
        return int(self.link.command("get", self.keys.revisit_passes) or 0)

    def deep_hosts(self) -> list[str]:
        """The hosts with threads or articles kept for deep revisits."""
        return [h.decode() for h in self.link.command("hkeys", self.keys.revisit_deep)]

    def keep_deep(self, phases: dict[str, dict[str, float]], mark: str) -> None:
        """Keep threads for deep revisits (host -> key -> phase); a host new to them is
        marked *mark* (``<pass> <ms>``: its cycles start there)."""
        def build(pipe: Any) -> None:
            for host, entries in phases.items():
                pipe.zadd(self.keys.deep_revisits(host), entries)
                pipe.hsetnx(self.keys.revisit_deep, host, mark)

        self.link.pipeline(build)

    def key(self, host: str, bucket: bytes | None) -> str:
        """The hash of *host*'s revisit state, or of its item *bucket* if given."""
        return self.keys.revisit_state(host) if bucket is None \
            else self.keys.revisit_items(host, bucket.hex())

    def fields(self, key: str, names: list[str | bytes]) -> dict[str | bytes, bytes | None]:
        return dict(zip(names, self.link.command("hmget", key, names)))

    def bucket(self, key: str) -> dict:
        """A whole item bucket: item id -> digest."""
        return self.link.command("hgetall", key)

    def due(self, horizon: int, count: int) -> tuple[list[str], int | None]:
        """Up to *count* hosts with revisits due by *horizon* (ms), and the earliest due
        time of all (None: no revisit kept)."""
        due, first = self.link.pipeline(lambda pipe: (
            pipe.zrangebyscore(self.keys.revisit_due, "-inf", horizon, start=0, num=count),
            pipe.zrange(self.keys.revisit_due, 0, 0, withscores=True)))
        return [h.decode() for h in due], int(first[0][1]) if first else None

    def write(self, fields: dict[str, dict], due: dict[str, dict[str, float]],
              dropped: dict[str, set[str]]) -> None:
        """Store buffered state fields, due times (host -> fingerprint -> ms) and listings
        no more (host -> fingerprints), in one round trip."""
        def build(pipe: Any) -> None:
            for key, values in fields.items():
                pipe.hset(key, mapping=values)
            for host, entries in due.items():
                if entries:
                    pipe.zadd(self.keys.revisits(host), entries)
                    # LT: an earlier due time wins; a later one is corrected by revisit.lua
                    pipe.zadd(self.keys.revisit_due, {host: min(entries.values())}, lt=True)
            for host, fingerprints in dropped.items():
                if fingerprints:  # one dropped then scheduled again leaves an empty set
                    pipe.hdel(self.keys.revisit_state(host), *("p" + f for f in fingerprints))

        self.link.pipeline(build)

    def promote_deep(self, hosts: Sequence[str], ready: str, epoch: int, now: int, *,
                     pass_number: int, passes: int, clock: int, span_ms: int) -> int:
        """Move *hosts*' threads due for a deep revisit into their queues (``deep.lua``;
        *ready*: the caller's ready set); how many moved."""
        keys, args = SPECS["deep"].bind(
            dict(epoch=self.keys.epoch, totals=self.keys.totals, marks=self.keys.revisit_deep,
                 ready=ready),
            {"epoch": epoch, "now": now, "pass": pass_number, "passes": passes,
             "clock": clock, "span": span_ms})
        for host in hosts:
            keys += [self.keys.deep_revisits(host), self.keys.revisit_state(host),
                     self.keys.queue(host), self.keys.host(host)]
        _, promoted = self.link.call("deep", keys, [*args, *hosts])
        return promoted
