"""A learned site template is cluster state: stored in Redis per host, read by the node that
takes the host over, which then reads the site without learning it again (issue 11)."""

from __future__ import annotations

import json
import re
import signal
from collections import Counter

import pytest

from tests.sitekit.site import SiteServer
from crawler.learn.template import Template
from crawler.frontier.cluster import Cluster
from tests.helpers.nodes import COMMON
from tests.helpers.ops import wait_until

pytestmark = pytest.mark.slow

POSTS_PER_PAGE = 6


def items(node) -> list[dict]:
    return [json.loads(line) for line in node.feed_path.read_text().splitlines() if line] \
        if node.feed_path.exists() else []


def test_a_node_taking_a_host_over_reads_it_with_the_stored_template(redis_server, nodes):
    site = SiteServer(hosts=1, pages_per_host=40, cross_links=False, posts_per_page=POSTS_PER_PAGE,
                      latency=0.01)
    thread_pages = [p for _, p in site.content.expected_paths() if p.startswith("/thread/")]
    threads = {re.match(r"/thread/(\d+)", p).group(1) for p in thread_pages}  # type: ignore[union-attr]
    settings = {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": 0.25}
    templates = Cluster(redis_server.client(), "forum").templates
    with site:
        host = site.netlocs[0]
        first = nodes("crawler-a", site.base_urls, spider="forum", **settings)
        stored = wait_until(lambda: templates.get(host), 120, what="a template stored in Redis")
        assert Template.from_json(stored).host == host
        second = nodes("crawler-b", site.base_urls, spider="forum", **settings)
        assert second.wait_for_log("joined the ring", 60), second.output()[-2000:]
        first.signal(signal.SIGTERM)  # hands its hosts to crawler-b at once
        assert first.wait(60) == 0, first.output()[-3000:]
        assert second.wait(180) == 0, second.output()[-3000:]
        fetched = site.fetch_counts()
    # thread pages seen while learning are fetched once more, to be read with the template
    assert max(fetched.values()) <= 2
    b_stats = second.stats()
    assert b_stats.get("learn/templates_loaded") == 1, b_stats
    assert not b_stats.get("learn/learned") and "Learned a template" not in second.output()
    assert first.stats().get("learn/templates_stored", 0) >= 1
    read_by_b = [i for i in items(second) if i["item_type"] == "post"]
    assert read_by_b, "crawler-b read no thread page"
    everything = items(first) + items(second)
    assert len({i["thread_id"] for i in everything if i["item_type"] == "thread"}) == len(threads)
    # every post exactly once over both nodes: a thread page is read with the template once
    # (first pages seen while learning are refetched, later pages only by the walk from them)
    posts = Counter((p["thread_id"], p["position"]) for p in everything if p["item_type"] == "post")
    assert len(posts) == len(thread_pages) * POSTS_PER_PAGE and max(posts.values()) == 1, \
        {k: n for k, n in posts.items() if n > 1}
    ids = Counter((p["thread_id"], p["post_id"]) for p in everything if p["item_type"] == "post")
    assert max(ids.values()) == 1
