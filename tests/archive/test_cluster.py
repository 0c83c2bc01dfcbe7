"""Two nodes on one crawl (a shared Redis) write one archive: each its own files, every
fetch once across them, and one digest index in the crawl's Redis."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.sitekit.site import SiteServer
from crawler.frontier.keys import Keys
from tests.archive.warcs import read, sha1_b32
from tests.helpers.nodes import COMMON

pytestmark = pytest.mark.slow


def test_two_nodes_write_their_own_files_and_share_the_digest_index(redis_server, nodes,
                                                                    tmp_path):
    warc_dir = tmp_path / "warc"
    settings = {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": 0,
                "CRAWLER_WARC_DIR": warc_dir}
    with SiteServer(hosts=6, pages_per_host=12, latency=0.01, seed=21) as site:
        cluster = [nodes(f"archiver-{i}", site.base_urls, **settings) for i in range(2)]
        assert [n.wait(120) for n in cluster] == [0, 0], cluster[0].output()[-3000:]
        fetched = site.fetch_counts(include_robots=True)
    files = sorted(warc_dir.glob("*.warc.gz"))
    writers = {f.name.split("-archiver-")[1][0] for f in files}
    assert writers == {"0", "1"}, [f.name for f in files]  # both nodes archived
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
