"""robots.txt and the netguard's outcomes (issue 27, item 18c and 18d).

- A host the netguard refused (every address private) is filtered, as the crawl was told:
  ``outcomes/filtered/private_address``, not ``failed/robots_unavailable`` after its
  robots.txt "failed".
- A URL's userinfo (``http://user@host/``) is no part of its host's robots.txt URL: it was
  fetched as ``http://user@host/robots.txt`` and failed with "invalid hostname".

The crawls run through Scrapy's ``CrawlerProcess`` on the project's settings (a start URL on
a private address is refused before a ``scrapy crawl`` starts), on a real Redis, against a
real HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawler.demo.server import LoopbackServer
from tests.helpers import ROOT
from tests.helpers.graph_site import GraphSite, Page

if TYPE_CHECKING:
    from tests.helpers.redis_server import RedisServer

#: a crawl run by Scrapy's CrawlerProcess on the project's settings, not by `scrapy crawl`
RUNNER = """
import json, sys
from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings
settings = get_project_settings()
settings.setdict(json.loads(sys.argv[2]), priority="cmdline")
process = CrawlerProcess(settings)
process.crawl("follow", start_urls=sys.argv[1])
process.start()
"""


def _crawl(urls: list[str], redis: RedisServer, tmp: Path, **settings: Any) -> tuple[dict, str]:
    stats = tmp / "stats.json"
    settings = {"REDIS_URL": redis.url, "CRAWLER_CRAWL_ID": "robots-outcomes",
                "CRAWLER_STATS_FILE": str(stats), "DOWNLOAD_DELAY": 0, "RETRY_ENABLED": False,
                "CRAWLER_IDLE_CLOSE": 0.3, "CRAWLER_HEARTBEAT_INTERVAL": 0.1,
                "CRAWLER_ROBOTS_MAX_WAITS": 1, "CRAWLER_BACKOFF_BASE": 0.1,
                "CRAWLER_BACKOFF_MAX": 0.2, "TELNETCONSOLE_ENABLED": False,
                "LOG_LEVEL": "INFO", **settings}
    run = subprocess.run([sys.executable, "-c", RUNNER, ",".join(urls), json.dumps(settings)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(stats.read_text()), run.stderr


def test_urls_the_netguard_refused_are_filtered_as_private_addresses(
        redis_server: RedisServer, tmp_path: Path) -> None:
    site = GraphSite([{"/": Page(links=((0, "/a"),)), "/a": Page()}])
    with LoopbackServer(site) as server:
        port = server.netlocs[0].split(":")[1]
        # an IP literal, and a name that resolves to loopback only
        urls = [f"http://127.0.0.1:{port}/", f"http://localhost:{port}/"]
        stats, log = _crawl(urls, redis_server, tmp_path, CRAWLER_ALLOW_PRIVATE_ADDRESSES=False)
        assert server.recorder.requests == []  # robots.txt included
    assert stats["netguard/blocked"] >= 2
    outcomes = {k: v for k, v in stats.items() if k.startswith("outcomes/")}
    assert outcomes == {"outcomes/discovered": 2, "outcomes/filtered": 2,
                        "outcomes/filtered/private_address": 2}, outcomes
    assert "robots_unavailable" not in json.dumps(stats)


def test_a_url_with_userinfo_reads_its_hosts_robots_txt(
        redis_server: RedisServer, tmp_path: Path) -> None:
    site = GraphSite([{"/": Page(), "/b": Page()}])
    with LoopbackServer(site) as server:
        netloc = server.netlocs[0]
        urls = [f"http://user@{netloc}/", f"http://user:secret@{netloc}/b"]
        stats, log = _crawl(urls, redis_server, tmp_path, CRAWLER_ALLOW_PRIVATE_ADDRESSES=True)
        robots = [(r.netloc, r.status) for r in server.recorder.requests if r.path == "/robots.txt"]
    assert robots == [(netloc, 200)]  # once, for the host, without the userinfo
    assert "invalid hostname" not in log, log[-3000:]
    assert not any(k.startswith("robotstxt/exception_count") for k in stats), stats
    assert stats["robotstxt/response_status_count/200"] == 1
    assert "outcomes/failed/robots_unavailable" not in stats, stats


def test_a_link_with_userinfo_is_crawled_as_the_same_url_without_it(
        redis_server: RedisServer, tmp_path: Path) -> None:
    """Issue 27, item 18: a page linking to ``http://user@host/x`` made its download fail
    (``failed/ValueError``: Scrapy's "invalid hostname: user@host"); the link is the page
    ``http://host/x``, fetched once with the same link without the userinfo."""
    site = GraphSite([{"/x": Page(), "/y": Page()}])
    with LoopbackServer(site) as server:
        netloc = server.netlocs[0]
        links = [f"http://user@{netloc}/x", f"http://user:secret@{netloc}/y", f"http://{netloc}/x"]
        site.pages[0]["/"] = Page(body="".join(f'<a href="{u}">{i}</a>' for i, u in
                                               enumerate(links)).encode())
        stats, log = _crawl([f"http://{netloc}/"], redis_server, tmp_path,
                            CRAWLER_ALLOW_PRIVATE_ADDRESSES=True)
        fetched = sorted((r.netloc, r.path) for r in server.recorder.requests)
    assert fetched == [(netloc, "/"), (netloc, "/robots.txt"), (netloc, "/x"), (netloc, "/y")]
    outcomes = {k: v for k, v in stats.items() if k.startswith("outcomes/")}
    assert outcomes["outcomes/fetched/200"] == 3, outcomes
    assert not any(k.startswith("outcomes/failed") for k in outcomes), outcomes
    assert "invalid hostname" not in log, log[-3000:]
