"""Revisit state and revisit.lua against a real Redis: schedule, promote, adapt."""

from __future__ import annotations

import pytest
from scrapy import signals
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from crawler.durable import ItemDurability
from crawler.frontier.cluster import Cluster
from crawler.frontier.membership import Membership
from crawler.frontier.scripts import SPECS, StaleEpoch
from crawler.incremental.items import RevisitPipeline
from crawler.items import Post
from crawler.node.outcomes import Outcomes
from crawler.node.revisit import Revisits, next_interval
from crawler.ops.sink import RedisStreamSink
from tests.helpers.frontier import make_frontier


def _revisits(r, node: str = "n1", watch: float = 10.0) -> Revisits:
    frontier = make_frontier(r, node=node)
    membership = Membership(frontier, weight=1, vnodes=160, timeout_ms=10_000)
    membership.join()
    return Revisits(frontier, membership, Outcomes(node, get_crawler().stats), watch=watch,
                    min_interval=1, max_interval=100)


def test_due_listings_move_into_the_host_queue_and_are_rescheduled(r):
    v = _revisits(r)
    keys, now = v.keys, v.frontier.now_ms()
    v.schedule("a.test", "f1", b"2{due}", now - 20_000, 10)  # due 10 s ago
    v.schedule("a.test", "f2", b"2{later}", now, 10)  # due in 10 s
    v.set("a.test", "rthread", b"12345678")
    v.tick()
    assert r.lrange(keys.queue("a.test"), 0, -1) == [b"2{due}"]
    assert r.zrange(keys.ready("n1"), 0, -1) == [b"a.test"]
    assert r.hget(keys.totals, "queued") == b"1"
    assert r.hget(keys.revisit_state("a.test"), "rthread") == b"12345678"
    # f1 waits ten first intervals (its response sets the real one); f2 is next
    assert r.zscore(keys.revisits("a.test"), "f1") >= now + 100_000
    assert r.zscore(keys.revisit_due, "a.test") == pytest.approx(now + 10_000)
    assert v.stats() == {"revisit/promoted": 1}
    assert v.outcomes._outcomes["discovered"] == 1  # it ends in one outcome, like any URL
    v.tick()  # nothing more is due
    assert r.llen(keys.queue("a.test")) == 1


def test_only_the_owner_promotes_and_a_stale_ring_is_refused(r):
    v = _revisits(r)
    other = _revisits(r, node="n2")
    v.membership.refresh()
    now = v.frontier.now_ms()
    hosts = [f"h{i}.test" for i in range(20)]
    for host in hosts:
        v.schedule(host, "f", b"2{x}", now - 20_000, 10)
    v.flush()
    v.tick()
    mine = {h for h in hosts if v.membership.ready_key(h) == v.keys.ready("n1")}
    assert 0 < len(mine) < len(hosts)
    assert {h for h in hosts if r.llen(v.keys.queue(h))} == mine
    other.tick()
    assert all(r.llen(v.keys.queue(h)) == 1 for h in hosts)
    keys, args = SPECS["revisit"].bind(
        dict(epoch=v.keys.epoch, totals=v.keys.totals, due=v.keys.revisit_due,
             ready=v.keys.ready("n1")), dict(epoch=0, now=now, horizon=now, again=now))
    with pytest.raises(StaleEpoch):
        v.frontier.link.call("revisit", keys, args)


def test_a_run_again_pass_revisits_what_was_fetched_before_it_once(r):
    first = _revisits(r, watch=0)
    first.open(finished_at=None)
    assert not first.reading  # the crawl's first pass: nothing to compare with
    first.schedule("a.test", "f", b"2{index}", first.frontier.now_ms(), 10)
    first.tick()
    assert r.llen(first.keys.queue("a.test")) == 0
    again = _revisits(r, watch=0)
    again.open(finished_at=again.frontier.now_ms())
    assert again.reading
    again.tick()
    again.tick()
    assert r.lrange(again.keys.queue("a.test"), 0, -1) == [b"2{index}"]


def test_the_interval_adapts_within_its_bounds():
    assert next_interval(100, changed=False, low=10, high=1000) == pytest.approx(140)
    assert next_interval(100, changed=True, low=10, high=1000) == pytest.approx(80)
    assert next_interval(900, changed=False, low=10, high=1000) == 1000
    assert next_interval(11, changed=True, low=10, high=1000) == 10


def test_the_items_of_a_thread_cost_one_read(r):
    v = _revisits(r)
    v.set("a.test", b"p1", b"digest-1", bucket=b"thread-7")
    v.flush()
    fresh = _revisits(r)
    before = fresh.frontier.link.round_trips
    assert fresh.get("a.test", [b"p1"], bucket=b"thread-7") == [b"digest-1"]
    assert fresh.get("a.test", [b"p2"], bucket=b"thread-7") == [None]
    fresh.set("a.test", b"p2", b"digest-2", bucket=b"thread-7")
    assert fresh.get("a.test", [b"p2"], bucket=b"thread-7") == [b"digest-2"]
    assert fresh.frontier.link.round_trips == before + 1


def test_a_thread_read_before_sees_what_another_node_stored_since(r):
    # a host's threads move (a dead owner, work stealing): the digests another node
    # stored after this one read the thread must be seen by this one's next heartbeat
    thief, owner = _revisits(r, node="n1"), _revisits(r, node="n2")
    assert thief.get("a.test", [b"p12"], bucket=b"thread-105") == [None]
    owner.set("a.test", b"p12", b"digest-12", bucket=b"thread-105")
    owner.tick()
    thief.tick()
    assert thief.get("a.test", [b"p12"], bucket=b"thread-105") == [b"digest-12"]


class _Pipeline(RevisitPipeline):
    """RevisitPipeline on given revisit state, without a running crawl's scheduler."""

    state: Revisits | None = None

    @property
    def revisits(self) -> Revisits | None:
        return self.state


def test_an_item_digest_is_kept_only_after_the_item_stream_wrote_the_item(r):
    crawler = get_crawler()
    pipeline, sink = _Pipeline.from_crawler(crawler), RedisStreamSink(crawler)
    pipeline.state = _revisits(r)
    sink._cluster = Cluster(r, "t")
    post = Post(site="s", engine="e", thread_id="7", post_id="70", url="http://a.test/t7")
    out = sink.process_item(pipeline.process_item(post))
    crawler.signals.send_catch_log(signals.item_scraped, item=out, response=None, spider=None)
    pipeline.state.flush()  # a heartbeat before the stream's flush
    assert not r.keys("*:rvi:*")  # a crash now: the next pass emits the post again
    durability = ItemDurability(crawler, pipeline.state)
    durability.add_output(sink.flush)  # as the sink registers itself when the spider opens
    assert durability.make_durable()  # what the node does right before it sends acks
    assert r.xlen(Cluster(r, "t").keys.items) == 1
    assert r.keys("*:rvi:a.test:*")
    pipeline.state = again = _revisits(r)  # the next pass (watch mode: reading)
    with pytest.raises(DropItem):
        pipeline.process_item(post)
    assert again.stats() == {"items/dropped/unchanged": 1}


def test_a_page_taken_for_a_listing_and_then_read_as_a_thread_is_not_revisited(r):
    v = _revisits(r)
    now = v.frontier.now_ms()
    v.schedule("a.test", "page", b"2{page}", now - 20_000, 10)
    v.schedule("a.test", "board", b"2{board}", now - 20_000, 10)
    v.flush()
    v.unschedule("a.test", "page")
    v.tick()
    assert r.lrange(v.keys.queue("a.test"), 0, -1) == [b"2{board}"]
    assert r.zrange(v.keys.revisits("a.test"), 0, -1) == [b"board"]
    assert v.listed == {"board"}


def test_a_listing_unscheduled_then_scheduled_again_flushes(r):
    # the drop is taken back: nothing to delete (an HDEL without a field failed the flush,
    # and the node stalled on "Redis failing")
    v = _revisits(r)
    now = v.frontier.now_ms()
    v.unschedule("a.test", "board")
    v.schedule("a.test", "board", b"2{board}", now, 10)
    v.flush()
    assert r.zrange(v.keys.revisits("a.test"), 0, -1) == [b"board"]
