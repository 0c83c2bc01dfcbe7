"""A fresh crawl of one site started on two nodes at once fetches its start page once.

The one-site spiders (``forum``, ``blog``, ``wordpress``) send their start request with
``dont_filter``. When two nodes both found the crawl's Bloom filter empty (a fresh crawl),
each queued the start request, and the start page was fetched twice. Two node processes,
one real Redis, a real phpBB-like forum on 127.0.0.1.

Redis holds every write (``CLIENT PAUSE WRITE``) until both nodes wait on it, so both
start at the same moment. Both then usually read the empty filter before either queues its
start request, but not always (a node may be slower off the mark on a loaded machine): a
run where one node resumed instead proves nothing and is run again.
"""

from __future__ import annotations

import pytest

from crawler.demo.server import LoopbackServer
from tests.helpers.changing_forum import ChangingForum
from tests.helpers.nodes import COMMON
from tests.helpers.ops import wait_until

pytestmark = pytest.mark.slow

ATTEMPTS = 5


def test_two_nodes_starting_a_fresh_crawl_fetch_its_start_page_once(redis_server, nodes):
    client = redis_server.client()
    site = ChangingForum()
    for attempt in range(ATTEMPTS):
        client.flushall()
        with LoopbackServer(site) as server:
            start = server.origins[0] + site.start
            settings = {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": 0.05,
                        "CRAWLER_REDIS_SOCKET_TIMEOUT": 60}
            client.client_pause(60_000, all=False)  # writes wait, the nodes' first one too
            try:
                cluster = [nodes(f"run{attempt}-crawler-{i}", [start], "forum", **settings)
                           for i in range(2)]
                wait_until(lambda: client.info("clients")["blocked_clients"] >= 2, 60,
                           what="both nodes waiting on Redis")
            finally:
                client.client_unpause()
            assert [n.wait(120) for n in cluster] == [0, 0], cluster[0].output()[-3000:]
            counts = server.recorder.fetch_counts()
        if all("Starting a new crawl" in node.output() for node in cluster):
            break  # both started the crawl on its empty filter
    else:
        pytest.fail(f"in {ATTEMPTS} runs, the nodes never both started on the empty filter")
    assert counts[start] == 1, counts
    assert {u: c for u, c in counts.items() if c > 1} == {}, "pages fetched twice"
    assert len(counts) == site.pages(1), "pages never fetched"
    for node in cluster:
        assert "Traceback" not in node.output()
    items = [url for node in cluster for url in node.pages()]
    assert len(items) == len(set(items)), "items emitted twice"
