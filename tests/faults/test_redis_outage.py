"""Redis restarting (AOF on) and Redis stalled (SIGSTOP) mid-crawl: nodes keep their
work, buffer what they discover, resume, and lose nothing."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from crawler.demo.site import SiteServer
from tests.scheduler.test_cluster import COMMON

pytestmark = pytest.mark.slow

SETTINGS = {**COMMON, "DOWNLOAD_DELAY": 0.02, "CRAWLER_REDIS_SOCKET_TIMEOUT": 1,
            "CRAWLER_NODE_TIMEOUT": 3}


def cluster_outcomes(logs: list[str]) -> Counter[str]:
    return sum((Counter({k: int(v) for k, v in re.findall(r"'outcomes/([a-z]+)': (\d+)", log)})
                for log in logs), Counter())


def crawl_through(redis_server, nodes, outage) -> None:
    with SiteServer(hosts=6, pages_per_host=40, latency=0.03, seed=51) as site:
        cluster = [nodes(f"crawler-{i}", site.base_urls,
                         **{**SETTINGS, "REDIS_URL": redis_server.url}) for i in range(2)]
        assert site.wait_fetched(len(site.expected_urls()) // 3, timeout=120)
        outage(site)
        assert [n.wait(180) for n in cluster] == [0, 0], cluster[0].output()[-2000:]
        counts = site.fetch_counts()
        assert site.expected_urls() - set(counts) == set(), "pages lost in the outage"
        assert max(counts.values()) == 1, "pages fetched twice"
    for node in cluster:
        log = node.output()
        assert "Traceback" not in log
        assert log.count("Redis unreachable") <= 1, "the outage is logged once"
    assert any("Redis is reachable again" in n.output() for n in cluster)
    totals = cluster_outcomes([n.output() for n in cluster])
    assert totals["discovered"] == totals["fetched"] + totals["filtered"] + totals["failed"]


def test_redis_restart_mid_crawl(redis_server, nodes):
    def restart(site: SiteServer) -> None:
        redis_server.stop()
        site.wait_fetched(len(site.fetched_urls()) + 10, timeout=5)  # the crawl goes on
        redis_server.start()

    crawl_through(redis_server, nodes, restart)


def test_redis_stalled_mid_crawl(redis_server, nodes):
    def stall(site: SiteServer) -> None:
        redis_server.pause()
        site.wait_fetched(len(site.fetched_urls()) + 10, timeout=5)
        redis_server.resume()

    crawl_through(redis_server, nodes, stall)
