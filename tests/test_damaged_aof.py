"""Issue 39, item 15: a crawl whose embedded state has a damaged AOF stops in one line that
names the AOF and how to recover (``python -m crawler repair-state``, or moving the state
aside), not a connection error on a temporary socket; the advice works.

The damage is a ``#`` line between two commands: Redis 7's redis-check-aof takes it for an
annotation and passes the file, which the embedded Redis 6.2 refuses to load. The repair must
use the embedded server's own checker."""

from __future__ import annotations

import subprocess
import time

from crawler.demo.server import LoopbackServer
from tests.faults.test_items_durable import FAST, wide_site
from tests.helpers import forked


def crawl(start: str, state, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    args = ["crawl", "follow", "-a", f"start_urls={start}"]
    for key, value in {**FAST, "CRAWLER_ALLOW_PRIVATE_ADDRESSES": True,
                       "CRAWLER_STATE_DIR": state}.items():
        args += ["-s", f"{key}={value}"]
    return forked.run("scrapy", args, timeout=timeout)  # only waited for: forked


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
        cut = data.index(b"\r\n*", len(data) // 2) + 2  # between two commands
        aof.write_bytes(data[:cut] + b"#not a command\r\n" + data[cut:])
        damaged = crawl(start, state)
        assert damaged.returncode == 2, damaged.stderr[-3000:]
        last = damaged.stderr.strip().splitlines()[-1]
        assert last.startswith(f"error: the crawl's state in {aof.parent} cannot be loaded: its "
                               f"AOF ({aof}) is damaged"), last
        advice = f"python -m crawler repair-state {aof.parent} --yes"
        assert advice in last and f"move {aof.parent} aside" in last
        assert "socket" not in last and "Traceback" not in damaged.stderr
        asked = repair(aof.parent)
        assert asked.returncode == 2 and asked.stderr.count("\n") == 1, asked.stderr
        assert f"damaged from byte {cut} of {len(data) + 16}" in asked.stderr, asked.stderr
        assert aof.stat().st_size == len(data) + 16  # nothing cut without --yes
        fixed = repair(aof.parent, "--yes")
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
        assert aof.read_bytes() == data[:cut]
        again = crawl(start, state)
        assert again.returncode == 0, again.stderr[-3000:]
        assert "sound" in repair(aof.parent).stdout


def repair(folder, *options: str) -> subprocess.CompletedProcess[str]:
    return forked.run("crawler", ["repair-state", str(folder), *options], timeout=120)


def test_repair_state_refuses_a_folder_that_is_no_crawl_state(tmp_path):
    refused = repair(tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr == f"error: {tmp_path} is not one crawl's state folder (no " \
                             "appendonly.aof in it)\n"
