"""robots.txt per RFC 9309: 4xx allows all; 5xx or unreachable disallows all until a
later fetch succeeds (nothing is lost meanwhile); Disallow and fetch-once hold."""

from __future__ import annotations

from collections import Counter
from itertools import count

import pytest

from tests.helpers.nodes import COMMON
from tests.sitekit.site import SiteServer

pytestmark = pytest.mark.slow


def test_robots_failures_disallow_until_a_fetch_succeeds(redis_server, nodes):
    fetches = count()

    def flaky_robots(host: int):
        if host == 0:  # 500 twice, then a real robots.txt
            return 500 if next(fetches) < 2 else "User-agent: *\nDisallow: /board/2\n"
        return {1: 404, 3: "User-agent: *\nDisallow: /board/1\n"}.get(host)

    site_ref: list[SiteServer] = []

    def hanging_robots(path: str, hit: int):
        if path == "/robots.txt" and hit == 0:
            site_ref[0].stopping.wait(2.5)  # past DOWNLOAD_TIMEOUT: unreachable
        return None

    with SiteServer(hosts=4, pages_per_host=15, seed=41, robots=flaky_robots,
                    faults={2: hanging_robots}) as site:
        site_ref.append(site)
        settings = {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": 0.05,
                    "CRAWLER_BACKOFF_BASE": 0.3, "DOWNLOAD_TIMEOUT": 1, "RETRY_TIMES": 0}
        node = nodes("crawler-0", site.base_urls, **settings)
        assert node.wait(120) == 0
        records = site.requests
        expected = site.expected_urls(respect_robots=True)
    pages = [r for r in records if not r.is_robots and r.status == 200]
    assert Counter(r.url for r in pages) == Counter(expected), "allowed pages, each once"
    for host in (0, 2):
        robots_ok = min(r.end for r in records if r.host == host and r.is_robots
                        and r.status == 200 and r.end - r.start < 2)
        first_page = min(r.start for r in records if r.host == host and not r.is_robots)
        assert first_page >= robots_ok, f"host {host}: a page fetched while robots.txt failed"
    assert sum(r.is_robots for r in records if r.host == 0) == 3
    assert sum(r.is_robots for r in records if r.host in (1, 3)) == 2, "fetched once per host"
    assert not [r for r in pages if r.host == 0 and r.path.startswith("/board/2")]
    assert [r for r in pages if r.host == 1]  # 404 robots.txt: everything allowed
    stats = node.outcomes()
    assert stats["discovered"] == stats["fetched"] + stats["filtered"] + stats["failed"]


def test_robots_txt_answering_429_waits_its_retry_after_in_the_host_gate(redis_server, nodes):
    from tests.helpers.graph_site import GraphSite, Page  # noqa: PLC0415
    from tests.sitekit.faulty import FaultyServer  # noqa: PLC0415

    def busy_once(target: str, hit: int):
        return (429, {"Retry-After": "3"}, b"") if target == "/robots.txt" and hit == 0 else None

    site = GraphSite([{"/": Page(links=((0, "/a"),)), "/a": Page()}])
    with FaultyServer(site, faults={0: busy_once}) as server:
        node = nodes("crawler-0", [server.origins[0] + "/"],
                     **{**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": 0,
                        "CRAWLER_BACKOFF_BASE": 0.1, "CRAWLER_BACKOFF_MAX": 1})
        assert node.wait(60) == 0, node.output()[-3000:]
        requests = server.recorder.requests
    robots = [r.start for r in requests if r.is_robots]
    assert len(robots) == 2, robots  # not retried back to back by Scrapy's retry
    assert robots[1] - robots[0] >= 2.9  # its Retry-After, not the 0.1 s backoff
    assert sorted(r.path for r in requests if not r.is_robots) == ["/", "/a"]
    assert all(r.start >= robots[1] for r in requests if not r.is_robots)
