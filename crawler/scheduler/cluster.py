"""One crawl's shared state as operators and extensions see it: the cluster API.

Everything outside :mod:`crawler.scheduler` that reads or writes a crawl's Redis
state goes through :class:`Cluster` (the ops commands, the progress lines, the item
sink and export); the key layout stays private to this package.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy.utils.request import RequestFingerprinter

from crawler.scheduler import codec
from crawler.scheduler.bloom import BloomFilter
from crawler.scheduler.frontier import DUPLICATE, OVER_HOST_LIMIT, Frontier, Pending
from crawler.scheduler.keys import Keys, host_of
from crawler.scheduler.membership import Membership, RingUnstable

if TYPE_CHECKING:
    from collections.abc import Iterable

    import redis
    from scrapy import Request

_CHUNK = 1000  # commands per pipeline when asking about every host
__all__ = ["Cluster", "RingUnstable", "SeedResult", "sum_outcomes"]

_OPS_NODE = "ops-cli"  # never joins the ring; names the Frontier's own (unused) keys


@dataclass
class SeedResult:
    queued: int
    duplicate: int
    over_host_limit: int
    live_nodes: int


def _decode(mapping: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in mapping.items()}


class Cluster:
    """The state of crawl *crawl* in *client*'s Redis."""

    def __init__(self, client: redis.Redis, crawl: str) -> None:
        self.client = client
        self.keys = Keys(crawl)

    @property
    def crawl(self) -> str:
        return self.keys.crawl

    @staticmethod
    def crawls(client: redis.Redis) -> set[str]:
        """Crawl ids with state in this Redis (every crawl has an ``epoch`` or ``bloom`` key)."""
        found = set()
        for pattern in ("crawler:{*}:epoch", "crawler:{*}:bloom"):
            for key in client.scan_iter(match=pattern, count=1000):
                if match := re.fullmatch(rb"crawler:\{(.*)\}:(?:epoch|bloom)", key):
                    found.add(match.group(1).decode())
        return found

    def exists(self) -> bool:
        return bool(self.client.exists(self.keys.epoch, self.keys.bloom))

    def now_ms(self) -> int:
        sec, usec = self.client.time()
        return sec * 1000 + usec // 1000

    # -- membership and control -----------------------------------------------

    def members(self) -> list[str]:
        return sorted(m.decode() for m in self.client.zrange(self.keys.members, 0, -1))

    def live_nodes(self, node_timeout: float) -> list[str]:
        since = self.now_ms() - int(node_timeout * 1000)
        return [m.decode() for m in self.client.zrangebyscore(self.keys.members, since, "+inf")]

    def set_paused(self, paused: bool) -> None:
        if paused:
            self.client.hset(self.keys.control, "paused", "1")
        else:
            self.client.hdel(self.keys.control, "paused")

    def drain_requested(self, node: str) -> bool:
        return bool(self.client.hexists(self.keys.control, f"drain:{node}"))

    def set_drain(self, node: str, drain: bool) -> None:
        if drain:
            self.client.hset(self.keys.control, f"drain:{node}", "1")
        else:
            self.client.hdel(self.keys.control, f"drain:{node}")

    # -- work -------------------------------------------------------------------

    def seed(self, requests: Iterable[Request], *, dont_filter: bool, host_limit: int,
             vnodes: int) -> SeedResult:
        """Queue *requests* for the spider's default callback, routed as a node routes them.

        Goes through the same script as discovered links (``push.lua``): the Bloom
        filter drops URLs the crawl has already seen unless *dont_filter*.
        """
        fingerprint = RequestFingerprinter().fingerprint  # what a node's dupefilter uses
        pending = [Pending(host_of(r), None if dont_filter else fingerprint(r).hex(),
                           codec.encode(r, None, host_of(r))) for r in requests]
        bloom = BloomFilter.from_meta(_decode(self.client.hgetall(self.keys.bloom)))
        frontier = Frontier(self.client, self.keys, _OPS_NODE, delay_ms=0, max_inflight=1,
                            host_limit=host_limit, bloom_capacity=bloom.capacity,
                            bloom_error_rate=bloom.error_rate)
        # As a non-member (weight 0) it only reads: it owns no ready set, claims no orphan.
        membership = Membership(frontier, weight=0, vnodes=vnodes, timeout_ms=0)
        membership.refresh()
        codes = membership.with_ring(
            lambda epoch: frontier.flush(pending, [], epoch, membership.ready_key))
        return SeedResult(queued=sum(1 for c in codes if c not in (DUPLICATE, OVER_HOST_LIMIT)),
                          duplicate=codes.count(DUPLICATE),
                          over_host_limit=codes.count(OVER_HOST_LIMIT),
                          live_nodes=len(membership.ring.weights))

    def failures(self) -> list[dict[str, str]]:
        """Every URL that failed for good: ``url``, ``reason``, ``node``."""
        return [_decode(fields) for _, fields in self.client.xrange(self.keys.failures)]

    def key_names(self) -> list[bytes]:
        return list(self.client.scan_iter(match=self.keys.pattern, count=1000))

    def purge(self) -> int:
        """Delete every key of the crawl; the number deleted."""
        keys, deleted = self.key_names(), 0
        for start in range(0, len(keys), 500):
            deleted += self.client.unlink(*keys[start:start + 500])
        return deleted

    # -- what nodes report ------------------------------------------------------

    def publish_node_stats(self, node: str, sample: dict[str, Any]) -> None:
        self.client.hset(self.keys.node_stats, node, json.dumps(sample))

    def add_items(self, node: str, items: list[bytes | str]) -> None:
        """Append scraped items (JSON) to the crawl's item stream, in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        for item in items:
            pipe.xadd(self.keys.items, {"node": node, "item": item})
        pipe.execute()

    def read_items(self, after: str | None, count: int) -> list[tuple[str, bytes]]:
        """Up to *count* (entry id, item JSON) of the stream after entry *after*."""
        start = "-" if after is None else "(" + after
        return [(eid.decode(), fields[b"item"]) for eid, fields in
                self.client.xrange(self.keys.items, min=start, max="+", count=count)]

    def trim_items(self, through: str) -> int:
        """Delete stream entries up to and including *through* (all exported)."""
        ms, seq = (int(part) for part in through.split("-"))
        return self.client.xtrim(self.keys.items, minid=f"{ms}-{seq + 1}", approximate=False)

    @property
    def items_stream(self) -> str:
        """The stream's key, for messages."""
        return self.keys.items

    # -- status -----------------------------------------------------------------

    def status(self, *, node_timeout: float, top: int = 10) -> dict[str, Any]:
        """Everything ``python -m crawler status`` shows, as plain data (its ``--json``)."""
        keys = self.keys
        pipe = self.client.pipeline(transaction=False)
        pipe.time()
        pipe.zrange(keys.members, 0, -1, withscores=True)
        for key in (keys.weights, keys.totals, keys.control, keys.bloom, keys.node_stats,
                    keys.outcomes):
            pipe.hgetall(key)
        pipe.get(keys.epoch)
        pipe.zcard(keys.orphans)
        pipe.xlen(keys.items)
        pipe.xlen(keys.failures)
        pipe.xrevrange(keys.events, count=5)
        (sec, usec), members, weights, totals, control, bloom, node_stats, outcomes, epoch, \
            orphans, items, failures, events = pipe.execute()
        now_ms = sec * 1000 + usec // 1000
        control = _decode(control)
        nodes = self._nodes(members, _decode(weights), control, _decode(node_stats), now_ms,
                            node_timeout)
        totals = _decode(totals)
        filter_ = BloomFilter.from_meta(_decode(bloom))
        return {
            "crawl": keys.crawl,
            "ring_epoch": int(epoch or 0),
            "paused": control.get("paused") == "1",
            "drain_requested": sorted(k[6:] for k, v in control.items()
                                      if k.startswith("drain:") and v == "1"),
            "nodes": nodes,
            "totals": {
                "queued": int(totals.get("queued", 0)),
                "leased": int(totals.get("leased", 0)),
                "hosts_with_work": sum(n["hosts_owned"] for n in nodes) + orphans,
                "orphan_hosts": orphans,
                "pages_per_s": round(sum(n["pages_per_s"] or 0 for n in nodes
                                         if n["state"] != "dead"), 2),
            },
            "top_hosts": self._top_hosts([n["node"] for n in nodes], top),
            "bloom": filter_.summary() if filter_ else {"layers": []},
            "items_stream": items,
            "rebalances": [{"id": eid.decode(), **_decode(f)} for eid, f in events],
            "outcomes": sum_outcomes(_decode(outcomes)),
            "failures": failures,
        }

    def _nodes(self, members: list, weights: dict[str, str], control: dict[str, str],
               node_stats: dict[str, str], now_ms: int, node_timeout: float) -> list[dict]:
        names = [m.decode() for m, _ in members]
        pipe = self.client.pipeline(transaction=False)
        for name in names:
            pipe.zcard(self.keys.ready(name))
            pipe.hlen(self.keys.leases(name))
        counts = pipe.execute()
        nodes = []
        for i, (name, (_, beat)) in enumerate(zip(names, members)):
            age = max(0.0, (now_ms - beat) / 1000)
            weight = int(weights.get(name, 0))
            sample = json.loads(node_stats[name]) if name in node_stats else {}
            nodes.append({
                "node": name,
                "state": _state(age, weight, control.get(f"drain:{name}") == "1", node_timeout),
                "weight": weight,
                "heartbeat_age_s": round(age, 1),
                "hosts_owned": counts[2 * i],
                "leased": counts[2 * i + 1],
                "pages": sample.get("pages"),
                "items": sample.get("items"),
                "pages_per_s": sample.get("pages_per_s"),
                "items_per_s": sample.get("items_per_s"),
            })
        return nodes

    def _top_hosts(self, nodes: list[str], top: int) -> list[dict[str, Any]]:
        hosts: set[str] = set()
        for zset in [self.keys.orphans, *(self.keys.ready(n) for n in nodes)]:
            hosts.update(h.decode() for h in self.client.zrange(zset, 0, -1))
        ordered = sorted(hosts)
        sizes: list[int] = []
        for start in range(0, len(ordered), _CHUNK):
            pipe = self.client.pipeline(transaction=False)
            for host in ordered[start:start + _CHUNK]:
                pipe.llen(self.keys.queue(host))
            sizes += pipe.execute()
        biggest = sorted(zip(ordered, sizes), key=lambda hs: (-hs[1], hs[0]))[:top]
        return [{"host": h, "queued": s} for h, s in biggest]


def sum_outcomes(per_run: dict[str, str]) -> dict[str, int]:
    """Cluster totals of every node run's ``<node>@<run>/<outcome>`` counters."""
    totals: Counter[str] = Counter()
    for field, count in per_run.items():
        totals[field.split("/", 1)[1]] += int(count)
    return dict(sorted(totals.items()))


def _state(age: float, weight: int, drain_flag: bool, node_timeout: float) -> str:
    if age > node_timeout:
        return "dead"
    if drain_flag or weight == 0:
        return "draining"  # asked to (drain), or leaving (SIGTERM)
    return "alive"
