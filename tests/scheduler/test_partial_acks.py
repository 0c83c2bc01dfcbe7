"""A host batch's acks wait for each other, but never longer than a heartbeat
(AckQueue.release_partial), and a pause hands its unstarted requests back
(LeaseBook.hand_back): the node's side; the whole is in tests/faults/test_batch_acks.py."""

from __future__ import annotations

from crawler.frontier.frontier import HANDED_BACK
from tests.scheduler.test_dispatch import book, finish, hand, lease_batch


def test_each_heartbeat_sends_the_acks_settled_so_far_and_the_rest_go_with_the_batch():
    leases = book()
    lease_batch(leases, "a.test", 4)
    finish(leases, hand(leases, 0.0))
    finish(leases, hand(leases, 0.0))
    assert leases.acks.take() == []  # the batch is not done: its acks wait...
    assert leases.acks.release_partial() == 2  # ...until the heartbeat
    assert [ack.lease_id for ack in leases.acks.take()] == ["a.test-0", "a.test-1"]
    assert leases.acks.release_partial() == 0  # nothing settled since
    finish(leases, hand(leases, 0.0))
    finish(leases, hand(leases, 0.0))  # the batch is done: the rest go at once
    assert [ack.lease_id for ack in leases.acks.take()] == ["a.test-2", "a.test-3"]
    assert leases.acks.release_partial() == 0 and not leases.busy()


def test_handed_back_requests_are_acked_as_such_with_their_batch():
    leases = book()
    lease_batch(leases, "a.test", 4)
    started = hand(leases, 0.0)
    assert leases.hand_back(leases.dispatch.take_all()) == 3
    assert hand(leases, 0.0) is None and len(leases.dispatch) == 0
    assert leases.acks.release_partial() == 3  # the hand-backs go now, not after `started`
    acks = leases.acks.take()
    assert [(a.lease_id, a.done_ms) for a in acks] == [
        ("a.test-1", HANDED_BACK), ("a.test-2", HANDED_BACK), ("a.test-3", HANDED_BACK)]
    finish(leases, started)
    assert [ack.lease_id for ack in leases.acks.take()] == ["a.test-0"]
    assert not leases.busy()


def test_a_batch_s_last_acks_carry_the_latest_response_of_those_sent_before_it():
    """Redis counts a heartbeat's acks of a running batch off its host and no more
    (refill.lua), so the host's gap after the batch runs from the batch's latest response."""
    leases = book(max_inflight=2)
    times = iter([5000, 3000])  # the first page's response came last
    leases.now_ms = lambda: next(times)
    lease_batch(leases, "a.test", 2)
    first, second = hand(leases, 0.0), hand(leases, 0.0)
    finish(leases, first)
    assert leases.acks.release_partial() == 1
    assert [a.done_ms for a in leases.acks.take()] == [5000]
    finish(leases, second)
    assert [(a.lease_id, a.done_ms) for a in leases.acks.take()] == [("a.test-1", 5000)]
