"""Drop-in: SCHEDULER, REDIS_URL and CRAWLER_NODE_ID are enough, without the add-on."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from crawler.settings_defaults import DEFAULTS
from tests.helpers.foreign import crawl, foreign_project, start
from tests.sitekit.site import SiteServer

if TYPE_CHECKING:
    from pathlib import Path

    from tests.helpers.redis_server import RedisServer


@pytest.mark.slow
def test_foreign_nodes_on_three_settings_survive_a_kill_and_a_join(
        tmp_path: Path, redis_server: RedisServer) -> None:
    project = foreign_project(tmp_path / "project", (
        'SCHEDULER = "crawler.scheduler.Scheduler"\n'
        f'REDIS_URL = "{redis_server.url}"\n'
        "CRAWLER_HEARTBEAT_INTERVAL = 0.5\nCRAWLER_NODE_TIMEOUT = 3\nCRAWLER_IDLE_CLOSE = 2\n"
        "DOWNLOAD_DELAY = 0.05\nCRAWLER_ALLOW_PRIVATE_ADDRESSES = True\n"
        "TELNETCONSOLE_ENABLED = False\n"))
    with SiteServer(hosts=6, pages_per_host=30, latency=0.05, seed=7) as site:
        def node(i: int):
            return start(project, site.base_urls, "-s", f"CRAWLER_NODE_ID=foreign-{i}",
                         log=tmp_path / f"foreign-{i}.log")

        first, doomed = node(0), node(1)
        try:
            assert site.wait_fetched(len(site.expected_urls()) // 3, timeout=120)
            doomed.kill()  # SIGKILL: its leases come back when its heartbeat times out
            doomed.wait(10)
            joined = node(2)
            codes = [first.wait(180), joined.wait(180)]
        finally:
            for process in (first, doomed):
                if process.poll() is None:
                    process.kill()
        counts = site.fetch_counts()
        expected = site.expected_urls()
        concurrency = site.max_concurrency()
    logs = [(tmp_path / f"foreign-{i}.log").read_text() for i in (0, 2)]
    assert codes == [0, 0], logs[0][-3000:]
    assert expected <= set(counts), "pages lost with the killed node"
    # only what the killed node had leased and not acked is fetched twice: the acks of
    # a host batch go together, so at most one batch per host
    twice = Counter(urlsplit(u).netloc for u, c in counts.items() for _ in range(c - 1))
    assert max(twice.values(), default=0) <= DEFAULTS["CRAWLER_HOST_BATCH"], twice
    assert max(concurrency.values()) == 1, "politeness broken across nodes"
    assert all("Traceback" not in log for log in logs)
    assert any("foreign-1 is dead" in log for log in logs)


@pytest.mark.slow
def test_a_foreign_project_with_three_settings_crawls_every_page_once(
        tmp_path: Path, redis_server: RedisServer) -> None:
    project = foreign_project(tmp_path / "project", (
        'SCHEDULER = "crawler.scheduler.Scheduler"\n'
        f'REDIS_URL = "{redis_server.url}"\n'
        'CRAWLER_NODE_ID = "foreign-0"\n'
        "CRAWLER_IDLE_CLOSE = 1\nTELNETCONSOLE_ENABLED = False\n"))
    stats = tmp_path / "stats.json"
    with SiteServer(hosts=2, pages_per_host=15, seed=5) as site:
        result = crawl(project, site.base_urls, "-s", f"CRAWLER_STATS_FILE={stats}",
                       "-s", "EXTENSIONS={\"crawler.ops.stats_file.StatsFile\": 0}")
        counts = site.fetch_counts()
        expected = site.expected_urls()
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert expected <= set(counts), "pages never fetched"
    assert {u: c for u, c in counts.items() if c > 1} == {}
    final = json.loads(stats.read_text())
    assert final["finish_reason"] == "finished"
    assert final.get("frontier/lease_leaked", 0) == 0  # settled by the scheduler's signals
    assert final["gc/frozen_objects"] > 0  # the scheduler tuned the collector itself
    assert final["outcomes/fetched"] == len(counts)
    # the node says once what the add-on would add
    assert result.stderr.count("without crawler.addon.ClusterAddon") == 1
    # the leases are all settled in Redis
    client = redis_server.client()
    assert not any(client.zcard(k) for k in client.scan_iter("*leases*")
                   if client.type(k) == b"zset")


def test_the_addon_bounds_response_sizes_unless_the_project_says_otherwise() -> None:
    from scrapy.settings import Settings  # noqa: PLC0415

    from crawler.addon import ClusterAddon  # noqa: PLC0415

    settings = Settings()
    ClusterAddon().update_settings(settings)
    assert settings.getint("DOWNLOAD_MAXSIZE") == 16 * 1024 * 1024  # Scrapy's: 1 GiB
    assert settings.getint("DOWNLOAD_WARNSIZE") == 4 * 1024 * 1024
    settings = Settings({"DOWNLOAD_MAXSIZE": 100_000_000}, priority="project")
    ClusterAddon().update_settings(settings)
    assert settings.getint("DOWNLOAD_MAXSIZE") == 100_000_000
