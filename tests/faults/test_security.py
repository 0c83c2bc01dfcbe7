"""SSRF: no connection to private networks unless allowed; redirects stay on site."""

from __future__ import annotations

import ipaddress
import json
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from crawler.demo.server import LoopbackServer
from crawler.netguard import NOT_PUBLIC, is_public
from tests.helpers import ROOT
from tests.helpers.graph_site import GraphSite, Page
from tests.helpers.k8s import find, render
from tests.helpers.nodes import COMMON
from tests.sitekit.faulty import FaultyServer

if TYPE_CHECKING:
    from tests.helpers.redis_server import RedisServer


@pytest.mark.parametrize(("address", "public"), [
    ("127.0.0.1", False), ("10.1.2.3", False), ("192.168.0.1", False), ("172.16.5.4", False),
    ("169.254.169.254", False), ("100.64.0.1", False), ("0.0.0.0", False), ("::1", False),
    ("fe80::1%eth0", False), ("fd00:ec2::254", False), ("::ffff:10.0.0.1", False),
    ("224.0.0.1", False), ("8.8.8.8", True), ("2001:4860:4860::8888", True),
    # cloud metadata on addresses ipaddress calls global: Azure, Oracle Cloud (issue 27)
    ("168.63.129.16", False), ("192.0.0.192", False),
    # an IPv4 address carried by an IPv6 one is judged: NAT64, 6to4, Teredo (its client
    # 10.0.0.1, obfuscated), local-use NAT64, IPv4-compatible and -translated forms
    ("64:ff9b::a9fe:a9fe", False), ("64:ff9b::7f00:1", False), ("2002:a9fe:a9fe::1", False),
    ("2002:a00:1::1", False), ("2001:0:4136:e378:8000:63bf:f5ff:fffe", False),
    ("64:ff9b:1::a9fe:a9fe", False), ("::a9fe:a9fe", False), ("::ffff:0:a00:1", False),
    ("64:ff9b::808:808", True),  # NAT64 to a public address: how IPv6-only nodes reach it
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

    with FaultyServer(site, addresses=[("127.0.0.1", 0), ("127.0.0.2", 0)],
                      faults={0: fail_once}) as server:
        node = nodes("n0", [server.origins[0] + "/"], REDIS_URL=redis_server.url,
                     **{**COMMON, "DOWNLOAD_DELAY": 0, "CRAWLER_BACKOFF_BASE": 0.1,
                        "CRAWLER_BACKOFF_MAX": 0.5})
        assert node.wait(60) == 0, node.output()[-3000:]
        paths = [(r.netloc, r.path) for r in server.recorder.requests if not r.is_robots]
    assert paths == [(server.netlocs[0], "/"), (server.netlocs[0], "/")]  # never /internal
    assert node.stats()["offsite/filtered"] == 1


#: the issue's internal addresses that passed both the netguard and the NetworkPolicy
INTERNAL = ["168.63.129.16", "192.0.0.192", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1"]


@pytest.mark.slow
def test_metadata_and_embedded_ipv4_addresses_are_not_connected_to(
        redis_server: RedisServer, tmp_path) -> None:
    """The resolver refuses them at connection time (a runner of its own: no start check)."""
    urls = [f"http://[{a}]/" if ":" in a else f"http://{a}/" for a in INTERNAL]
    settings = {**COMMON, "REDIS_URL": redis_server.url, "CRAWLER_CRAWL_ID": "metadata",
                "DOWNLOAD_DELAY": 0, "RETRY_ENABLED": False, "DOWNLOAD_TIMEOUT": 5,
                "CRAWLER_ROBOTS_MAX_WAITS": 0, "CRAWLER_BACKOFF_BASE": 0.1,
                "CRAWLER_BACKOFF_MAX": 0.5, "CRAWLER_ALLOW_PRIVATE_ADDRESSES": False,
                "CRAWLER_STATS_FILE": str(tmp_path / "stats.json")}
    runner = subprocess.run([sys.executable, "-c", RUNNER, ",".join(urls), json.dumps(settings)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert runner.returncode == 0, runner.stderr[-3000:]
    stats = json.loads((tmp_path / "stats.json").read_text())
    assert stats.get("netguard/blocked", 0) >= len(INTERNAL), runner.stderr[-3000:]
    for address in INTERNAL:
        assert f"it resolves to {address}, a private" in runner.stderr


def _crawler_policy(overlay: str) -> dict:
    return find(render(overlay), "NetworkPolicy", "crawler")["spec"]


def _egress_allows(policy: dict, address: str) -> bool:
    ip = ipaddress.ip_address(address)
    return any(ip in ipaddress.ip_network(to["ipBlock"]["cidr"])
               and not any(ip in ipaddress.ip_network(e) for e in to["ipBlock"].get("except", []))
               for rule in policy["egress"] for to in rule.get("to", []) if "ipBlock" in to)


needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")


@needs_kubectl
@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_the_network_policy_refuses_what_the_netguard_refuses(overlay: str) -> None:
    policy = _crawler_policy(overlay)
    for address in [*INTERNAL, "10.1.2.3", "169.254.169.254", "100.100.100.200", "::1",
                    "fd00:ec2::254", "64:ff9b::a00:1", "2002:c0a8:101::1", "64:ff9b:1::a00:1",
                    "2001:0:4136:e378:8000:63bf:f5ff:fffe"]:
        assert not is_public(address), address
        assert not _egress_allows(policy, address), address
    for address in ["8.8.8.8", "2001:4860:4860::8888", "64:ff9b::808:808"]:
        assert is_public(address) and _egress_allows(policy, address), address
    excepted = {ipaddress.ip_network(e) for rule in policy["egress"] for to in rule.get("to", [])
                for e in to.get("ipBlock", {}).get("except", [])}
    # every range the netguard adds to ipaddress' judgement, and every IPv4 range in its
    # NAT64 and 6to4 forms (an edit of one list must not miss the others)
    assert set(NOT_PUBLIC) <= excepted
    for net in (n for n in excepted if n.version == 4):
        v4 = int(net.network_address)
        assert ipaddress.ip_network((0x64_ff9b << 96 | v4, 96 + net.prefixlen)) in excepted, net
        assert ipaddress.ip_network((0x2002 << 112 | v4 << 80, 16 + net.prefixlen)) in excepted, net


@needs_kubectl
@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_metrics_and_readiness_are_open_to_the_monitoring_namespace_only(overlay: str) -> None:
    ingress = _crawler_policy(overlay)["ingress"]
    assert all(rule.get("from") for rule in ingress), "no rule may open ingress to everyone"
    assert [rule["from"] for rule in ingress] == [[{"namespaceSelector": {"matchLabels": {
        "kubernetes.io/metadata.name": "monitoring"}}}]]


def test_the_health_endpoints_listen_on_loopback_unless_told_otherwise(tmp_path) -> None:
    """No authentication: a node outside a container does not serve its LAN by default."""
    node = subprocess.Popen(
        [sys.executable, "-m", "scrapy", "crawl", "follow", "-a", "start_urls=http://127.0.0.1:9/",
         "-s", f"CRAWLER_STATE_DIR={tmp_path}", "-s", "CRAWLER_HEALTH_PORT=0",
         "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True", "-s", "LOG_LEVEL=INFO"],
        cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:  # the line comes as the engine starts; the crawl itself does not matter
        line = next((line for line in node.stderr if "Health endpoints on" in line), "")
    finally:
        node.kill()
        node.wait(30)
        node.stderr.close()
    assert "Health endpoints on http://127.0.0.1:" in line, line
