"""Pages that used to be lost: each test crawls a hand-drawn site and asserts on what the
server saw and on the recorded outcomes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from crawler.demo.server import LoopbackServer
from tests.helpers.graph_site import GraphSite, Page
from tests.helpers.nodes import COMMON

if TYPE_CHECKING:
    from tests.helpers.redis_server import RedisServer

FAST = {**COMMON, "DOWNLOAD_DELAY": 0}


@pytest.mark.slow
def test_a_url_found_too_deep_is_fetched_when_found_again_shallower(
        redis_server: RedisServer, nodes) -> None:
    # host 0 reaches host 1's /x at depth 3 (over DEPTH_LIMIT 2) long before host 1's
    # slow start page links it at depth 1
    site = GraphSite([
        {"/": Page(links=((0, "/a"),)), "/a": Page(links=((0, "/b"),)),
         "/b": Page(links=((1, "/x"),))},
        {"/": Page(links=((1, "/x"),)), "/x": Page()},
    ])
    with LoopbackServer(site, host_latency={1: 1.5}) as server:
        node = nodes("n0", [o + "/" for o in server.origins], REDIS_URL=redis_server.url,
                     DEPTH_LIMIT=2, **FAST)
        assert node.wait(60) == 0, node.output()[-3000:]
        fetched = server.recorder.fetch_counts()
    assert fetched[f"http://{server.netlocs[1]}/x"] == 1
    outcomes = node.outcomes()
    assert outcomes["filtered/depth"] == 1
    assert outcomes["fetched"] == 5


@pytest.mark.slow
def test_an_undecodable_queued_request_is_dead_lettered_and_the_rest_goes_on(
        redis_server: RedisServer, nodes) -> None:
    from scrapy import Request  # noqa: PLC0415

    from crawler.frontier.cluster import Cluster  # noqa: PLC0415

    site = GraphSite([{"/": Page(links=((0, "/a"), (0, "/b"))), "/a": Page(), "/b": Page(),
                       "/renamed": Page()}])
    client = redis_server.client()
    with LoopbackServer(site) as server:
        origin = server.origins[0]
        cluster = Cluster(client, "follow")
        client.hset(cluster.keys.control, "paused", "1")  # the node leases nothing yet
        node = nodes("n0", [origin + "/"], REDIS_URL=redis_server.url, **FAST)
        assert node.wait_for_log("Crawl paused by the operator", 60), node.output()[-3000:]
        assert server.recorder.fetch_counts() == {}, "a node joining a paused crawl leased"
        # queued by an older version of the spider, whose callback has since been renamed
        assert cluster.seed([Request(origin + "/renamed")], dont_filter=False, host_limit=0,
                            vnodes=2000).queued == 1
        queue = cluster.keys.queue(server.netlocs[0])
        [index] = [i for i, p in enumerate(client.lrange(queue, 0, -1)) if b"renamed" in p]
        # in place (LSET): an emptied queue would let the host leave its ready set
        client.lset(queue, index, b'2{"u":"' + origin.encode() + b'/renamed","callback":"old_parse"}')
        client.hdel(cluster.keys.control, "paused")
        assert node.wait(60) == 0, node.output()[-3000:]
        fetched = server.recorder.fetch_counts()
    assert set(fetched) == {origin + p for p in ("/", "/a", "/b")}
    assert node.outcomes()["failed/undecodable"] == 1
    [(_, letter)] = client.xrange(cluster.keys.dead_letters)
    assert letter[b"host"] == server.netlocs[0].encode()
    assert letter[b"reason"].startswith(b"undecodable: Method 'old_parse' not found")
    assert client.hlen(cluster.keys.leases("n0")) == 0


@pytest.mark.slow
def test_a_redirect_off_site_settles_its_lease(redis_server: RedisServer, nodes) -> None:
    site = GraphSite([{"/": Page(links=((0, "/go"), (0, "/a"))), "/a": Page(),
                       "/go": Page(status=302, location=(1, "/elsewhere"))},
                      {"/elsewhere": Page()}])
    # another host name (allowed_domains ignores ports)
    with LoopbackServer(site, addresses=[("127.0.0.1", 0), ("127.0.0.2", 0)]) as server:
        node = nodes("n0", [server.origins[0] + "/"], REDIS_URL=redis_server.url, **FAST)
        assert node.wait(60) == 0, node.output()[-3000:]
        fetched = server.recorder.fetch_counts(include_robots=True)
    assert all(server.netlocs[1] not in url for url in fetched)  # off-site: never asked
    outcomes = node.outcomes()
    assert outcomes["fetched/302"] == 1
    assert outcomes["fetched"] == 3
    assert outcomes["failed"] == 0
    assert node.stats().get("frontier/lease_leaked", 0) == 0
