"""SSRF: no connection to private networks unless allowed; redirects stay on site."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from crawler.netguard import is_public
from crawler.demo.server import LoopbackServer
from tests.helpers.graph_site import GraphSite, Page
from tests.helpers import ROOT
from tests.helpers.nodes import COMMON

if TYPE_CHECKING:
    from tests.helpers.redis_server import RedisServer


@pytest.mark.parametrize(("address", "public"), [
    ("127.0.0.1", False), ("10.1.2.3", False), ("192.168.0.1", False), ("172.16.5.4", False),
    ("169.254.169.254", False), ("100.64.0.1", False), ("0.0.0.0", False), ("::1", False),
    ("fe80::1%eth0", False), ("fd00:ec2::254", False), ("::ffff:10.0.0.1", False),
    ("224.0.0.1", False), ("8.8.8.8", True), ("2001:4860:4860::8888", True),
])
def test_only_public_unicast_addresses_are_public(address: str, public: bool) -> None:
    assert is_public(address) is public


@pytest.mark.slow
def test_private_addresses_are_not_connected_to_by_default(
        redis_server: RedisServer, nodes, tmp_path) -> None:
    site = GraphSite([{"/": Page(links=((0, "/a"),)), "/a": Page()}])
    with LoopbackServer(site) as server:
        port = server.netlocs[0].split(":")[1]
        # an IP literal, and a name that resolves to loopback
        urls = [f"http://127.0.0.1:{port}/", f"http://localhost:{port}/"]
        settings = {**COMMON, "DOWNLOAD_DELAY": 0, "RETRY_ENABLED": False,
                    "CRAWLER_ROBOTS_MAX_WAITS": 0, "CRAWLER_BACKOFF_BASE": 0.1,
                    "CRAWLER_BACKOFF_MAX": 0.5, "CRAWLER_ALLOW_PRIVATE_ADDRESSES": False}
        # scrapy crawl: refused before the crawl starts, in one line naming the setting
        node = nodes("n0", urls, REDIS_URL=redis_server.url, **settings)
        assert node.wait(60) == 2, node.output()[-3000:]
        assert node.output().strip().splitlines()[-1].endswith(
            "add -s CRAWLER_ALLOW_PRIVATE_ADDRESSES=True")
        # a runner of its own (a project using the add-on): the resolver refuses them
        runner = subprocess.run(
            [sys.executable, "-c", RUNNER, ",".join(urls), json.dumps(
                {**settings, "REDIS_URL": redis_server.url, "CRAWLER_CRAWL_ID": "runner",
                 "CRAWLER_STATS_FILE": str(tmp_path / "stats.json")})],
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
        assert runner.returncode == 0, runner.stderr[-3000:]
        assert server.recorder.requests == []  # robots.txt included
    assert json.loads((tmp_path / "stats.json").read_text())["netguard/blocked"] >= 2
    assert "CRAWLER_ALLOW_PRIVATE_ADDRESSES" in runner.stderr


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


@pytest.mark.slow
def test_a_retried_request_cannot_be_redirected_off_site(redis_server: RedisServer,
                                                         nodes) -> None:
    site = GraphSite([{"/": Page(status=302, location=(1, "/internal"))},
                      {"/internal": Page()}])

    def fail_once(target: str, hit: int):
        return (503, {}, b"") if target == "/" and hit == 0 else None

    with LoopbackServer(site, addresses=[("127.0.0.1", 0), ("127.0.0.2", 0)],
                        faults={0: fail_once}) as server:
        node = nodes("n0", [server.origins[0] + "/"], REDIS_URL=redis_server.url,
                     **{**COMMON, "DOWNLOAD_DELAY": 0, "CRAWLER_BACKOFF_BASE": 0.1,
                        "CRAWLER_BACKOFF_MAX": 0.5})
        assert node.wait(60) == 0, node.output()[-3000:]
        paths = [(r.netloc, r.path) for r in server.recorder.requests if not r.is_robots]
    assert paths == [(server.netlocs[0], "/"), (server.netlocs[0], "/")]  # never /internal
    assert node.stats()["offsite/filtered"] == 1
