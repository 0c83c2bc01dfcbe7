"""Scrapy's scheduler semantics kept by ours (issue 28): priorities, the lazy start's
``scheduler_empty``, requests that cannot be queued as JSON, ``dont_filter`` start
requests, ``DUPEFILTER_CLASS`` and Scrapy's stats names. Each crawl runs the scheduler
alone (no add-on) on a real Redis (tests/helpers/dropin_run.py)."""

from __future__ import annotations

import json
import socket
from typing import TYPE_CHECKING, Any

import pytest

from tests.helpers import ROOT, forked

if TYPE_CHECKING:
    from tests.helpers.redis_server import RedisServer


def run(scenario: str, redis_server: RedisServer, port: int = 0) -> dict[str, Any]:
    done = forked.run("tests.helpers.dropin_run", [scenario, redis_server.url, str(port)],
                      cwd=ROOT, timeout=90)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_priorities_and_callback_requests_come_first(redis_server: RedisServer) -> None:
    """Scrapy's TestRequestSendOrder::test_default: priority 1 before 0, and at equal
    priority, requests in the order they were queued."""
    result = run("send_order", redis_server)
    assert result["order"] == ["1", "2", "3", "4", "5", "6"], result
    stats = result["stats"]
    assert stats["scheduler/enqueued"] == 6 and stats["scheduler/dequeued"] == 6, stats


def test_scheduler_empty_waits_for_the_requests_the_node_holds(
        redis_server: RedisServer) -> None:
    """Scrapy's lazy start: start() yields its next request on scheduler_empty; a
    request still on its way to Redis and back is not 'empty'."""
    result = run("lazy", redis_server)
    assert result["order"] == ["1", "2", "3", "4"], result


def test_requests_that_are_not_json_are_crawled_from_memory(redis_server: RedisServer) -> None:
    result = run("unserializable", redis_server)
    assert sorted(result["order"]) == ["1", "2", "3"], result
    assert result["visited"] == 3  # a plain function's callback ran too
    stats = result["stats"]
    assert stats["scheduler/unserializable"] == 3 == stats["scheduler/enqueued/memory"]
    assert stats["frontier/unserializable"] == 3 == stats["scheduler/dequeued/memory"]
    assert result["reason"] == "finished"


def test_dont_filter_start_requests_are_kept_in_a_fresh_crawl_only(
        redis_server: RedisServer) -> None:
    with socket.socket() as probe:  # a free port, for the same URLs in both runs
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    fresh = run("start_dupes", redis_server, port)
    assert fresh["visited"] == 6, fresh
    # the same crawl resumed (its Bloom filter is not empty): start URLs seen before are
    # not fetched again, though dont_filter, or every run would fetch them for ever
    resumed = run("start_dupes", redis_server, port)
    assert resumed["visited"] == 0, resumed


def test_start_requests_without_dont_filter_are_deduplicated(
        redis_server: RedisServer) -> None:
    result = run("start_dupes_filtered", redis_server)
    assert result["visited"] == 2, result


def test_a_dupefilter_class_of_the_project_s_own_is_used_as_scrapy_uses_it(
        redis_server: RedisServer) -> None:
    result = run("own_dupefilter", redis_server)
    # request_seen decides (node-local: 'a' twice is not its business), log counts
    assert sorted(result["order"]) == ["a", "a", "c"], result
    assert result["stats"]["seen_skip/filtered"] == 1
    assert result["dupefilter"] == [1, 1]  # opened and closed once


def test_download_slot_delays_compose_with_the_host_gate(redis_server: RedisServer) -> None:
    """Scrapy's test_downloaderslotssettings::test_delay: each slot's requests are spaced
    by its own delay (DOWNLOAD_SLOTS), the host's by DOWNLOAD_DELAY; the gate neither
    adds its delay to a slot's nor makes the slots of one host wait for each other."""
    # Timed at the server. Each slot's second request is made when its first response is
    # parsed; the scheduler may start it no sooner than the slot's delay after the first
    # (every run), and should add nothing on top ("lag": a gate that stacked its delay on
    # the slot's would add 0.5 s every time). A loaded machine can stall a run for seconds,
    # so the lag is judged on the best of three runs; the spacing on every run.
    lags = []
    for _ in range(3):
        result = run("slots", redis_server)
        arrived = result["arrivals"]
        lag = {}
        for slot, delay in (("a", 1.0), ("b", 1.5), ("host", 0.5)):
            first, = arrived["/None" if slot == "host" else f"/{slot}"]
            second, = arrived[f"/{slot}/2"]
            assert second - first > delay - 0.02, (slot, second - first)
            lag[slot] = second - max(first + delay, result["yielded"][slot])
        lags.append(lag)
        if max(lag.values()) < 0.3:
            return
    pytest.fail(f"a slot's requests were spaced by more than its delay in 3 runs: {lags}")
