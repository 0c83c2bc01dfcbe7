"""Every discovered URL ends in exactly one recorded outcome: fetched (with status),
filtered (duplicate, robots, depth, host budget, trap rule) or failed after retries."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.helpers import forked
from tests.helpers.nodes import COMMON, cluster_outcomes
from tests.sitekit.site import SiteServer

pytestmark = pytest.mark.slow

SESSION = "0123456789abcdef0123456789abcdef"


def page(*links: str) -> tuple[int, dict, bytes]:
    body = "".join(f'<a href="{link}">x</a>' for link in links)
    return 200, {}, f"<html><body>{body}</body></html>".encode()


def calendar_trap(path: str, hit: int):
    if path == "/":
        many = "&".join(f"p{i}=1" for i in range(13))
        return page("/calendar?m=1", "/a/b/a/b/a/b/a/x", f"/search?{many}")
    if path.startswith("/calendar?m="):
        month = int(path.split("=")[1].split("&")[0])
        return page(f"/calendar?m={month + 1}", f"/calendar?m={month}&sid={SESSION}")
    return None


def always_503(path: str, hit: int):
    return (503, {}, b"down") if path == "/board/2" else None


def test_outcomes_add_up_to_the_urls_discovered(redis_server, nodes):
    robots = {0: "User-agent: *\nDisallow: /board/2\n"}
    faults = {1: calendar_trap, 2: always_503}
    # no cross-host links: the calendar host's budget must go to the calendar alone
    with SiteServer(hosts=3, pages_per_host=30, seed=31, robots=robots, faults=faults,
                    broken_links=True, cross_links=False) as site:
        settings = {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": 0,
                    "CRAWLER_HOST_PAGE_LIMIT": 25, "DEPTH_LIMIT": 6, "RETRY_TIMES": 1,
                    "CRAWLER_BACKOFF_BASE": 0.1}
        cluster = [nodes(f"crawler-{i}", site.base_urls, **settings) for i in range(2)]
        assert [n.wait(120) for n in cluster] == [0, 0]
        records = [r for r in site.requests if not r.is_robots]
    # a URL one node discovers may be fetched by the other: the cluster's books balance
    counts = cluster_outcomes(cluster)
    assert counts["discovered"] == counts["fetched"] + counts["filtered"] + counts["failed"]
    status = json.loads(crawler_command("status", "--json", redis_url=redis_server.url))
    assert status["outcomes"] == dict(counts), "the status command sums the nodes' counters"
    served = Counter(r.status for r in records)
    # each fetch the server made is one outcome; the 503 page failed after its retry
    assert counts["fetched/200"] == served[200]
    assert counts["fetched/404"] == served[404] > 0
    assert counts["failed/http_503"] == 1 and served[503] == 2
    for reason in ("robots", "duplicate", "depth", "host_limit", "trap/repeated_path_segment",
                   "trap/query_params"):
        assert counts[f"filtered/{reason}"] > 0, reason
    calendar = [r for r in records if r.host == 1]
    assert len(calendar) <= 25  # the host budget bounds the endless calendar
    assert not any("sid=" in r.path for r in records)  # session ids stripped
    failures = crawler_command("failures", "-o", "-", redis_url=redis_server.url)
    assert [json.loads(line)["reason"] for line in failures.splitlines()] == ["http_503"]


def crawler_command(*args: str, redis_url: str) -> str:
    result = forked.run("crawler", [*args, "--redis-url", redis_url])
    result.check_returncode()
    return result.stdout
