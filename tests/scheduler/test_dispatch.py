"""The node's side of host batches: what the dispatch hands out, and when a batch's
acks go (the Redis side is in test_lua.py, the whole in test_cluster.py)."""

from __future__ import annotations

from scrapy import Request
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from crawler.frontier.codec import LEASE_META
from crawler.frontier.frontier import HANDED_BACK
from crawler.node.dispatch import Dispatch, HostBatch
from crawler.node.leases import AckQueue, LeaseBook
from crawler.node.outcomes import Outcomes


def no_gap(host: str) -> float:
    return 0.0


def book(max_inflight: int = 1) -> LeaseBook:
    outcomes = Outcomes("n1", MemoryStatsCollector(get_crawler()))
    return LeaseBook(outcomes, now_ms=lambda: 1000, dispatch=Dispatch(max_inflight),
                     acks=AckQueue())


def lease_batch(leases: LeaseBook, host: str, count: int) -> list[Request]:
    batch, requests = HostBatch(host), []
    for i in range(count):
        request = Request(f"http://{host}/{i}")
        leases.add(f"{host}-{i}", request, batch)
        batch.waiting.append(request)
        requests.append(request)
    leases.dispatch.add(batch)
    return requests


def hand(leases: LeaseBook, now: float, gap=no_gap) -> Request | None:
    request = leases.dispatch.next(now, gap)
    if request is not None:
        leases.handed(request)
    return request


def finish(leases: LeaseBook, request: Request, outcome: str = "fetched/200") -> None:
    leases.settle(request, outcome)
    leases.acks.release(scraping=())


def test_hosts_take_turns_within_their_in_flight_limit():
    leases = book(max_inflight=2)
    a = lease_batch(leases, "a.test", 3)
    b = lease_batch(leases, "b.test", 1)
    handed = [hand(leases, 0.0) for _ in range(4)]
    assert handed == [a[0], b[0], a[1], None]  # a.test has 2 in flight: its limit
    finish(leases, a[0])
    assert hand(leases, 0.0) is a[2]
    assert len(leases.dispatch) == 0


def test_a_host_s_next_start_waits_for_its_gap_after_the_last_response():
    leases = book()
    first, second = lease_batch(leases, "a.test", 2)
    gap = {"a.test": 2.0}.get
    assert hand(leases, 10.0, gap) is first
    leases.settle(first, "fetched/200")  # the slot frees when the outcome is known
    start = leases.dispatch.next_start(gap)
    assert start is not None and start > 10.0
    assert hand(leases, start - 0.01, gap) is None
    assert hand(leases, start, gap) is second


def test_a_batch_s_acks_go_together_once_all_of_it_is_settled():
    leases = book()
    lease_batch(leases, "a.test", 3)
    for _ in range(2):
        finish(leases, hand(leases, 0.0))
        assert leases.acks.take() == []
    finish(leases, hand(leases, 0.0))
    assert [ack.lease_id for ack in leases.acks.take()] == ["a.test-0", "a.test-1", "a.test-2"]
    assert not leases.busy()


def test_a_backoff_hands_the_rest_of_its_batch_back_in_order():
    leases = book()
    lease_batch(leases, "a.test", 4)
    first = hand(leases, 0.0)
    assert leases.back_off(first, -1) == "a.test"  # a 503: exponential backoff
    finish(leases, first, "fetched/503")
    acks = leases.acks.take()
    assert [a.lease_id for a in acks if a.done_ms == HANDED_BACK] == [
        "a.test-1", "a.test-2", "a.test-3"]  # in queue order
    assert [(a.lease_id, a.backoff_ms) for a in acks if a.done_ms != HANDED_BACK] == [
        ("a.test-0", -1)]
    assert len(leases.dispatch) == 0 and hand(leases, 0.0) is None
    assert leases.outcomes.counts["frontier/handed_back"] == 3


def test_requests_taken_back_unstarted_complete_their_batch():
    leases = book()
    lease_batch(leases, "a.test", 3)
    started = hand(leases, 0.0)
    taken = leases.dispatch.take_all()
    leases.forget(r.meta[LEASE_META] for r in taken)  # handed back by a reclaim
    assert leases.acks.take() == []  # the started one is not settled yet
    finish(leases, started)
    assert [ack.lease_id for ack in leases.acks.take()] == ["a.test-0"]
    assert not leases.busy()


def test_the_host_with_the_highest_priority_goes_first_then_hosts_take_turns():
    leases = book()
    low = lease_batch(leases, "a.test", 2)
    high, batch = [], HostBatch("b.test")
    for i, priority in enumerate((5, 0)):  # refill.lua sends a host's batch highest first
        request = Request(f"http://b.test/{i}", priority=priority)
        leases.add(f"b.test-{i}", request, batch)
        batch.waiting.append(request)
        high.append(request)
    leases.dispatch.add(batch)
    assert hand(leases, 0.0) is high[0]  # added last, yet first
    assert hand(leases, 0.0) is low[0]  # all at 0 now (b.test is busy anyway)
    finish(leases, high[0])
    assert hand(leases, 0.0) is high[1]
    assert leases.dispatch.prioritized == 0
