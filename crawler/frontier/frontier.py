"""A typed facade over the frontier's Redis state: one method per Lua operation.

Every write that depends on ring ownership carries the epoch the caller's ring was
built at; a script refuses it (:class:`~crawler.frontier.scripts.StaleEpoch`) if
membership changed since, so no request is ever routed with a stale ring. Every
command goes out through :class:`~crawler.frontier.link.RedisLink`, which counts
the round trips.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from redis.exceptions import NoScriptError

from crawler.frontier import scripts
from crawler.frontier.bloom import BloomFilter, create_or_read
from crawler.frontier.errors import FrontierLost, RedisTooOld
from crawler.frontier.ledger import Ledger
from crawler.frontier.link import RedisLink
from crawler.frontier.messages import (
    DUPLICATE,
    HANDED_BACK,
    OVER_HOST_LIMIT,
    QUEUED,
    SWEEP_CHUNK,
    Ack,
    Beat,
    LeaseAsk,
    Leased,
    Pending,
    Sending,
)
from crawler.frontier.revisits import RevisitStore
from crawler.frontier.scripts import SPECS, NodeAlive, StaleBloom, StaleEpoch

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from redis import Redis
    from redis.client import Pipeline

    from crawler.frontier.keys import Keys

logger = logging.getLogger(__name__)

__all__ = ["DUPLICATE", "HANDED_BACK", "OVER_HOST_LIMIT", "QUEUED", "Ack", "Beat", "Frontier",
           "FrontierLost", "LeaseAsk", "Leased", "Pending", "RedisTooOld", "StaleEpoch"]



class Frontier:
    """The cluster's shared crawl state in Redis, seen from one node.

    Reads no settings itself: :class:`~crawler.node.node.Node` passes them in.
    """

    def __init__(self, client: Redis, keys: Keys, node: str, *, delay_ms: int,
                 max_inflight: int, host_limit: int, bloom_capacity: int,
                 bloom_error_rate: float, backoff_base_ms: int = 2000,
                 backoff_max_ms: int = 300_000, host_batch: int = 1) -> None:
        self.link = RedisLink(client)
        self.client = client
        #: Redis' clock, the one all nodes share (:meth:`RedisLink.now_ms`)
        self.now_ms = self.link.now_ms
        self.keys = keys
        self.node = node
        self.delay_ms = delay_ms
        self.max_inflight = max_inflight
        self.host_batch = host_batch  # requests of a due host one lease takes at most
        self.host_limit = host_limit
        self.backoff_base_ms = backoff_base_ms
        self.backoff_max_ms = backoff_max_ms
        self.park_ms = 60_000
        if host_batch > 1:
            _require_lpop_count(self.link)
        self.bloom = self._init_bloom(bloom_capacity, bloom_error_rate)
        self._bloom_sizing = (bloom_capacity, bloom_error_rate)
        self.ledger = Ledger(self.link, keys, node)
        self.revisits = RevisitStore(self.link, keys)

    def round_trips(self) -> int:
        """Round trips to Redis so far (every command goes through the link)."""
        return self.link.round_trips

    def recreate(self) -> None:
        """The crawl's keys are gone (Redis came back empty): start a new Bloom filter."""
        self.bloom = self._init_bloom(*self._bloom_sizing)

    # -- dedup ----------------------------------------------------------------

    def _init_bloom(self, capacity: int, error_rate: float) -> BloomFilter:
        bloom = create_or_read(self.link.command, self.keys.bloom, capacity, error_rate)
        if (bloom.capacity, bloom.error_rate) != (capacity, error_rate):
            logger.warning(
                "This crawl's Bloom filter was created with capacity %(c)d and error rate "
                "%(p)g; keeping those (CRAWLER_BLOOM_* apply to new crawls only)",
                {"c": bloom.capacity, "p": bloom.error_rate})
        return bloom

    # -- data path --------------------------------------------------------------

    def flush(self, pushes: Sequence[Pending], acks: Sequence[Ack], epoch: int,
              ready_key, batch: str = "") -> list[int]:
        """Push new requests, then settle leases, in one round trip.

        Returns one code per push (:data:`QUEUED`, ...); see :meth:`send`.
        """
        return self.send(pushes, acks, epoch, ready_key, batch)[0]

    def send(self, pushes: Sequence[Pending], acks: Sequence[Ack], epoch: int, ready_key,
             batch: str = "", lease: LeaseAsk | None = None
             ) -> tuple[list[int], tuple[list[Leased], int | None]]:
        """Push new requests, settle leases, then lease (if *lease*), in one round trip.

        Pushes go first so a settled page's discovered links are stored before
        its lease disappears, and the acks before the lease, so the hosts they
        free can be leased again at once. Returns one code per push (:data:`QUEUED`,
        ...), the leased requests (none if not asked: see :class:`LeaseAsk`) and the
        time the next owned host is due (ms, None if none is queued).
        Retrying a *batch* whose reply was lost returns the first result.
        """
        return self.finish_send(self.start_send(pushes, acks, epoch, ready_key, batch, lease))

    def start_send(self, pushes: Sequence[Pending], acks: Sequence[Ack], epoch: int,
                   ready_key, batch: str = "", lease: LeaseAsk | None = None) -> Sending | None:
        """:meth:`send`, up to the write (None if there is nothing to send):
        :meth:`finish_send` reads its reply."""
        if not (pushes or acks or lease):
            return None
        groups = _group(pushes)
        batch = batch or (f"{self.node}:{time.time_ns()}" if pushes else "")
        keys, args = self._refill_arguments(groups, acks, lease, epoch, ready_key, batch)
        command = ("EVALSHA", self.link.scripts["refill"], len(keys), *keys, *args)
        return Sending(self.link.start([command]), (pushes, acks, epoch, ready_key, batch, lease),
                       groups)

    def finish_send(self, sending: Sending | None
                    ) -> tuple[list[int], tuple[list[Leased], int | None]]:
        """The result of a :meth:`start_send`, once its reply came (or waiting for it)."""
        if sending is None:
            return [], ([], None)
        (reply,) = sending.sent.replies()
        pushes = sending.request[0]
        if isinstance(reply, NoScriptError):
            self.link.load_scripts()  # Redis restarted and lost its script cache: it did not run
            return self.send(*sending.request)
        if isinstance(reply, Exception):
            raise reply
        try:
            reply = scripts.check("refill", reply)
        except StaleBloom:  # another node started a new Bloom layer: all go again
            layers = self.link.command("hget", self.keys.bloom, "n")
            if layers is None:
                raise FrontierLost("the Bloom filter's header is gone") from None
            self.bloom.grow_to(int(layers))
            return self.send(*sending.request)
        status, next_due, count = reply[0], reply[1], reply[2]
        leased = _leased(reply[3 + count:], next_due)
        if not pushes:
            return [], leased
        # codes come back in group order; map them to the callers' order
        ordered = [0] * len(pushes)
        for index, code in zip((i for _, items in sending.groups for i, _ in items),
                               reply[3:3 + count]):
            ordered[index] = code
        # (a marked push counts even if it was seen: an estimate, off by its repeats)
        self.bloom.counts[-1] += sum(1 for p, c in zip(pushes, ordered)
                                     if c != DUPLICATE and p.fingerprint)
        if status == 1:  # the last layer is full: the next push starts a new one
            self.bloom.grow_to(len(self.bloom.layers) + 1)
        return ordered, leased

    def _refill_arguments(self, groups, acks: Sequence[Ack], ask: LeaseAsk | None, epoch: int,
                          ready_key, batch: str) -> tuple[list, list]:
        layers = self.bloom.layers if groups else []
        last = self.bloom.layers[-1]
        keys, args = SPECS["refill"].bind(
            dict(epoch=self.keys.epoch, totals=self.keys.totals, bloom_meta=self.keys.bloom,
                 push_log=self.keys.push_log(self.node), ready=self.keys.ready(self.node),
                 leases=self.keys.leases(self.node)),
            dict(epoch=epoch, now=self.now_ms(), batch=batch, groups=len(groups),
                 acks=len(acks), want=ask.want if ask else 0, filters=len(layers),
                 capacity=last.capacity, size_bits=last.size_bits, host_limit=self.host_limit,
                 max_in_flight=self.max_inflight, delay=self.delay_ms, park=self.park_ms,
                 backoff_base=self.backoff_base_ms, backoff_max=self.backoff_max_ms,
                 steal_after=ask.steal_after_ms if ask else 0, prefix=self.keys.prefix,
                 host_batch=self.host_batch))
        keys += [self.keys.bloom_bits(layer.index) for layer in layers]
        args += [layer.block_bytes for layer in layers]
        for host, items in groups:
            keys += [self.keys.queue(host), self.keys.host(host), ready_key(host)]
            args += [host, len(items)]
            for _, pending in items:
                if pending.retry:
                    args += ["2", pending.payload]
                elif pending.mark:
                    args += ["3", pending.payload, self.bloom.packed_offsets(pending.fingerprint)]
                elif pending.fingerprint is None:
                    args += ["0", pending.payload]
                else:
                    args += ["1", pending.payload, self.bloom.packed_offsets(pending.fingerprint)]
        for ack in acks:
            keys += [self.keys.host(ack.host), self.keys.queue(ack.host), ready_key(ack.host)]
            args += [ack.lease_id, ack.host, ack.done_ms, ack.backoff_ms]
        if ask:
            keys += [self.keys.ready(node) for node in ask.steal_from]
        return keys, args

    def set_crawl_delays(self, delays_ms: dict[str, int]) -> None:
        """Record hosts' robots.txt Crawl-delay for whichever node owns them."""
        self.link.pipeline(lambda pipe: [pipe.hset(self.keys.host(host), "d", delay)
                                     for host, delay in delays_ms.items()])

    def promote_revisits(self, hosts: Sequence[str], epoch: int, now: int, horizon: int,
                         again: int) -> int:
        """Move *hosts*' listings due by *horizon* into their queues (``revisit.lua``);
        each is due again at *again* unless its response reschedules it. How many moved."""
        keys, args = SPECS["revisit"].bind(
            dict(epoch=self.keys.epoch, totals=self.keys.totals, due=self.keys.revisit_due,
                 ready=self.keys.ready(self.node)),
            dict(epoch=epoch, now=now, horizon=horizon, again=again))
        for host in hosts:
            keys += [self.keys.revisits(host), self.keys.revisit_state(host),
                     self.keys.queue(host), self.keys.host(host)]
        _, promoted = self.link.call("revisit", keys, [*args, *hosts])
        return promoted

    # -- membership -------------------------------------------------------------

    def join(self, weight: int) -> int:
        self.link.sync_clock()
        keys, args = SPECS["join"].bind(
            dict(members=self.keys.members, weights=self.keys.weights, epoch=self.keys.epoch),
            dict(node=self.node, now=self.now_ms(), weight=weight))
        return self.link.call("join", keys, args)

    def ring_snapshot(self) -> tuple[int, dict[str, int]]:
        """The epoch and the weights of all members, read atomically."""
        def build(pipe: Pipeline) -> None:
            pipe.get(self.keys.epoch)
            pipe.hgetall(self.keys.weights)

        epoch, weights = self.link.pipeline(build, True)
        if epoch is None:
            raise FrontierLost("the ring's epoch is gone")
        return int(epoch), {k.decode(): int(v) for k, v in weights.items()}

    def heartbeat(self, timeout_ms: int) -> Beat:
        now = self.now_ms()

        def build(pipe: Pipeline) -> None:
            pipe.zadd(self.keys.members, {self.node: now}, xx=True, ch=True)
            pipe.get(self.keys.epoch)
            pipe.zrangebyscore(self.keys.members, "-inf", now - timeout_ms)
            pipe.hmget(self.keys.totals, "queued", "leased")
            pipe.zcard(self.keys.orphans)
            pipe.hgetall(self.keys.control)
            pipe.time()

        sent = time.time()
        changed, epoch, dead, (queued, leased), orphans, control, (sec, usec) = \
            self.link.pipeline(build)
        self.link.set_clock(sec, usec, sent)
        return Beat(bool(changed), int(epoch or 0), [d.decode() for d in dead],
                    int(queued or 0), int(leased or 0), orphans,
                    {k.decode(): v.decode() for k, v in control.items()})

    def reclaim(self, node: str, *, dead_before_ms: int | None, remove: bool,
                lease_ids: Iterable[str] | None = None, max_attempts: int = 0) -> int | None:
        """Requeue *node*'s leases (all, or just *lease_ids*) and orphan its hosts.

        With *dead_before_ms*, only if the node's heartbeat is older than that.
        With *max_attempts*, each lease counts as a failed attempt (the node died
        with it) and one that reaches it is dead-lettered instead.
        Returns the number of requests requeued, or None if the node is alive.
        """
        if lease_ids is None:
            entries = self.link.command("hgetall", self.keys.leases(node))
        else:
            ids = list(lease_ids)
            entries = dict(zip(ids, self.link.command("hmget", self.keys.leases(node), ids))) \
                if ids else {}
        keys, args = SPECS["reclaim"].bind(
            dict(members=self.keys.members, weights=self.keys.weights, epoch=self.keys.epoch,
                 totals=self.keys.totals, ready=self.keys.ready(node),
                 leases=self.keys.leases(node), orphans=self.keys.orphans,
                 dead_letters=self.keys.dead_letters),
            dict(node=node, now=self.now_ms(),
                 older_than="inf" if dead_before_ms is None else dead_before_ms,
                 remove="1" if remove else "0", max_attempts=max_attempts))
        for lease_id, entry in entries.items():
            if entry is None:
                continue
            host = entry.split(b"\n", 1)[0].decode()
            keys += [self.keys.queue(host), self.keys.host(host)]
            args += [lease_id, host]
        try:
            requeued = self.link.call("reclaim", keys, args)
        except NodeAlive:
            return None
        if remove and node != self.node:  # a dead node's id: its own keys go with it
            self.link.pipeline(lambda pipe: [pipe.delete(self.keys.push_log(node)),
                                         pipe.hdel(self.keys.node_stats, node)])
        return requeued

    def work_left(self) -> int:
        """Hosts with queued work plus leases out, from the structures themselves, not
        the ``totals`` counters: every host with work is in a ready set or the
        orphans, every lease in a member's lease hash. Two round trips of O(1)
        commands per member, however many hosts: a host whose queue emptied stays
        counted until its owner's next lease takes it out of its ready set."""
        nodes = [n.decode() for n in self.link.command("zrange", self.keys.members, 0, -1)]
        counts = self.link.pipeline(lambda p: [
            *(p.zcard(self.keys.ready(n)) for n in nodes), p.zcard(self.keys.orphans),
            *(p.hlen(self.keys.leases(n)) for n in nodes)])
        return sum(counts)

    def control(self) -> dict[str, str]:
        """The operator's switches (``paused``, ``drain:<node>``)."""
        switches = self.link.command("hgetall", self.keys.control)
        return {k.decode(): v.decode() for k, v in switches.items()}

    def lease_ids(self) -> list[str]:
        return [i.decode() for i in self.link.command("hkeys", self.keys.leases(self.node))]

    def hosts_in(self, zset_key: str) -> list[str]:
        return [h.decode() for h in self.link.command("zrange", zset_key, 0, -1)]

    def sweep(self, source_key: str, moves: dict[str, str], epoch: int) -> int:
        """Move *moves* (host -> destination ready key) out of *source_key*.

        In calls of :data:`SWEEP_CHUNK` hosts: one call over a million hosts would
        hold Redis for seconds, past its clients' socket timeouts."""
        keys, args = SPECS["sweep"].bind(dict(epoch=self.keys.epoch, source=source_key),
                                         dict(epoch=epoch))
        hosts, moved = list(moves), 0
        for start in range(0, len(hosts), SWEEP_CHUNK):
            chunk = hosts[start:start + SWEEP_CHUNK]
            moved += self.link.call("sweep", [*keys, *(moves[h] for h in chunk)], [*args, *chunk])
        return moved


def _require_lpop_count(link: RedisLink) -> None:
    version = link.command("info", "server").get("redis_version", "0")
    if tuple(int(part) for part in version.split(".")[:2]) < (6, 2):
        raise RedisTooOld(f"Redis {version} cannot lease host batches (LPOP with a count "
                          f"needs Redis 6.2): upgrade it, or set CRAWLER_HOST_BATCH=1")


def _group(pushes: Sequence[Pending]) -> list[tuple[str, list[tuple[int, Pending]]]]:
    groups: dict[str, list[tuple[int, Pending]]] = {}
    for index, pending in enumerate(pushes):
        groups.setdefault(pending.host, []).append((index, pending))
    return list(groups.items())


def _leased(reply: list, next_due: int) -> tuple[list[Leased], int | None]:
    leased = [Leased(reply[i].decode(), reply[i + 1].decode(), reply[i + 2], reply[i + 3] == 1)
              for i in range(0, len(reply), 4)]
    return leased, (None if next_due == -1 else int(next_due))
