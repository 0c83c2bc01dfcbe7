"""Two nodes on one crawl (a shared Redis) write one archive: each its own files, every
fetch once across them, and one digest index in the crawl's Redis."""

from __future__ import annotations

from collections import Counter

import pytest

from crawler.frontier.keys import Keys
from crawler.settings_defaults import DEFAULTS
from tests.archive.warcs import read, sha1_b32
from tests.helpers.nodes import COMMON, split_names
from tests.sitekit.site import SiteServer

pytestmark = pytest.mark.slow


def test_two_nodes_write_their_own_files_and_share_the_digest_index(redis_server, nodes,
                                                                    tmp_path):
    warc_dir = tmp_path / "warc"
    # no stealing: a node that sees the pause lifted later than the other (a loaded machine)
    # would find its hosts taken, and write no file (seen once at load 9)
    settings = {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": 0,
                "CRAWLER_WARC_DIR": warc_dir, "CRAWLER_STEAL_AFTER": 60}
    with SiteServer(hosts=6, pages_per_host=12, latency=0.01, seed=21) as site:
        # names the ring gives hosts each, paused until both have joined: a node alone in
        # the ring owns every host, and one node's start-up can outlast this small crawl
        hosts = [u.split("/")[2] for u in site.base_urls]
        names = split_names(hosts, DEFAULTS["CRAWLER_RING_VNODES"], prefix="archiver")
        control = Keys("follow").control
        redis_server.client().hset(control, "paused", "1")
        cluster = [nodes(name, site.base_urls, **settings) for name in names]
        for node in cluster:
            assert node.wait_for_log("joined the ring", 120), node.output()[-3000:]
        redis_server.client().hdel(control, "paused")
        assert [n.wait(120) for n in cluster] == [0, 0], cluster[0].output()[-3000:]
        fetched = site.fetch_counts(include_robots=True)
    files = sorted(warc_dir.glob("*.warc.gz"))
    writers = {n for n in names if any(f"-{n}-" in f.name for f in files)}
    assert writers == set(names), [f.name for f in files]  # both nodes archived
    records = [r for f in files for r in read(f)]
    responses = [r for r in records if r.type in ("response", "revisit")]
    assert Counter(r.uri for r in responses) == fetched  # every fetch once, across nodes
    index = redis_server.client().hgetall(Keys("follow").warc_digests)
    stored = {k.decode(): v.decode().split(" ", 1) for k, v in index.items()}
    full: dict[str, list] = {}
    for r in responses:
        if r.type == "response" and r.payload:
            full.setdefault(r.uri, []).append(r)
    assert set(stored) == set(full)
    for uri, (digest, date) in stored.items():
        # a URL both nodes fetch (each node reads a host's robots.txt) may have two full
        # captures, when neither node had stored its digest before the other looked it up:
        # the index holds the one stored last
        capture = next((r for r in full[uri] if r.headers["WARC-Date"] == date), None)
        assert capture is not None, (uri, date, [r.headers["WARC-Date"] for r in full[uri]])
        assert digest == sha1_b32(capture.payload) == capture.headers["WARC-Payload-Digest"]
