"""Items are part of the lease promise (issue 27, items 1-4 and 9): a page is acked only once its
items are written, so a node killed, a disk full or a Redis full never loses one.

Real node processes (SIGKILL), a real tmpfs that fills up (a user and mount namespace, as
``unshare -rm``), a real redis-server with ``maxmemory``.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from crawler.demo.server import LoopbackServer
from crawler.frontier.cluster import Cluster
from tests.helpers import ROOT, forked
from tests.helpers.graph_site import GraphSite, Page
from tests.helpers.nodes import COMMON

if TYPE_CHECKING:
    from pathlib import Path

    from tests.helpers.redis_server import RedisServer

FAST = {**COMMON, "DOWNLOAD_DELAY": 0}


def wide_site(hosts: int, pages: int) -> GraphSite:
    """*hosts* hosts whose start page links *pages* leaf pages each."""
    return GraphSite([{"/": Page(links=tuple((h, f"/p{i}") for i in range(pages))),
                       **{f"/p{i}": Page() for i in range(pages)}} for h in range(hosts)])


def feed_urls(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [json.loads(line)["url"] for line in path.read_text().splitlines() if line]


def stream_urls(cluster: Cluster) -> list[str]:
    return [json.loads(item)["url"] for _, item in cluster.items.read(None, 1_000_000)]


@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [30, 250, 395])
def test_a_sigkill_at_any_moment_loses_no_item(redis_server: RedisServer, nodes,
                                                kill_after: int) -> None:
    # one item per page; the node is killed with items in its buffers (their pages acked
    # before, in the past)
    site = wide_site(4, 100)
    with LoopbackServer(site) as server:
        starts = [o + "/" for o in server.origins]
        every = {o + p for o in server.origins for p in ["/", *(f"/p{i}" for i in range(100))]}
        killed = nodes("n0", starts, REDIS_URL=redis_server.url, **FAST)
        assert server.recorder.wait_fetched(kill_after, 120), killed.output()[-3000:]
        killed.kill()
        assert killed.wait(30) == -signal.SIGKILL
        # another node takes over the dead one's leases (CRAWLER_NODE_TIMEOUT) and finishes
        resumed = nodes("n1", starts, REDIS_URL=redis_server.url, **FAST)
        assert resumed.wait(120) == 0, resumed.output()[-3000:]
    feed = feed_urls(killed.feed_path) + feed_urls(resumed.feed_path)
    assert every - set(feed) == set(), f"{len(every - set(feed))} pages have no item in the feeds"
    streamed = stream_urls(Cluster(redis_server.client(), "follow"))
    assert every - set(streamed) == set(), \
        f"{len(every - set(streamed))} pages have no item in the stream"


def _unshare_mount() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _unshare_mount(), reason="needs unshare -rm (user and mount namespaces)")
def test_a_full_disk_stops_the_crawl_in_one_line_and_the_resume_writes_every_item(tmp_path) -> None:
    # the feed on a 16 KiB tmpfs: about 200 of the 401 items fit
    site = wide_site(1, 400)
    disk = tmp_path / "disk"
    disk.mkdir()
    feed = disk / "items.jl"
    with LoopbackServer(site) as server:
        start = server.origins[0] + "/"
        every = {server.origins[0] + p for p in ["/", *(f"/p{i}" for i in range(400))]}
        command = [sys.executable, "-m", "scrapy", "crawl", "follow", "-a", f"start_urls={start}",
                   "-o", f"{feed}:jsonlines"]
        for key, value in {**FAST, "CRAWLER_ALLOW_PRIVATE_ADDRESSES": True,
                           "CRAWLER_STATE_DIR": tmp_path / "state"}.items():
            command += ["-s", f"{key}={value}"]
        # the tmpfs goes with its namespace: what the crawl wrote is copied out
        saved = tmp_path / "saved.jl"
        script = (f'mount -t tmpfs -o size=16k tmpfs "{disk}" || exit 99; "$@"; status=$?; '
                  f'cp "{feed}" "{saved}"; exit $status')
        full = subprocess.run(["unshare", "-rm", "sh", "-c", script, "sh", *command], cwd=ROOT,
                              capture_output=True, text=True, timeout=180, check=False)
        assert full.returncode == 4, full.stderr[-3000:]
        last = full.stderr.strip().splitlines()[-1]
        assert last.startswith(f"error: cannot write the items to {feed}"), last
        assert "No space left on device" in last, last
        assert "Traceback" not in full.stderr, full.stderr[-3000:]
        written = saved.read_text()
        assert written.endswith("\n"), written[-200:]  # no partial line
        assert 100 < len(feed_urls(saved)) < 400
        # room again (the same file on a disk with room): the same command writes the rest
        shutil.copy(saved, feed)
        again = forked.run("scrapy", command[3:], timeout=180)  # only waited for: forked
        assert again.returncode == 0, again.stderr[-3000:]
    urls = feed_urls(feed)
    assert every - set(urls) == set(), f"{len(every - set(urls))} pages have no item"


@pytest.mark.slow
def test_items_the_stream_refuses_at_the_close_are_kept_and_the_exit_says_so(
        redis_server: RedisServer, nodes, tmp_path: Path) -> None:
    # the stream refuses every write (as a full or read-only Redis would), the frontier not
    site = wide_site(1, 30)
    client = redis_server.client()
    client.execute_command("ACL", "SETUSER", "default", "-xadd")
    with LoopbackServer(site) as server:
        start = server.origins[0] + "/"
        every = {server.origins[0] + p for p in ["/", *(f"/p{i}" for i in range(30))]}
        node = nodes("n0", [start], REDIS_URL=redis_server.url, **FAST)
        assert node.wait_for_log("Cannot write", 60), node.output()[-3000:]
        # (its pages stay leased meanwhile: each host waits for the acks of its first page)
        node.signal(signal.SIGTERM)  # stopping while Redis refuses the last items
        status = node.wait(60)
        output = node.output()
        fetched = server.recorder.fetched_urls()
        spill = tmp_path / "state" / "items-unsent-follow-n0.jl"
        assert status == 4, output[-3000:]
        last = output.strip().splitlines()[-1]
        assert last.startswith("error: ") and str(spill) in last, last
        spilled = set(feed_urls(spill))
        assert fetched - spilled == set(), "items of fetched pages neither streamed nor spilled"
        # Redis takes items again: the crawl, resumed, streams the rest
        client.execute_command("ACL", "SETUSER", "default", "+xadd")
        resumed = nodes("n1", [start], REDIS_URL=redis_server.url, **FAST)
        assert resumed.wait(120) == 0, resumed.output()[-3000:]
    streamed = set(stream_urls(Cluster(client, "follow")))
    assert every - (streamed | spilled) == set()


def _export(redis_server: RedisServer, out: Path) -> subprocess.CompletedProcess:
    """``python -m crawler export -o FILE``, as the guide runs it (no option)."""
    return forked.run("crawler", ["export", "--redis-url", redis_server.url, "--crawl", "follow",
                                  "-o", str(out)])


@pytest.mark.slow
def test_a_redis_full_of_items_stalls_the_crawl_only_until_they_are_exported(
        redis_server: RedisServer, nodes, tmp_path: Path) -> None:
    site = wide_site(4, 100)
    client = redis_server.client()
    stream = Cluster(client, "follow").keys.items
    out = tmp_path / "exported.jl"
    with LoopbackServer(site) as server:
        starts = [o + "/" for o in server.origins]
        every = {o + p for o in server.origins for p in ["/", *(f"/p{i}" for i in range(100))]}
        node = nodes("n0", starts, REDIS_URL=redis_server.url, **FAST)
        assert server.recorder.wait_fetched(8, 60), node.output()[-3000:]
        # Redis fills up with items nobody exported yet (a long crawl's): maxmemory reached
        pipe = client.pipeline(transaction=False)
        for i in range(2000):
            pipe.xadd(stream, {"node": "old", "item": json.dumps({"url": f"old:{i}",
                                                                 "text": "x" * 500})})
        pipe.execute()
        client.config_set("maxmemory", int(client.info("memory")["used_memory"] * 0.8))
        assert node.wait_for_log("Cannot write", 60), node.output()[-3000:]
        # what an operator does (a CronJob, the guide's loop): export what is there
        deadline = time.monotonic() + 120
        while node.process.poll() is None and time.monotonic() < deadline:
            assert _export(redis_server, out).returncode == 0
            try:
                node.process.wait(0.5)
            except subprocess.TimeoutExpired:
                continue
        assert node.wait(1) == 0, node.output()[-3000:]
        assert _export(redis_server, out).returncode == 0
    urls = [u for u in feed_urls(out) if not u.startswith("old:")]
    assert every - set(urls) == set(), f"{len(every - set(urls))} pages have no exported item"
    assert len(urls) == len(set(urls))
    assert client.xlen(stream) == 0  # what was exported left Redis
