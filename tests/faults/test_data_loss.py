"""Pages that used to be lost: each test crawls a hand-drawn site and asserts on what the
server saw and on the recorded outcomes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from crawler.testing.server import LoopbackServer
from tests.helpers.graph_site import GraphSite, Page
from tests.helpers.nodes import COMMON

if TYPE_CHECKING:
    from crawler.testing.redis_server import RedisServer

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
