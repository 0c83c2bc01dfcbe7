"""One crawl's shared state as operators and extensions see it: the cluster API.

Everything outside :mod:`crawler.frontier` and the node that reads or writes a crawl's Redis
state goes through :class:`Cluster` (the ops commands, the progress lines, the item
sink and export); the key layout stays private to this package.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy.utils.misc import load_object
from scrapy.utils.request import RequestFingerprinter

from crawler.frontier import codec
from crawler.frontier.bloom import BloomFilter
from crawler.frontier.frontier import DUPLICATE, OVER_HOST_LIMIT, Frontier, Pending
from crawler.frontier.keys import Keys, host_of
from crawler.frontier.membership import Membership, RingUnstable
from crawler.frontier.status import read_status, sum_outcomes
from crawler.redis import client_from_crawler, crawl_id

if TYPE_CHECKING:
    from collections.abc import Iterable

    import redis
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

__all__ = ["Cluster", "RingUnstable", "SeedResult", "StringHash", "UsesFrontier", "sum_outcomes",
           "uses_frontier"]

_OPS_NODE = "ops-cli"  # never joins the ring; names the Frontier's own (unused) keys


class UsesFrontier:
    """Marks a Scrapy scheduler that keeps its crawl in this store
    (:class:`crawler.scheduler.Scheduler`): how anything asks "is the frontier there?"."""

    #: the node's runtime (:class:`crawler.node.api.NodeAPI`) once it runs, else None
    node: Any = None


def uses_frontier(settings: BaseSettings) -> bool:
    """Whether a crawl with *settings* runs on the frontier (its ``SCHEDULER`` is one)."""
    return issubclass(load_object(settings["SCHEDULER"]), UsesFrontier)


_OF: WeakKeyDictionary[Crawler, Cluster] = WeakKeyDictionary()


@dataclass
class SeedResult:
    queued: int
    duplicate: int
    over_host_limit: int
    live_nodes: int


class ItemStream:
    """Scraped items from every node, in one Redis stream per crawl."""

    def __init__(self, client: redis.Redis, key: str) -> None:
        self.client = client
        self.key = key

    def add(self, node: str, items: list[bytes | str]) -> None:
        """Append items (JSON), in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        for item in items:
            pipe.xadd(self.key, {"node": node, "item": item})
        pipe.execute()

    def read(self, after: str | None, count: int) -> list[tuple[str, bytes]]:
        """Up to *count* (entry id, item JSON) of the stream after entry *after*."""
        start = "-" if after is None else "(" + after
        return [(eid.decode(), fields[b"item"]) for eid, fields in
                self.client.xrange(self.key, min=start, max="+", count=count)]

    def trim(self, through: str) -> int:
        """Delete entries up to and including *through* (all exported)."""
        ms, seq = (int(part) for part in through.split("-"))
        return self.client.xtrim(self.key, minid=f"{ms}-{seq + 1}", approximate=False)


class StringHash:
    """Strings in one Redis hash that every node reads alike: a learned site template per
    host (a host that moves to another node keeps it), an attachment's outcome per
    ``site|engine|id`` (a later pass asks nothing of files stored, denied or too large)."""

    def __init__(self, client: redis.Redis, key: str) -> None:
        self.client = client
        self.key = key

    def get(self, name: str) -> str | None:
        value = self.client.hget(self.key, name)
        return None if value is None else value.decode()

    def put(self, name: str, value: str) -> None:
        self.client.hset(self.key, name, value)


def _decode(mapping: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in mapping.items()}


class Cluster:
    """The state of crawl *crawl* in *client*'s Redis."""

    def __init__(self, client: redis.Redis, crawl: str) -> None:
        self.client = client
        self.keys = Keys(crawl)
        self.attachments = StringHash(client, self.keys.attachments)

    @classmethod
    def of(cls, crawler: Crawler) -> Cluster | None:
        """The one door to a running crawl's shared state (templates, items, login
        sessions, WARC digests, revisit state); None when it does not run on the frontier.
        Connects (and maybe starts the embedded Redis) on first use."""
        if not uses_frontier(crawler.settings):
            return None
        cluster = _OF.get(crawler)
        if cluster is None:
            cluster = _OF[crawler] = cls(client_from_crawler(crawler), crawl_id(crawler))
        return cluster

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

    def set_paused(self, paused: bool) -> str | None:
        """Pause the crawl, or resume it; a pause's epoch, which each node acknowledges
        (``paused:<node>``) once none of its requests can start."""
        if not paused:
            self.client.hdel(self.keys.control, "paused")
            return None
        epoch = str(self.client.hincrby(self.keys.control, "pause_epoch", 1))
        self.client.hset(self.keys.control, "paused", epoch)
        return epoch

    def control(self) -> dict[str, str]:
        """The operator's switches and the nodes' answers (see :mod:`.keys`)."""
        return _decode(self.client.hgetall(self.keys.control))

    def set_drain(self, node: str, drain: bool) -> None:
        if drain:
            self.client.hset(self.keys.control, f"drain:{node}", "1")
        else:
            self.client.hdel(self.keys.control, f"drain:{node}")

    # -- work -------------------------------------------------------------------

    def seed(self, requests: Iterable[Request], *, dont_filter: bool, host_limit: int,
             vnodes: int) -> SeedResult:
        """Queue *requests* for the spider's default callback, routed as a node routes them.

        Goes through the same script as discovered links (``refill.lua``): the Bloom
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

    # -- the crawl's history: what a new run says when it starts ----------------

    def progress_at_start(self) -> dict[str, Any]:
        """What a run finds in the crawl's state: ``queued``, ``leased`` (requests), ``seen``
        (URLs in the Bloom filter), ``finished_at`` (ms of the last finish, or None)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hgetall(self.keys.totals)
        pipe.hgetall(self.keys.bloom)
        pipe.hget(self.keys.control, "finished_at")
        totals, bloom, finished = pipe.execute()
        totals = _decode(totals)
        filter_ = BloomFilter.from_meta(_decode(bloom))
        return {"queued": int(totals.get("queued", 0)), "leased": int(totals.get("leased", 0)),
                "seen": filter_.summary()["urls"] if filter_ else 0,
                "finished_at": int(finished) if finished else None}

    # -- what nodes report ------------------------------------------------------

    def publish_node_stats(self, node: str, sample: dict[str, Any]) -> None:
        self.client.hset(self.keys.node_stats, node, json.dumps(sample))

    @property
    def items(self) -> ItemStream:
        return ItemStream(self.client, self.keys.items)

    @property
    def templates(self) -> StringHash:
        return StringHash(self.client, self.keys.templates)

    # -- status -----------------------------------------------------------------

    def status(self, *, node_timeout: float, top: int = 10) -> dict[str, Any]:
        """Everything ``python -m crawler status`` shows, as plain data (its ``--json``)."""
        return read_status(self.client, self.keys, node_timeout=node_timeout, top=top)
