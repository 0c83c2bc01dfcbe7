"""Operator actions on a crawl: seed, pause/resume, drain/undrain, purge.

The switches live in the crawl's ``control`` hash; every node reads it at each
heartbeat, so an action takes effect within :setting:`CRAWLER_HEARTBEAT_INTERVAL`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy import Request
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.request import RequestFingerprinter

from crawler.ops.connect import CliError
from crawler.scheduler import codec
from crawler.scheduler.frontier import DUPLICATE, OVER_HOST_LIMIT, Frontier, Pending
from crawler.scheduler.keys import host_of
from crawler.scheduler.membership import Membership

if TYPE_CHECKING:
    from crawler.ops.connect import Target

logger = logging.getLogger(__name__)

OPS_NODE = "ops-cli"  # never joins the ring; only names the Frontier's own (unused) keys


@dataclass
class SeedResult:
    queued: int
    duplicate: int
    over_host_limit: int
    live_nodes: int


class _NoStats:
    def inc_value(self, key: str, count: int = 1, start: int = 0) -> None:
        pass


def seed(target: Target, urls: list[str], *, dont_filter: bool = False) -> SeedResult:
    """Queue *urls* for the spider's default callback, routed as a node routes them.

    Goes through the same script as discovered links (``push.lua``): the Bloom
    filter drops URLs the crawl has already seen unless *dont_filter*.
    """
    requests = [_request(url, dont_filter) for url in urls]
    fingerprinter = RequestFingerprinter()
    pending = []
    for r in requests:
        host = host_of(r)
        pending.append(Pending(host, None if dont_filter else fingerprinter.fingerprint(r).hex(),
                               codec.encode(r, None, host)))
    frontier, membership = _router(target)
    codes = membership.with_ring(
        lambda epoch: frontier.flush(pending, [], epoch, membership.ready_key))
    return SeedResult(queued=sum(1 for c in codes if c not in (DUPLICATE, OVER_HOST_LIMIT)),
                      duplicate=codes.count(DUPLICATE),
                      over_host_limit=codes.count(OVER_HOST_LIMIT),
                      live_nodes=len(membership.ring.weights))


def _request(url: str, dont_filter: bool) -> Request:
    try:
        request = Request(url, dont_filter=dont_filter)
    except ValueError as exc:
        raise CliError(f"not a URL to crawl: {url!r} ({exc})") from None
    if urlparse_cached(request).scheme not in ("http", "https"):
        raise CliError(f"not an http(s) URL: {url!r}")
    return request


def _router(target: Target) -> tuple[Frontier, Membership]:
    """A Frontier and a ring view that route like any node, without joining the ring."""
    meta = {k.decode(): v.decode() for k, v in target.client.hgetall(target.keys.bloom).items()}
    s = target.settings
    frontier = Frontier(
        target.client, target.keys, OPS_NODE, delay_ms=0, max_inflight=1,
        host_limit=s.getint("CRAWLER_HOST_PAGE_LIMIT"),
        bloom_capacity=int(meta.get("capacity", s.getint("CRAWLER_BLOOM_CAPACITY"))),
        bloom_error_rate=float(meta.get("error_rate", s.getfloat("CRAWLER_BLOOM_ERROR_RATE"))))
    membership = Membership(frontier, weight=0, vnodes=s.getint("CRAWLER_RING_VNODES"),
                            timeout_ms=int(s.getfloat("CRAWLER_NODE_TIMEOUT") * 1000),
                            stats=_NoStats())
    # As a non-member this only reads: it owns no ready set and claims no orphan.
    membership.refresh()
    return frontier, membership


def set_paused(target: Target, paused: bool) -> None:
    if paused:
        target.client.hset(target.keys.control, "paused", "1")
    else:
        target.client.hdel(target.keys.control, "paused")


def set_drain(target: Target, node: str, drain: bool, *, force: bool = False) -> None:
    field = f"drain:{node}"
    if not drain:
        if not target.client.hexists(target.keys.control, field) and not force:
            raise CliError(f"node {node!r} is not draining by request; nothing to undo")
        target.client.hdel(target.keys.control, field)
        return
    members = sorted(m.decode() for m in target.client.zrange(target.keys.members, 0, -1))
    if node not in members and not force:
        raise CliError(f"unknown node {node!r} in crawl {target.crawl!r} "
                       f"(members: {', '.join(members) or 'none'}); --force to set it anyway")
    target.client.hset(target.keys.control, field, "1")


def crawl_keys(target: Target) -> list[bytes]:
    return list(target.client.scan_iter(match=target.keys.pattern, count=1000))


def live_nodes(target: Target) -> list[str]:
    timeout_ms = int(target.settings.getfloat("CRAWLER_NODE_TIMEOUT") * 1000)
    sec, usec = target.client.time()
    now_ms = sec * 1000 + usec // 1000
    return [m.decode() for m in target.client.zrangebyscore(
        target.keys.members, now_ms - timeout_ms, "+inf")]


def purge(target: Target, *, force: bool = False) -> int:
    """Delete every key of the crawl. Refused while nodes are alive, unless *force*."""
    alive = live_nodes(target)
    if alive and not force:
        raise CliError(f"crawl {target.crawl!r} has live nodes ({', '.join(alive)}): stop "
                       "them first, or add --force")
    deleted = 0
    keys = crawl_keys(target)
    for start in range(0, len(keys), 500):
        deleted += target.client.unlink(*keys[start:start + 500])
    logger.info("Purged crawl %(crawl)s: %(n)d keys", {"crawl": target.crawl, "n": deleted})
    return deleted
