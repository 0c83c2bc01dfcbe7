"""Request.priority within a host's queue (refill.lua's priority levels), against Redis."""

from __future__ import annotations

import pytest
from scrapy import Request

from crawler.frontier import codec
from crawler.frontier.bloom import QUEUE_LAYOUT, BloomLayoutError
from crawler.frontier.frontier import HANDED_BACK, Ack, Pending
from tests.helpers.frontier import lease, make_frontier, ready_of


def _payload(number: int, priority: int = 0) -> bytes:
    return codec.encode(Request(f"https://a.test/{number}", priority=priority), None, "a.test")


def _numbers(leased) -> list[int]:
    return [int(codec.decode(x.payload, None, x.host).url.rsplit("/", 1)[1]) for x in leased]


def _push(f, epoch, *numbered):
    pushes = [Pending("a.test", f"{n:040x}", _payload(n, p)) for n, p in numbered]
    f.flush(pushes, [], epoch, ready_of("n1"))


def _drain(f, epoch) -> list[int]:
    """Lease and ack one request at a time until the host's queues are empty."""
    order = []
    while True:
        leased, _ = lease(f, 1, epoch)
        if not leased:
            return order
        order += _numbers(leased)
        f.flush([], [Ack(x.lease_id, x.host, f.now_ms()) for x in leased], epoch,
                ready_of("n1"))


def test_higher_priorities_are_leased_first_fifo_within_a_level(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _push(f, epoch, (1, 0), (2, 1), (3, -1), (4, 0), (5, 1), (6, 7))
    _push(f, epoch, (7, 1), (8, 0))  # a later batch: behind its level, ahead of lower ones
    assert r.hget(f.keys.host("a.test"), "P") == b"7,1,-1"
    assert r.hget(f.keys.totals, "queued") == b"8"
    assert _drain(f, epoch) == [6, 2, 5, 7, 1, 4, 8, 3]
    # every level's queue is gone, and the host left the ready set with its last request
    assert r.hget(f.keys.host("a.test"), "P") == b""
    assert not r.keys("*:q*:a.test") and r.zcard(f.keys.ready("n1")) == 0
    assert f.work_left() == 0


def test_a_batch_spans_levels_and_hands_back_to_the_head_of_each(r):
    f = make_frontier(r, host_batch=3)
    epoch = f.join(1)
    _push(f, epoch, (1, 0), (2, 0), (3, 2), (4, 2))
    batch, _ = lease(f, 5, epoch)
    assert _numbers(batch) == [3, 4, 1]
    # 3 answered 503: 4 and 1 go back unstarted, each to the head of its own level
    done = f.now_ms()
    acks = [Ack(batch[0].lease_id, "a.test", done, 1),
            *(Ack(x.lease_id, "a.test", HANDED_BACK) for x in batch[1:])]
    f.flush([], acks, epoch, ready_of("n1"))
    assert r.hget(f.keys.host("a.test"), "P") == b"2"
    assert r.lrange(f"{f.keys.prefix}:q2:a.test", 0, -1) == [_payload(4, 2)]
    assert r.lrange(f.keys.queue("a.test"), 0, -1) == [_payload(1), _payload(2)]
    r.hset(f.keys.host("a.test"), "t", 0)  # its backoff is over
    r.zadd(f.keys.ready("n1"), {"a.test": 0})
    assert _numbers(lease(f, 5, epoch)[0]) == [4, 1, 2]


def test_a_host_s_only_prioritised_work_keeps_it_announced_once(r):
    f = make_frontier(r)
    epoch = f.join(1)
    _push(f, epoch, (1, 3))
    assert r.zcard(f.keys.ready("n1")) == 1
    _push(f, epoch, (2, 0))  # its main queue was empty, but the host was not
    assert r.zcard(f.keys.ready("n1")) == 1
    assert _drain(f, epoch) == [1, 2]


def test_a_priority_survives_the_queue():
    request = Request("https://a.test/x", priority=-2, meta={"k": 1})
    payload = codec.encode(request, None, "a.test")
    assert payload.startswith(b"!-2|")
    back = codec.decode(b"@1|" + payload, None, "a.test")  # reclaimed once, as well
    assert (back.url, back.priority, back.meta) == (request.url, -2, {"k": 1})


def test_the_queue_layout_is_recorded_and_an_unknown_one_refused_in_one_line(r):
    f = make_frontier(r)
    assert r.hget(f.keys.bloom, "queues") == str(QUEUE_LAYOUT).encode()
    # a crawl of layout 1 (FIFO only: no field) is read as it is
    r.hdel(f.keys.bloom, "queues")
    make_frontier(r)
    # a layout this version does not know is refused, and left as it was
    r.hset(f.keys.bloom, "queues", "9")
    with pytest.raises(BloomLayoutError, match=r"^this crawl's queues .*queues=9.*CRAWL_ID\)$"):
        make_frontier(r)
    assert r.hget(f.keys.bloom, "queues") == b"9"


def test_a_slot_of_its_own_is_queued_apart_but_scrapy_s_default_slot_is_not():
    from crawler.frontier.keys import queue_host

    assert queue_host(Request("http://a.test:8080/x")) == "a.test:8080"
    # the downloader's own key (the host name), kept by a retry: the host's queue
    assert queue_host(Request("http://a.test:8080/x", meta={"download_slot": "a.test"})) \
        == "a.test:8080"
    assert queue_host(Request("http://a.test:8080/x", meta={"download_slot": "s1"})) \
        == "a.test:8080#s1"


def test_a_url_with_a_userinfo_is_the_same_host_as_without():
    from crawler.frontier.keys import host_of, queue_host

    # one server, one politeness gate and one owner, whatever user name a link carries
    for url in ("http://alice@a.test:8080/x", "http://alice:pw@A.test:8080/y"):
        assert host_of(Request(url)) == queue_host(Request(url)) == "a.test:8080"
