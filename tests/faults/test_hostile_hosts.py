"""Misbehaving hosts against two nodes: 429 with Retry-After, 503s, stalls past the
download timeout. Asserted from the server's side."""

from __future__ import annotations

import zlib
from collections import Counter

import pytest

from tests.helpers.nodes import COMMON, cluster_outcomes
from tests.sitekit.site import SiteServer

pytestmark = pytest.mark.slow

RETRY_AFTER = 3
CLOCK_ERROR = 0.01


def too_many_requests(path: str, hit: int):
    # the first visit of some board and thread pages is refused, with Retry-After
    if hit == 0 and path in ("/board/1", "/thread/2", "/thread/3/page/2"):
        return 429, {"Retry-After": str(RETRY_AFTER)}, b"slow down"
    return None


def flaky(path: str, hit: int):
    if hit == 0 and zlib.crc32(path.encode()) % 5 == 0:  # about 20% of pages, once
        return 503, {}, b"try later"
    return None


def stalling(site_ref: list[SiteServer]):
    def fault(path: str, hit: int):
        if hit == 0 and path in ("/board/2", "/thread/1"):
            site_ref[0].stopping.wait(2.5)  # past DOWNLOAD_TIMEOUT
        return None
    return fault


def max_overlap(records) -> int:
    events = sorted([(r.start, 1, r.host) for r in records] + [(r.end, -1, r.host) for r in records])
    current: Counter[int] = Counter()
    peak = 0
    for _, step, host in events:
        current[host] += step
        peak = max(peak, current[host])
    return peak


def test_hostile_hosts_back_off_and_every_page_arrives_once(redis_server, nodes):
    site_ref: list[SiteServer] = []
    faults = {0: too_many_requests, 1: flaky, 2: stalling(site_ref)}
    with SiteServer(hosts=4, pages_per_host=20, latency=0.01, seed=21, faults=faults) as site:
        site_ref.append(site)
        settings = {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": 0.05,
                    "CRAWLER_BACKOFF_BASE": 0.3, "DOWNLOAD_TIMEOUT": 1, "RETRY_TIMES": 3}
        cluster = [nodes(f"crawler-{i}", site.base_urls, **settings) for i in range(2)]
        assert [n.wait(180) for n in cluster] == [0, 0]
        records = site.requests
        # a stalled response is a 200 the client gave up on: not a fetch
        stalled = [r for r in records if r.end - r.start >= 2.4]
        assert len(stalled) == 2
        ok = Counter(r.url for r in records
                     if r.status == 200 and not r.is_robots and r not in stalled)
        assert set(ok) == site.expected_urls()
        assert max(ok.values()) == 1
        refused = [r for r in records if r.status == 429]
        assert len(refused) == 3
        host0 = sorted((r for r in records if r.host == 0), key=lambda r: r.start)
        for r in refused:
            later = [x.start for x in host0 if x.start > r.start]
            # nodes time responses on their own clocks, each set to Redis' to a few ms
            assert not later or min(later) >= r.end + RETRY_AFTER - CLOCK_ERROR, \
                "request inside Retry-After"
        assert sum(r.status == 503 for r in records) >= 2
        # abandoned (stalled) responses aside, never two requests at once on a host
        assert max_overlap([r for r in records if r not in stalled]) == 1
    totals = cluster_outcomes(cluster)
    assert totals["discovered"] == totals["fetched"] + totals["filtered"] + totals["failed"]
    stats = [n.stats() for n in cluster]
    assert any(s.get("frontier/host_backoff/http_429") for s in stats)
    assert any(s.get("frontier/host_backoff/DownloadTimeoutError") for s in stats)
