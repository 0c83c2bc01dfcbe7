"""Watch mode on two nodes: the crawl never finishes, listings are revisited, and when the
host's owner is killed mid-revisit the other node takes the host and its revisits over."""

from __future__ import annotations

import json
import re
import signal
import threading
from typing import TYPE_CHECKING

import pytest

from crawler.frontier.cluster import Cluster
from crawler.frontier.keys import Keys
from crawler.frontier.ring import Ring
from crawler.settings_defaults import DEFAULTS
from tests.helpers.changing_forum import ChangingForum, version1
from tests.helpers.nodes import COMMON
from tests.helpers.ops import wait_until
from tests.sitekit.faulty import FaultyServer

if TYPE_CHECKING:
    from tests.helpers.redis_server import RedisServer

WATCH = {**COMMON, "DOWNLOAD_DELAY": 0, "CRAWLER_WATCH": 1, "CRAWLER_ITEMS_STREAM": True,
         "CRAWLER_PROGRESS_INTERVAL": 1}
NEW = {"99900", "99901", "20350", "20351", "10550", "10050"}


@pytest.mark.slow
def test_new_posts_appear_after_the_owner_dies_mid_revisit(redis_server: RedisServer,
                                                           nodes) -> None:
    site, client = ChangingForum(), redis_server.client()
    keys = Keys("phpbb")
    stream = keys.items
    first_pass_items = sum(1 + len(t.posts) for board in version1() for t in board.threads)

    def posts() -> set[str]:
        items = [json.loads(f[b"item"]) for _, f in client.xrange(stream)]
        return {i.get("post_id") + ("+" if i.get("revision") else "") for i in items
                if i.get("post_id")}

    def digests() -> int:
        """Item digests in Redis, one per thread or post (crawler.incremental)."""
        return sum(client.hlen(key) for key in client.scan_iter(match=f"{keys.prefix}:rvi:*"))

    requested, owner_dead = threading.Event(), threading.Event()

    def hold_first_revisit(target: str, hit: int) -> None:
        # the first request of version 2 stays in flight until its node is dead
        if site.version == 2 and not requested.is_set():
            requested.set()
            owner_dead.wait(60)

    with FaultyServer(site, faults={0: hold_first_revisit}) as server:
        url = server.origins[0] + site.start
        cluster = {name: nodes(name, [url], spider="phpbb", REDIS_URL=redis_server.url, **WATCH)
                   for name in ("w0", "w1")}
        wait_until(lambda: client.zcard(Keys("phpbb").members) == 2, 30, what="both nodes")
        owner = Ring({"w0": 1, "w1": 1}, DEFAULTS["CRAWLER_RING_VNODES"]).owner(server.netlocs[0])
        survivor = cluster["w1" if owner == "w0" else "w0"]
        # the whole forum once, and the index revisited (304) while the crawl goes on
        wait_until(lambda: server.recorder.fetch_counts().keys() >= {
            server.origins[0] + t for t in site.versions[1]}, 60, what="the first pass")
        wait_until(lambda: any(r.status == 304 for r in server.recorder.requests), 30,
                   what="a revisit answered 304")
        assert not NEW & posts() and "10512+" not in posts()
        # what the first pass stored reached Redis: a node keeps its item digests (and a
        # thread's last page) until its next heartbeat, and one killed before it loses them
        # (its items come out again as new, an edited one without its revision)
        wait_until(lambda: digests() >= first_pass_items, 30, what="the first pass's item digests")
        site.version = 2
        assert requested.wait(30), "no revisit of version 2"
        cluster[owner].kill()  # mid-revisit: its request is in flight
        cluster[owner].wait(10)
        held = len(server.recorder.requests)
        owner_dead.set()  # the held request is answered (to no one) and recorded
        wait_until(lambda: len(server.recorder.requests) > held, 10, what="the held request")
        killed_at = held + 1
        wait_until(lambda: NEW | {"10512+"} <= posts(), 60,
                   what="the new and edited posts from the surviving node")
        # the dead owner's host, and its revisits, went on at the survivor
        wait_until(lambda: any(r.status == 304 for r in server.recorder.requests[killed_at:]),
                   30, what="the survivor's revisits")
        assert survivor.process.poll() is None, "watch mode finished"
        revisits = Cluster(client, "phpbb").status(node_timeout=3)["revisits"]
        assert revisits["hosts"] == 1 and revisits["next_due_in_s"] is not None
        # the progress line (every second) tells of the revisits
        wait_until(lambda: re.search(r"Progress: .*; revisits \d+ \(\d+ not modified\)",
                                     survivor.output()), 10, what="a progress line with revisits")
        survivor.signal(signal.SIGTERM)
        assert survivor.wait(30) == 0, survivor.output()[-3000:]
    stats = survivor.stats()
    assert stats["finish_reason"] == "shutdown"
    assert stats.get("revisit/listings", 0) > 0
    assert "revisit/next_due" in stats
