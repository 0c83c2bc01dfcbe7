"""A node's own troubles: a failed operator drain, being cut off from Redis, absurd
robots.txt delays. Real Redis, real HTTP servers; assertions on what they saw."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pytest

from crawler.demo.server import LoopbackServer
from crawler.frontier.keys import Keys
from tests.helpers.crawl import run_crawl
from tests.helpers.graph_site import GraphSite, Page
from tests.helpers.nodes import COMMON
from tests.helpers.ops import wait_until
from tests.sitekit.site import SiteServer

if TYPE_CHECKING:
    from tests.helpers.redis_server import RedisServer

pytestmark = pytest.mark.slow


def test_a_drain_that_failed_is_tried_again(redis_server: RedisServer, nodes) -> None:
    keys = Keys("follow")
    client = redis_server.client()
    with SiteServer(hosts=2, pages_per_host=40, latency=0.2, seed=71) as site:
        node = nodes("n0", site.base_urls, REDIS_URL=redis_server.url,
                     **{**COMMON, "DOWNLOAD_DELAY": 0.05})
        wait_until(lambda: client.hget(keys.weights, "n0") == b"1", 30, what="the join")
        # mid-crawl, not while the node still starts (a broken key then stops the start)
        assert site.wait_fetched(1, timeout=60)
        # the drain's own writes fail (WRONGTYPE) while the heartbeat that reads the
        # operator's switch still works
        weights = client.hgetall(keys.weights)
        client.delete(keys.weights)
        client.set(keys.weights, "broken")
        client.hset(keys.control, "drain:n0", "1")
        wait_until(lambda: "WRONGTYPE" in node.output(), 30, what="the drain to fail")
        client.delete(keys.weights)
        client.hset(keys.weights, mapping=weights)
        wait_until(lambda: client.hget(keys.weights, "n0") == b"0", 30,
                   what="the drain to be tried again")
        # the line is logged just after the drain's writes: awaited, not assumed
        assert node.wait_for_log("Draining node n0", 30), node.output()[-3000:]


def test_a_node_cut_off_from_redis_starts_no_lease_after_its_node_timeout(
        redis_server: RedisServer, nodes) -> None:
    timeout, latency = 3.0, 1.0
    with SiteServer(hosts=12, pages_per_host=20, latency=latency, seed=72) as site:
        # a deep local buffer of leased requests, started two at a time
        nodes("n0", site.base_urls, REDIS_URL=redis_server.url,
              **{**COMMON, "DOWNLOAD_DELAY": 0, "CONCURRENT_REQUESTS": 2, "CRAWLER_PREFETCH": 16,
                 "CRAWLER_NODE_TIMEOUT": timeout, "CRAWLER_REDIS_SOCKET_TIMEOUT": 0.5})
        assert site.wait_fetched(14, timeout=60)
        redis_server.pause()
        try:
            stalled_at = time.monotonic()
            time.sleep(timeout + 5 * latency)  # the length of the fault, not a synchronisation
            starts = [r.start for r in site.requests if not r.is_robots]
        finally:
            redis_server.resume()
    late = [s - stalled_at for s in starts if s > stalled_at + timeout + latency]
    assert late == [], "leased requests started after the node timeout"


def test_a_huge_crawl_delay_is_capped_and_waited_in_the_frontier(
        redis_server: RedisServer, nodes) -> None:
    site = GraphSite([{"/": Page(links=((0, "/a"),)), "/a": Page(links=((0, "/b"),)),
                       "/b": Page()}], robots="User-agent: *\nCrawl-delay: 1e10\n")
    with LoopbackServer(site) as server:
        node = nodes("n0", [server.origins[0] + "/"], REDIS_URL=redis_server.url,
                     **{**COMMON, "DOWNLOAD_DELAY": 0, "CRAWLER_BACKOFF_BASE": 0.5,
                        "CRAWLER_BACKOFF_MAX": 1.5})
        assert node.wait(60) == 0, node.output()[-3000:]
        requests = server.recorder.requests
    pages = [r for r in requests if not r.is_robots]
    assert [r.path for r in pages] == ["/", "/a", "/b"]
    robots = next(r for r in requests if r.is_robots)
    starts = [robots.start] + [r.start for r in pages]
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    assert all(1.4 <= gap < 5 for gap in gaps), gaps  # Crawl-delay capped at 1.5 s
    assert "capped at CRAWLER_BACKOFF_MAX" in node.output()


def test_a_lone_node_whose_reactor_stalls_past_its_node_timeout_still_finishes(tmp_path) -> None:
    # The node drops its unstarted leases at the cut-off; no other node will declare it dead
    # and requeue them, so its next heartbeat must (they stranded the crawl for good).
    with SiteServer(hosts=4, pages_per_host=12, seed=73) as site:
        result = run_crawl("follow", ",".join(site.base_urls), tmp_path / "out.jl", settings={
            "CRAWLER_NODE_TIMEOUT": "1", "CRAWLER_HEARTBEAT_INTERVAL": "0.1",
            "SPIDER_MIDDLEWARES": '{"tests.helpers.stall.StallOnce": 10}',
            "STALL_AT_RESPONSE": "6", "STALL_SECONDS": "2.5"}, timeout=90)
        fetched = {r.url for r in site.requests if not r.is_robots}
        expected = site.expected_urls()
    assert result.stats.get("frontier/cut_off", 0) >= 1, "the stall did not outlast the node timeout"
    assert expected <= fetched, f"{len(expected - fetched)} pages never fetched"
