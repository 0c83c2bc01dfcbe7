"""Host batches against a SIGKILL and a pause: real node processes, a real Redis, a real
site on 127.0.0.1 that records every request; assertions on what the server saw.

- A node killed mid-batch: the pages fetched twice afterwards are at most those in flight
  at the kill plus a heartbeat's worth of settled ones (the acks of a batch's settled
  requests go every heartbeat, not only when the whole batch is done).
- ``pause``: held batches stop too; their unstarted requests go back to the queues.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from crawler.demo.server import LoopbackServer
from crawler.frontier.keys import Keys
from tests.helpers.graph_site import GraphSite, Page
from tests.helpers.nodes import COMMON
from tests.helpers.ops import cli, wait_until

if TYPE_CHECKING:
    from tests.helpers.redis_server import RedisServer

pytestmark = pytest.mark.slow

HEARTBEAT = COMMON["CRAWLER_HEARTBEAT_INTERVAL"]
DELAY = 0.5  # a batch of 8 takes 4 s: many heartbeats
PAGES = 20
SLACK = 1.0  # s: the callback, the flush, a late heartbeat on a loaded machine


def star_site(hosts: int) -> GraphSite:
    """Per host, a start page linking PAGES leaves: its first batch is the start page
    alone, then /p1-/p8, /p9-/p16... in order."""
    return GraphSite([{"/": Page(links=tuple((h, f"/p{i}") for i in range(1, PAGES + 1))),
                       **{f"/p{i}": Page() for i in range(1, PAGES + 1)}}
                      for h in range(hosts)])


def serve(hosts: int) -> LoopbackServer:
    """The site on 127.0.0.1, 127.0.0.2...: one address per host, so that each host is a
    downloader slot of its own in Scrapy too (slots go by host name, not port)."""
    return LoopbackServer(star_site(hosts), latency=0.02,
                          addresses=[(f"127.0.0.{h + 1}", 0) for h in range(hosts)])


def pages_served(server: LoopbackServer, host: int) -> int:
    return sum(1 for r in server.recorder.requests
               if r.host == host and r.path.startswith("/p"))


def test_a_sigkill_mid_batch_refetches_only_a_heartbeat_of_settled_pages(
        redis_server: RedisServer, nodes) -> None:
    settings = {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": DELAY,
                "CRAWLER_HOST_BATCH": 8}
    with serve(3) as server:
        starts = [o + "/" for o in server.origins]
        victim = nodes("crawler-0", starts, **settings)
        # host 0 deep in its batch /p1-/p8: five of its pages settled, the oldest seconds ago
        wait_until(lambda: pages_served(server, 0) >= 6, 120, interval=0.02,
                   what="host 0's sixth page")
        killed_at = time.monotonic()
        victim.kill()
        victim.wait(10)
        survivor = nodes("crawler-1", starts, **settings)
        assert survivor.wait(180) == 0, survivor.output()[-3000:]
        requests = [r for r in server.recorder.requests if not r.is_robots]
    counts = Counter(r.url for r in requests)
    expected = {f"{o}/p{i}" for o in server.origins for i in range(1, PAGES + 1)} \
        | {o + "/" for o in server.origins}
    assert expected - set(counts) == set(), "pages lost with the killed node"
    first = {}
    for r in sorted(requests, key=lambda r: r.start):
        first.setdefault(r.url, r)
    twice = [first[url] for url, n in counts.items() if n > 1]
    in_flight = [r for r in twice if r.end >= killed_at]
    # settled (response in, callback done) then acked at the next heartbeat: a page is
    # fetched again only if its response came within a heartbeat (and the slack) of the kill
    too_old = sorted((round(killed_at - r.end, 2), r.url) for r in twice
                     if r.end < killed_at - HEARTBEAT - SLACK)
    print(f"fetched twice: {len(twice)} ({len(in_flight)} in flight at the kill), per host "
          f"{dict(Counter(urlsplit(r.url).netloc for r in twice))}")
    assert too_old == [], f"settled pages fetched twice (s before the kill, url): {too_old}"
    # per host: its one request in flight, and what a heartbeat (and the slack) settles
    per_host = Counter(urlsplit(r.url).netloc for r in twice)
    assert max(per_host.values(), default=0) <= 1 + int((HEARTBEAT + SLACK) / DELAY), per_host


def test_pause_stops_held_batches_and_hands_their_requests_back(
        redis_server: RedisServer, nodes) -> None:
    settings = {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": DELAY,
                "CRAWLER_HOST_BATCH": 8}
    client = redis_server.client()
    keys = Keys("follow")
    with serve(3) as server:
        node = nodes("crawler-0", [o + "/" for o in server.origins], **settings)
        # every host is in its batch /p1-/p8 (held by the node, most of it unstarted)
        wait_until(lambda: all(pages_served(server, h) >= 2 for h in range(3)), 120,
                   interval=0.02, what="every host's batch under way")
        paused = cli("pause", "--redis-url", redis_server.url)
        returned_at = time.monotonic()
        assert paused.returncode == 0, paused.stderr
        assert "Crawl paused by the operator" in node.output()
        # its unstarted requests are back in the queues: nothing stays leased once the
        # acks of the requests done before the pause returned are sent
        wait_until(lambda: client.hlen(keys.leases("crawler-0")) == 0, 6.0,
                   interval=0.02, what="the held batches handed back")
        before = len(server.recorder.requests)
        time.sleep(4 * DELAY)  # the length of the pause observed, not a synchronisation
        assert len(server.recorder.requests) == before
        after = [(round(r.start - returned_at, 2), r.url) for r in server.recorder.requests
                 if r.start > returned_at]
        assert after == [], f"requests started after pause returned (s after): {after}"
        queued = sum(client.llen(keys.queue(n)) for n in server.netlocs)
        assert queued > 0, "the handed-back requests are not queued"
        assert "handed back" in node.output()

        resumed = cli("resume", "--redis-url", redis_server.url)
        assert resumed.returncode == 0, resumed.stderr
        assert node.wait(120) == 0, node.output()[-3000:]
        counts = server.recorder.fetch_counts()
    expected = {f"{o}/p{i}" for o in server.origins for i in range(1, PAGES + 1)} \
        | {o + "/" for o in server.origins}
    assert expected - set(counts) == set(), "handed-back pages lost"
    assert {u: c for u, c in counts.items() if c > 1} == {}, "pages fetched twice"
