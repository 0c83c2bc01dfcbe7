"""An attachment download takes a slot of its host's batch held here (crawler/node/turns.py),
and the batch's acks carry its answer time: the node's side; the whole, with a real server,
is tests/attachments/test_crawl.py::test_attachments_keep_the_host_gap_with_its_pages."""

from __future__ import annotations

from typing import Any

from scrapy import Request

from crawler.node.politeness import Politeness
from crawler.node.turns import HostTurns
from tests.scheduler.test_dispatch import book, finish, hand, lease_batch


def _turns(leases: Any, clock: list[int]) -> HostTurns:
    politeness = Politeness(0.0, leases, leases.outcomes, max_delay=60)
    return HostTurns(leases, politeness, max_inflight=1, now_ms=lambda: clock[0])


def _at_once(coroutine: Any) -> Any:
    """The coroutine's result if it finishes without waiting; None if it waits."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    return None


def test_a_file_waits_for_its_host_s_slot_and_the_batch_s_ack_carries_its_answer():
    leases = book()
    clock = [1000]
    turns = _turns(leases, clock)
    lease_batch(leases, "a.test", 2)
    page = hand(leases, 0.0)
    attachment = Request("http://a.test/file.php?id=1")
    assert _at_once(turns.take(attachment)) is None  # the page holds the host's one slot
    finish(leases, page)
    batch = _at_once(turns.take(attachment))
    assert batch is not None and batch.host == "a.test" and batch.running == 1
    assert hand(leases, 0.0) is None  # the file holds the slot now: the next page waits
    clock[0] = 9000
    turns.give_back(batch)
    finish(leases, hand(leases, 0.0))
    assert [ack.done_ms for ack in leases.acks.take()] == [9000, 9000]  # after the file


def test_a_file_on_a_host_the_node_holds_no_batch_of_is_paced_on_its_own():
    leases = book()
    turns = _turns(leases, [1000])
    first = _at_once(turns.take(Request("http://cdn.test/a.png")))
    assert first is not None and first.host == "cdn.test"
    assert _at_once(turns.take(Request("http://cdn.test/b.png"))) is None  # one at a time
    turns.give_back(first)
    assert _at_once(turns.take(Request("http://cdn.test/b.png"))) is first
