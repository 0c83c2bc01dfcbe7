"""One test (or a few) per Lua script, against a real Redis: set raw state, call
the script through its Frontier wrapper, assert raw state afterwards."""

from __future__ import annotations

import pytest

from crawler.frontier.frontier import (
    DUPLICATE,
    HANDED_BACK,
    OVER_HOST_LIMIT,
    QUEUED,
    Ack,
    LeaseAsk,
    Pending,
    RedisTooOld,
    StaleEpoch,
    _group,
)
from tests.helpers.frontier import lease, make_frontier, ready_of

FP = "ab" * 20


def test_join_bumps_epoch_and_records_weight(r):
    f = make_frontier(r)
    assert f.join(3) == 1
    assert f.join(2) == 2
    assert r.hget(f.keys.weights, "n1") == b"2"
    assert r.zscore(f.keys.members, "n1") is not None


def test_push_queues_new_and_drops_duplicates_atomically(r):
    f = make_frontier(r)
    epoch = f.join(1)
    pushes = [Pending("a.test", FP, b"1{u:1}"), Pending("a.test", FP, b"1{u:1 again}"),
              Pending("b.test", "cd" * 20, b"1{u:2}"), Pending("b.test", None, b"1{retry}")]
    codes = f.flush(pushes, [], epoch, ready_of("n1"))
    assert codes == [QUEUED, DUPLICATE, QUEUED, QUEUED]
    assert r.lrange(f.keys.queue("a.test"), 0, -1) == [b"1{u:1}"]
    assert r.lrange(f.keys.queue("b.test"), 0, -1) == [b"1{u:2}", b"1{retry}"]
    assert set(r.zrange(f.keys.ready("n1"), 0, -1)) == {b"a.test", b"b.test"}
    assert r.hget(f.keys.totals, "queued") == b"3"
    assert r.hget(f.keys.bloom, "c0") == b"2"
    # seen across calls too, and by another node
    other = make_frontier(r, node="n2")
    assert other.flush([Pending("a.test", FP, b"x")], [], epoch, ready_of("n1")) == [DUPLICATE]


def test_push_enforces_host_page_limit(r):
    f = make_frontier(r, host_limit=2)
    epoch = f.join(1)
    pushes = [Pending("a.test", f"{i:040x}", b"p%d" % i) for i in range(3)]
    assert f.flush(pushes, [], epoch, ready_of("n1")) == [QUEUED, QUEUED, OVER_HOST_LIMIT]
    assert r.llen(f.keys.queue("a.test")) == 2
    assert r.hget(f.keys.host("a.test"), "a") == b"2"


def test_push_with_stale_epoch_writes_nothing(r):
    f = make_frontier(r)
    epoch = f.join(1)
    with pytest.raises(StaleEpoch):
        f.flush([Pending("a.test", FP, b"p")], [], epoch - 1, ready_of("n1"))
    assert r.llen(f.keys.queue("a.test")) == 0
    assert not r.exists(f.keys.bloom_bits(0))


def test_push_grows_a_new_bloom_layer_when_full(r):
    f = make_frontier(r, bloom_capacity=1000)
    epoch = f.join(1)
    pushes = [Pending("a.test", f"{i:040x}", b"p") for i in range(1000)]
    f.flush(pushes, [], epoch, ready_of("n1"))
    assert r.hget(f.keys.bloom, "n") == b"2"
    assert len(f.bloom.layers) == 2 and f.bloom.layers[1].capacity == 2000
    # a node that still believes in one layer is told to reload, and then succeeds
    stale = make_frontier(r, node="n2", bloom_capacity=1000)
    stale.bloom.layers, stale.bloom.counts = stale.bloom.layers[:1], stale.bloom.counts[:1]
    codes = stale.flush([Pending("a.test", "f" * 40, b"q"), Pending("a.test", f"{5:040x}", b"q")],
                        [], epoch, ready_of("n1"))
    assert codes == [QUEUED, DUPLICATE]
    assert r.hget(f.keys.bloom, "c1") == b"1"


def _queue(f, r, host, *payloads, epoch):
    f.flush([Pending(host, None, p) for p in payloads], [], epoch, ready_of(f.node))


def test_lease_respects_in_flight_limit_and_gap(r):
    f = make_frontier(r, delay_ms=1000)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", b"p2", epoch=epoch)
    leased, _ = lease(f, 10, epoch)
    assert [(x.host, x.payload) for x in leased] == [("a.test", b"p1")]
    assert r.hget(f.keys.host("a.test"), "n") == b"1"
    assert r.hlen(f.keys.leases("n1")) == 1
    # in flight limit 1: nothing more, the host is parked
    assert lease(f, 10, epoch)[0] == []
    assert r.zscore(f.keys.ready("n1"), "a.test") > f.now_ms() + 30_000
    # the ack frees the slot but the next start waits for the delay after the response
    done = f.now_ms()
    f.flush([], [Ack(leased[0].lease_id, "a.test", done)], epoch, ready_of("n1"))
    assert r.hget(f.keys.host("a.test"), "n") == b"0"
    assert int(r.hget(f.keys.host("a.test"), "t")) == done + 1000
    assert r.zscore(f.keys.ready("n1"), "a.test") == done + 1000
    leased, next_due = lease(f, 10, epoch)
    assert leased == [] and next_due == done + 1000
    assert r.hget(f.keys.totals, "queued") == b"1" and r.hget(f.keys.totals, "leased") == b"0"


def test_lease_honours_crawl_delay_and_removes_empty_hosts(r):
    f = make_frontier(r, delay_ms=0)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", epoch=epoch)
    f.set_crawl_delays({"a.test": 5000})
    leased, _ = lease(f, 10, epoch)
    assert len(leased) == 1
    # at its in-flight limit the host is parked, queue unread; its ack, finding the
    # queue empty, takes it out of the ready set
    assert r.zscore(f.keys.ready("n1"), "a.test") > f.now_ms() + 30_000
    f.flush([], [Ack(leased[0].lease_id, "a.test", 1000)], epoch, ready_of("n1"))
    assert int(r.hget(f.keys.host("a.test"), "t")) >= 6000
    assert not r.zscore(f.keys.ready("n1"), "a.test")


def test_ack_of_a_reclaimed_lease_changes_nothing(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", epoch=epoch)
    leased, _ = lease(f, 10, epoch)
    assert f.reclaim("n1", dead_before_ms=None, remove=False) == 1
    epoch = int(r.get(f.keys.epoch))
    f.flush([], [Ack(leased[0].lease_id, "a.test", 0)], epoch, ready_of("n1"))
    assert r.hget(f.keys.totals, "leased") == b"0"
    assert r.hget(f.keys.host("a.test"), "n") == b"0"
    assert r.lrange(f.keys.queue("a.test"), 0, -1) == [b"p1"]


def test_ack_with_stale_epoch_is_refused(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", epoch=epoch)
    leased, _ = lease(f, 10, epoch)
    f.join(1)
    with pytest.raises(StaleEpoch):
        f.flush([], [Ack(leased[0].lease_id, "a.test", 0)], epoch, ready_of("n1"))
    assert r.hlen(f.keys.leases("n1")) == 1


def test_reclaim_requeues_at_head_and_orphans_hosts(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", b"p2", epoch=epoch)
    _queue(f, r, "b.test", b"q1", epoch=epoch)
    leased, _ = lease(f, 1, epoch)
    assert f.reclaim("n1", dead_before_ms=None, remove=True) == 1
    first = leased[0]
    assert r.lindex(f.keys.queue(first.host), 0) == first.payload
    assert set(r.zrange(f.keys.orphans, 0, -1)) == {b"a.test", b"b.test"}
    assert not r.exists(f.keys.ready("n1")) and not r.exists(f.keys.leases("n1"))
    assert r.zscore(f.keys.members, "n1") is None and r.hget(f.keys.weights, "n1") is None
    assert r.hget(f.keys.totals, "queued") == b"3" and r.hget(f.keys.totals, "leased") == b"0"
    assert int(r.get(f.keys.epoch)) == epoch + 1


def test_reclaim_makes_a_parked_host_due_again(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", b"p2", epoch=epoch)
    lease(f, 1, epoch)  # in flight limit reached: a.test is parked a minute ahead
    assert r.zscore(f.keys.ready("n1"), "a.test") > f.now_ms() + 30_000
    f.reclaim("n1", dead_before_ms=None, remove=True)
    assert r.zscore(f.keys.orphans, "a.test") <= f.now_ms()


def test_reclaim_refuses_a_node_whose_heartbeat_is_recent(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", epoch=epoch)
    lease(f, 1, epoch)
    assert f.reclaim("n1", dead_before_ms=f.now_ms() - 10_000, remove=True) is None
    assert r.hlen(f.keys.leases("n1")) == 1 and r.zscore(f.keys.members, "n1") is not None


def test_sweep_moves_hosts_with_their_due_time(r):
    f = make_frontier(r)
    epoch = f.join(1)
    r.zadd(f.keys.ready("n1"), {"a.test": 5, "b.test": 7})
    assert f.sweep(f.keys.ready("n1"), {"a.test": f.keys.ready("n2")}, epoch) == 1
    assert r.zrange(f.keys.ready("n2"), 0, -1, withscores=True) == [(b"a.test", 5.0)]
    assert r.zrange(f.keys.ready("n1"), 0, -1) == [b"b.test"]
    with pytest.raises(StaleEpoch):
        f.sweep(f.keys.ready("n1"), {"b.test": f.keys.ready("n2")}, epoch - 1)


def test_work_left_counts_queues_and_leases_not_counters(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", b"p2", epoch=epoch)
    _queue(f, r, "b.test", b"q1", epoch=epoch)
    lease(f, 1, epoch)
    assert f.work_left() == 3  # two hosts with work, one lease
    r.hset(f.keys.totals, "queued", 99)  # counters that drifted do not matter
    assert f.work_left() == 3
    r.delete(f.keys.queue("a.test"), f.keys.queue("b.test"), f.keys.leases("n1"),
             f.keys.host("a.test"))
    r.zadd(f.keys.ready("n1"), {"a.test": 0})  # its in-flight park is over
    lease(f, 2, epoch)  # the owner's next lease takes the emptied hosts out
    assert f.work_left() == 0


def test_work_left_costs_the_same_for_any_number_of_hosts(r):
    f = make_frontier(r)
    epoch = f.join(1)
    for i in range(2000):
        _queue(f, r, f"h{i}.test", b"p", epoch=epoch)
    r.config_resetstat()
    assert f.work_left() == 2000
    calls = {name: stats["calls"] for name, stats in r.info("commandstats").items()}
    assert "cmdstat_llen" not in calls and "cmdstat_zrange" not in calls or \
        calls.get("cmdstat_zrange", 0) == 1
    assert sum(calls.values()) <= 6, calls  # the members, then one command per set


def test_a_retried_push_batch_gets_its_first_result(r):
    f = make_frontier(r)
    epoch = f.join(1)
    pushes = [Pending("a.test", FP, b"p1"), Pending("a.test", "cd" * 20, b"p2")]
    first = f.flush(pushes, [], epoch, ready_of("n1"), batch="run:1")
    assert first == [QUEUED, QUEUED]
    # the reply was lost and the node retries: same codes, nothing queued twice
    assert f.flush(pushes, [], epoch, ready_of("n1"), batch="run:1") == first
    assert r.llen(f.keys.queue("a.test")) == 2
    # a new batch of the same URLs is a duplicate, as it should be
    assert f.flush(pushes, [], epoch, ready_of("n1"), batch="run:2") == [DUPLICATE, DUPLICATE]


def test_retries_neither_meet_nor_use_the_host_budget(r):
    f = make_frontier(r, host_limit=2)
    epoch = f.join(1)
    pushes = [Pending("a.test", f"{i:040x}", b"p%d" % i) for i in range(2)]
    assert f.flush(pushes, [], epoch, ready_of("n1")) == [QUEUED, QUEUED]
    retry = Pending("a.test", None, b"p0 again", retry=True)
    assert f.flush([retry], [], epoch, ready_of("n1")) == [QUEUED]
    assert r.hget(f.keys.host("a.test"), "a") == b"2"
    assert f.flush([Pending("a.test", "e" * 40, b"new")], [], epoch, ready_of("n1")) == [OVER_HOST_LIMIT]


def test_acks_wait_for_the_push_batch_before_them(r):
    f = make_frontier(r, bloom_capacity=1000)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", epoch=epoch)
    leased, _ = lease(f, 1, epoch)
    f.flush([Pending("b.test", f"{i:040x}", b"x") for i in range(1000)], [], epoch, ready_of("n1"))
    stale = make_frontier(r, node="n1", bloom_capacity=1000)  # still believes in one layer
    stale.bloom.layers, stale.bloom.counts = stale.bloom.layers[:1], stale.bloom.counts[:1]
    child = Pending("a.test", "c" * 40, b"child")
    ack = Ack(leased[0].lease_id, "a.test", f.now_ms())
    # the push is refused (stale Bloom layers), so the ack must not apply either; the
    # frontier then retries both, in order
    assert stale.flush([child], [ack], epoch, ready_of("n1")) == [QUEUED]
    assert r.hlen(f.keys.leases("n1")) == 0
    assert r.lrange(f.keys.queue("a.test"), 0, -1) == [b"child"]


def test_bloom_layers_stop_doubling_at_the_redis_string_limit():
    from crawler.frontier.bloom import BloomLayer  # noqa: PLC0415

    layer = BloomLayer.of(100_000_000, 1e-4, 5)
    assert layer.size_bits < 2**32


def _two_nodes(r):
    busy, idle = make_frontier(r, "n1"), make_frontier(r, "n2")
    busy.join(1)
    return busy, idle, idle.join(1)


def test_an_idle_node_takes_only_hosts_overdue_at_their_owner(r):
    busy, idle, epoch = _two_nodes(r)
    for host in ("late.test", "fresh.test", "flight.test"):
        _queue(busy, r, host, b"1" + host.encode(), b"2" + host.encode(), epoch=epoch)
    now = idle.now_ms()
    r.zadd(busy.keys.ready("n1"), {"late.test": now - 2000, "fresh.test": now - 100,
                                   "flight.test": now - 3000})
    r.hset(busy.keys.host("flight.test"), "n", 1)  # the owner has it in flight
    leased, _ = lease(idle, 10, epoch, steal_from=["n1"], steal_after_ms=500)
    assert [(x.host, x.payload, x.stolen) for x in leased] == [("late.test", b"1late.test", True)]
    assert r.hexists(idle.keys.leases("n2"), leased[0].lease_id)
    assert not r.exists(idle.keys.ready("n2")), "the host stays with its owner"
    # the gate held for the host in flight; the stolen host waits for its ack
    assert r.hget(busy.keys.host("flight.test"), "n") == b"1"
    assert r.zscore(busy.keys.ready("n1"), "late.test") > now + 30_000
    # the thief's ack re-arms the host at its owner, which leases it next
    # (its response came back a second ago: each node's clock offset to Redis is its own
    # estimate, and the two may differ by a few ms)
    done = idle.now_ms() - 1000
    idle.flush([], [Ack(leased[0].lease_id, "late.test", done)], epoch, ready_of("n1"))
    assert r.hget(busy.keys.host("late.test"), "n") == b"0"
    mine, _ = lease(busy, 10, epoch)
    assert {(x.host, x.payload, x.stolen) for x in mine} >= {("late.test", b"2late.test", False)}


def test_a_dead_thief_hands_its_stolen_lease_back_to_the_owner(r):
    busy, idle, epoch = _two_nodes(r)
    _queue(busy, r, "a.test", b"p1", b"p2", epoch=epoch)
    r.zadd(busy.keys.ready("n1"), {"a.test": idle.now_ms() - 5000})
    leased, _ = lease(idle, 10, epoch, steal_from=["n1"], steal_after_ms=500)
    assert [x.payload for x in leased] == [b"p1"]
    assert busy.reclaim("n2", dead_before_ms=None, remove=True) == 1
    assert r.lrange(busy.keys.queue("a.test"), 0, -1) == [b"p1", b"p2"]
    assert r.hget(busy.keys.host("a.test"), "n") == b"0"
    assert r.zscore(busy.keys.orphans, "a.test") is not None  # its owner claims it back


def test_a_refill_pushes_acks_and_leases_in_one_round_trip(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", b"p2", epoch=epoch)
    [first], _ = lease(f, 1, epoch)
    before = f.link.round_trips
    codes, (leased, _) = f.send([Pending("b.test", None, b"q1")],
                                [Ack(first.lease_id, "a.test", f.now_ms() - 1000)],
                                epoch, ready_of("n1"), lease=LeaseAsk(10))
    assert f.link.round_trips == before + 1
    assert codes == [QUEUED]
    # the host the ack freed and the host the push added are both leased
    assert {x.payload for x in leased} == {b"p2", b"q1"}


def test_a_host_acked_and_leased_in_one_refill_ends_as_if_in_two(r):
    # one call writes the host once: the state must match an ack, then a lease
    f = make_frontier(r, max_inflight=1)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", b"p2", b"p3", epoch=epoch)
    _queue(f, r, "b.test", b"q1", epoch=epoch)
    [a1, b1], _ = lease(f, 10, epoch)
    now = f.now_ms()
    # a.test is due again and taken; b.test, whose queue is empty, leaves the ready set;
    # an ack into backoff keeps its host out of this very lease
    _, (leased, _) = f.send([], [Ack(a1.lease_id, "a.test", now), Ack(b1.lease_id, "b.test", now)],
                            epoch, ready_of("n1"), lease=LeaseAsk(10))
    assert [(x.host, x.payload) for x in leased] == [("a.test", b"p2")]
    state = r.hgetall(f.keys.host("a.test"))
    assert state[b"n"] == b"1" and state[b"b"] == b"0"
    assert r.zscore(f.keys.ready("n1"), "a.test") >= now + f.park_ms  # parked at its limit
    assert r.zscore(f.keys.ready("n1"), "b.test") is None
    assert r.hget(f.keys.host("b.test"), "n") == b"0" and r.pttl(f.keys.host("b.test")) > 0
    assert r.hlen(f.keys.leases("n1")) == 1
    assert r.hmget(f.keys.totals, "queued", "leased") == [b"1", b"1"]
    _, (leased, _) = f.send([], [Ack(leased[0].lease_id, "a.test", now, backoff_ms=-1)], epoch,
                            ready_of("n1"), lease=LeaseAsk(10))
    assert leased == []
    state = r.hgetall(f.keys.host("a.test"))
    assert state[b"n"] == b"0" and state[b"b"] == b"1" and int(state[b"t"]) >= now + 2000
    assert r.zscore(f.keys.ready("n1"), "a.test") == int(state[b"t"])


def test_a_lease_after_a_refused_push_leases_nothing(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", epoch=epoch)
    r.hset(f.keys.bloom, "n", 2)  # another node started a second Bloom layer
    # the push is refused (stale filter count), and the lease in the same script with
    # it: it would lease before the links are stored
    pushes = [Pending("b.test", "e" * 40, b"q1")]
    refill = f._refill_arguments(_group(pushes), [], LeaseAsk(10), epoch, ready_of("n1"),
                                 "n1:refused")
    assert f.link.pipeline(lambda pipe: f.link.evalsha(pipe, "refill", *refill)) == [[-2]]
    assert r.llen(f.keys.queue("a.test")) == 1 and not r.exists(f.keys.queue("b.test"))
    # a lease behind a batch id that was never applied is refused too
    behind = f._refill_arguments([], [], LeaseAsk(10), epoch, ready_of("n1"), "n1:unapplied")
    assert f.link.pipeline(lambda pipe: f.link.evalsha(pipe, "refill", *behind)) == [[-3]]
    assert r.llen(f.keys.queue("a.test")) == 1
    # through send, the push learns the new layer and goes again, and the lease with it
    codes, (leased, _) = f.send([Pending("b.test", "e" * 40, b"q1")], [], epoch,
                                ready_of("n1"), lease=LeaseAsk(10))
    assert codes == [QUEUED] and len(f.bloom.layers) == 2
    assert {x.payload for x in leased} == {b"p1", b"q1"}


def test_a_request_that_nodes_keep_dying_with_is_dead_lettered(r):
    from crawler.frontier import codec  # noqa: PLC0415

    f = make_frontier(r)
    epoch = f.join(1)
    payload = b'2{"u":"http://a.test/killer"}'
    _queue(f, r, "a.test", payload, epoch=epoch)
    leased, _ = lease(f, 1, epoch)
    # a hand-back (drain) counts nothing
    assert f.reclaim("n1", dead_before_ms=None, remove=False, max_attempts=0) == 1
    assert r.lindex(f.keys.queue("a.test"), 0) == payload
    epoch = f.join(1)
    claim(f, r)
    leased, _ = lease(f, 1, epoch)
    # the node died with it: one attempt, requeued with its count
    assert f.reclaim("n1", dead_before_ms=None, remove=True, max_attempts=2) == 1
    assert r.lindex(f.keys.queue("a.test"), 0) == b"@1|" + payload
    assert codec.decode(b"@1|" + payload, None).url == "http://a.test/killer"
    epoch = f.join(1)
    claim(f, r)
    leased, _ = lease(f, 1, epoch)
    assert [lease.payload for lease in leased] == [b"@1|" + payload]
    # and again: dead-lettered, not queued for the next node to die with
    assert f.reclaim("n1", dead_before_ms=None, remove=True, max_attempts=2) == 0
    assert r.llen(f.keys.queue("a.test")) == 0
    [(_, letter)] = r.xrange(f.keys.dead_letters)
    assert letter[b"payload"] == payload and letter[b"reason"] == b"reclaimed 2 times"
    assert r.hget(f.keys.totals, "leased") == b"0" and r.hget(f.keys.totals, "queued") == b"0"


def claim(f, r) -> None:
    """Take the orphaned host back, due now (what a node's sweep does)."""
    r.zrem(f.keys.orphans, "a.test")
    r.zadd(f.keys.ready("n1"), {"a.test": 0})
    r.hset(f.keys.host("a.test"), "t", 0)


def test_redis_does_not_keep_what_no_one_needs(r):
    from crawler.frontier.frontier import Ack  # noqa: PLC0415
    from crawler.frontier.status import sum_outcomes  # noqa: PLC0415

    f = make_frontier(r)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", epoch=epoch)
    assert 0 < r.ttl(f.keys.push_log("n1")) <= 86400  # the push log expires
    [one], _ = lease(f, 1, epoch)
    f.flush([], [Ack(one.lease_id, "a.test", f.now_ms())], epoch, ready_of("n1"))
    assert 0 < r.pttl(f.keys.host("a.test")) <= 7 * 86400 * 1000  # an idle host's state
    # a finished run's counters fold into the retired totals: same sums, no per-run fields
    f.ledger.publish("n1@1", {"fetched": 3, "fetched/200": 3}, [])
    f.ledger.publish("n1@2", {"fetched": 2, "fetched/200": 2}, [])
    f.ledger.retire("n1@1", {"fetched": 3, "fetched/200": 3})
    outcomes = {k.decode(): v.decode() for k, v in r.hgetall(f.keys.outcomes).items()}
    assert sum_outcomes(outcomes) == {"fetched": 5, "fetched/200": 5}
    assert not any(k.startswith("n1@1/") for k in outcomes)
    # a dead node's own keys go with it
    g = make_frontier(r, node="n2")
    g.join(1)
    r.hset(g.keys.node_stats, "n2", "{}")
    assert f.reclaim("n2", dead_before_ms=None, remove=True) == 0
    assert not r.hexists(f.keys.node_stats, "n2") and not r.exists(f.keys.push_log("n2"))


def test_a_host_in_flight_to_its_limit_is_rearmed_by_its_ack_not_by_a_push(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", epoch=epoch)
    [one], _ = lease(f, 10, epoch)
    r.zrem(f.keys.ready("n1"), "a.test")  # out of the ready set while in flight
    _queue(f, r, "a.test", b"p2", epoch=epoch)
    assert r.zscore(f.keys.ready("n1"), "a.test") is None, "announced while at its limit"
    f.flush([], [Ack(one.lease_id, "a.test", f.now_ms())], epoch, ready_of("n1"))
    assert r.zscore(f.keys.ready("n1"), "a.test") is not None
    assert [x.payload for x in lease(f, 10, epoch)[0]] == [b"p2"]


def test_one_lease_call_hands_out_distinct_ids_and_an_id_acked_twice_settles_once(r):
    f = make_frontier(r)
    epoch = f.join(1)
    for host in ("a.test", "b.test", "c.test"):
        _queue(f, r, host, b"1" + host.encode(), b"2" + host.encode(), epoch=epoch)
    leased, _ = lease(f, 10, epoch)
    assert len({x.lease_id for x in leased}) == 3 == r.hlen(f.keys.leases("n1"))
    first = leased[0]
    twice = [Ack(first.lease_id, first.host, f.now_ms())] * 2
    f.flush([], twice, epoch, ready_of("n1"))
    assert r.hget(f.keys.host(first.host), "n") == b"0"
    assert r.hget(f.keys.totals, "leased") == b"2"


def commands_per_page(r, **options) -> float:
    """Crawl 201 pages through refills (push the links, ack, lease the next) and count
    Redis' commands per page, Lua-internal ones included."""
    r.flushall()
    f = make_frontier(r, **options)
    epoch = f.join(1)
    hosts = [f"h{i}.test" for i in range(20)]
    _queue(f, r, hosts[0], b"seed", epoch=epoch)
    r.config_resetstat()
    pages, serial, acks, links = 0, 0, [], []
    while True:
        _, (leased, _) = f.send(links, acks, epoch, ready_of("n1"), lease=LeaseAsk(16))
        if not leased:
            break
        pages += len(leased)
        links, acks = [], [Ack(x.lease_id, x.host, f.now_ms()) for x in leased]
        for x in leased:  # two new links per page, one on another host, until 200 pages
            for host in (x.host, hosts[serial % 20]) if serial < 200 else ():
                serial += 1
                links.append(Pending(host, f"{serial:040x}", b"p"))
    assert pages == 201
    return sum(s["calls"] for name, s in r.info("commandstats").items()
               if name != "cmdstat_config") / pages


def test_a_page_costs_redis_at_most_15_commands(r):
    """The hot path's Redis cost per page (bench/profile_redis.py measures the same)."""
    assert commands_per_page(r) <= 15, r.info("commandstats")


def test_an_idle_ring_refresh_does_not_read_every_host(r):
    from crawler.frontier.membership import Membership  # noqa: PLC0415

    f = make_frontier(r)
    membership = Membership(f, weight=1, vnodes=10, timeout_ms=60_000)
    membership.join()
    for i in range(500):
        _queue(f, r, f"h{i}.test", b"p", epoch=membership.epoch)
    r.config_resetstat()
    membership.refresh()  # nothing changed: a node's idle heartbeat path
    calls = {name: s["calls"] for name, s in r.info("commandstats").items()}
    assert "cmdstat_zrange" in calls and calls["cmdstat_zrange"] == 1, calls  # the orphans
    f.join(1)  # a new epoch: now its hosts are checked
    r.config_resetstat()
    membership.refresh()
    assert r.info("commandstats")["cmdstat_zrange"]["calls"] == 2


def test_a_sweep_moves_many_hosts_in_chunks(r, monkeypatch):
    from crawler.frontier import frontier  # noqa: PLC0415

    monkeypatch.setattr(frontier, "SWEEP_CHUNK", 3)
    f = make_frontier(r)
    epoch = f.join(1)
    r.zadd(f.keys.ready("n1"), {f"h{i}.test": i for i in range(7)})
    r.config_resetstat()
    moves = {f"h{i}.test": f.keys.ready("n2") for i in range(7)}
    assert f.sweep(f.keys.ready("n1"), moves, epoch) == 7
    assert r.info("commandstats")["cmdstat_evalsha"]["calls"] == 3
    assert r.zcard(f.keys.ready("n2")) == 7 and not r.exists(f.keys.ready("n1"))


def test_a_host_batch_is_leased_whole_and_parked_until_all_of_it_is_acked(r):
    f = make_frontier(r, host_batch=3, max_inflight=2, delay_ms=500)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", b"p2", b"p3", b"p4", epoch=epoch)
    batch, _ = lease(f, 10, epoch)
    assert [(x.host, x.payload) for x in batch] == [("a.test", b"p1"), ("a.test", b"p2"),
                                                   ("a.test", b"p3")]
    assert len({x.lease_id for x in batch}) == 3 == r.hlen(f.keys.leases("n1"))
    assert r.hget(f.keys.host("a.test"), "n") == b"3"
    assert r.hget(f.keys.totals, "queued") == b"1" and r.hget(f.keys.totals, "leased") == b"3"
    # held by one node: not leased again, by it or by a thief, though below max_inflight
    assert lease(f, 10, epoch)[0] == []
    assert lease(make_frontier(r, node="n2", host_batch=3), 10, epoch, ("n1",), 0)[0] == []
    # a partial ack leaves it parked
    done = f.now_ms()
    f.flush([], [Ack(batch[0].lease_id, "a.test", done)], epoch, ready_of("n1"))
    assert r.hget(f.keys.host("a.test"), "n") == b"2"
    assert r.zscore(f.keys.ready("n1"), "a.test") > f.now_ms() + 30_000
    # the last ack re-arms it, spaced from the last response
    f.flush([], [Ack(x.lease_id, "a.test", done + 100) for x in batch[1:]], epoch,
            ready_of("n1"))
    assert r.hget(f.keys.host("a.test"), "n") == b"0"
    assert r.zscore(f.keys.ready("n1"), "a.test") == done + 600
    assert r.hget(f.keys.totals, "queued") == b"1" and r.hget(f.keys.totals, "leased") == b"0"


def test_a_partial_ack_counts_the_host_down_only_and_a_dead_node_s_rest_comes_back(r):
    """The heartbeat's acks of a batch still running cost one HINCRBY of the host (no
    state read, no queue length, no ready-set move); the rest comes back on a death."""
    f = make_frontier(r, host_batch=3)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", b"p2", b"p3", b"p4", epoch=epoch)
    batch, _ = lease(f, 10, epoch)
    parked = r.zscore(f.keys.ready("n1"), "a.test")
    r.config_resetstat()
    f.flush([], [Ack(batch[0].lease_id, "a.test", f.now_ms())], epoch, ready_of("n1"))
    calls = {k.removeprefix("cmdstat_"): v["calls"] for k, v in r.info("commandstats").items()}
    assert "llen" not in calls and "zadd" not in calls and "zrem" not in calls, calls
    assert calls["hmget"] == 1 and "hset" not in calls, calls  # the leases' HMGET only
    assert r.hget(f.keys.host("a.test"), "n") == b"2"
    assert r.zscore(f.keys.ready("n1"), "a.test") == parked
    assert lease(f, 10, epoch)[0] == []  # still parked
    assert f.reclaim("n1", dead_before_ms=None, remove=True) == 2
    assert sorted(r.lrange(f.keys.queue("a.test"), 0, -1)) == [b"p2", b"p3", b"p4"]
    assert r.hget(f.keys.host("a.test"), "n") == b"0"


def test_requests_handed_back_go_to_the_head_of_their_queue_in_order(r):
    f = make_frontier(r, host_batch=4)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", b"p2", b"p3", b"p4", b"p5", epoch=epoch)
    batch, _ = lease(f, 10, epoch)
    assert len(batch) == 4
    # p1 answered 503 (backoff 2 s): p2..p4 are handed back unstarted
    done = f.now_ms()
    acks = [Ack(batch[0].lease_id, "a.test", done, 2000),
            *(Ack(x.lease_id, "a.test", HANDED_BACK) for x in batch[1:])]
    f.flush([], acks, epoch, ready_of("n1"))
    assert r.lrange(f.keys.queue("a.test"), 0, -1) == [b"p2", b"p3", b"p4", b"p5"]
    assert r.hget(f.keys.host("a.test"), "n") == b"0"
    assert r.hget(f.keys.host("a.test"), "b") == b"1"
    assert r.zscore(f.keys.ready("n1"), "a.test") == done + 2000
    assert r.hlen(f.keys.leases("n1")) == 0
    assert r.hget(f.keys.totals, "queued") == b"4" and r.hget(f.keys.totals, "leased") == b"0"
    assert f.work_left() == 1


def test_a_dead_node_s_batch_goes_back_whole(r):
    f = make_frontier(r, host_batch=3)
    epoch = f.join(1)
    _queue(f, r, "a.test", b"p1", b"p2", b"p3", epoch=epoch)
    assert len(lease(f, 10, epoch)[0]) == 3
    assert f.reclaim("n1", dead_before_ms=None, remove=True) == 3
    assert sorted(r.lrange(f.keys.queue("a.test"), 0, -1)) == [b"p1", b"p2", b"p3"]
    assert r.hget(f.keys.host("a.test"), "n") == b"0"
    epoch = int(r.get(f.keys.epoch))
    heir = make_frontier(r, node="n2", host_batch=3)
    heir.join(1)
    r.zunionstore(heir.keys.ready("n2"), [heir.keys.orphans])  # as a claim would
    assert len(lease(heir, 10, int(r.get(f.keys.epoch)))[0]) == 3


def test_host_batches_cut_the_commands_per_page(r):
    single, batched = commands_per_page(r, host_batch=1), commands_per_page(r, host_batch=4)
    assert batched < 0.75 * single, (single, batched)


def test_host_batches_on_a_redis_without_lpop_count_are_refused_in_one_line(r, monkeypatch):
    monkeypatch.setattr(r, "info", lambda section=None: {"redis_version": "6.0.16"})
    with pytest.raises(RedisTooOld, match=r"^Redis 6\.0\.16 .* CRAWLER_HOST_BATCH=1$"):
        make_frontier(r, host_batch=4)
    make_frontier(r, host_batch=1)  # one request per lease needs no LPOP count


def test_a_host_allowed_more_in_flight_than_a_batch_is_leased_more_batches(r):
    f = make_frontier(r, host_batch=4, max_inflight=8)
    epoch = f.join(1)
    _queue(f, r, "a.test", *(b"p%d" % i for i in range(12)), epoch=epoch)
    first, _ = lease(f, 1, epoch)
    second, _ = lease(f, 1, epoch)
    assert len(first) == len(second) == 4
    assert r.hget(f.keys.host("a.test"), "n") == b"8"
    assert lease(f, 1, epoch)[0] == []  # a third would pass 8 in flight
    f.flush([], [Ack(x.lease_id, "a.test", f.now_ms()) for x in first], epoch, ready_of("n1"))
    assert len(lease(f, 1, epoch)[0]) == 4
