"""Drop-in: SCHEDULER, REDIS_URL and CRAWLER_NODE_ID are enough, without the add-on."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from crawler.demo.site import SiteServer
from tests.helpers.foreign import crawl, foreign_project

if TYPE_CHECKING:
    from pathlib import Path

    from crawler.testing.redis_server import RedisServer


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
