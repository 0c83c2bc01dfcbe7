"""Issue 39, item 15: a crawl whose embedded state has a damaged AOF stops in one line that
names the AOF and how to recover (redis-check-aof, or moving the state aside), not a
connection error on a temporary socket; the advice works."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time

import pytest

from crawler.demo.server import LoopbackServer
from tests.faults.test_items_durable import FAST, wide_site
from tests.helpers import ROOT


def crawl(start: str, state, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "scrapy", "crawl", "follow", "-a", f"start_urls={start}"]
    for key, value in {**FAST, "CRAWLER_ALLOW_PRIVATE_ADDRESSES": True,
                       "CRAWLER_STATE_DIR": state}.items():
        command += ["-s", f"{key}={value}"]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          check=False)


def test_a_damaged_aof_is_named_with_how_to_recover(tmp_path):
    state = tmp_path / "state"
    with LoopbackServer(wide_site(1, 20)) as server:
        start = server.origins[0] + "/"
        first = crawl(start, state)
        assert first.returncode == 0, first.stderr[-3000:]
        (aof,) = state.glob("*/appendonly.aof")
        deadline = time.monotonic() + 30  # the crawl's server stops when its watchdog sees
        while subprocess.run(["pgrep", "-f", f"redis-server.*{aof.parent}"],  # it idle
                             capture_output=True, check=False).returncode == 0:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        data = aof.read_bytes()
        aof.write_bytes(data[:len(data) // 2] + b"\r\n#not a command\r\n" + data[len(data) // 2:])
        damaged = crawl(start, state)
        assert damaged.returncode == 2, damaged.stderr[-3000:]
        last = damaged.stderr.strip().splitlines()[-1]
        assert last.startswith(f"error: the crawl's state in {aof.parent} cannot be loaded: its "
                               f"AOF ({aof}) is damaged"), last
        assert f"redis-check-aof --fix {aof}" in last and f"move {aof.parent} aside" in last
        assert "socket" not in last and "Traceback" not in damaged.stderr
        if shutil.which("redis-check-aof") is None:
            pytest.skip("no redis-check-aof to follow the advice with")
        fixed = subprocess.run(["redis-check-aof", "--fix", str(aof)], input="y\n",
                               capture_output=True, text=True, check=False)
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
        again = crawl(start, state)
        assert again.returncode == 0, again.stderr[-3000:]
