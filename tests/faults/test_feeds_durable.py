"""Every feed Scrapy offers holds a page's items before the page is acked (issue 39 item 8):
a gzip post-processing plugin, batches, several URIs, stdout. A real node process killed with
SIGKILL mid-crawl, resumed by another node: every page has its item in each of the killed
node's feeds or in the resumed node's (a page acked with its item lost is never fetched
again)."""

from __future__ import annotations

import bz2
import gzip
import json
import signal
import subprocess
import sys
import zlib
from typing import TYPE_CHECKING

import pytest

from crawler.demo.server import LoopbackServer
from tests.faults.test_items_durable import FAST, wide_site
from tests.helpers import ROOT

if TYPE_CHECKING:
    from pathlib import Path

    from tests.helpers.redis_server import RedisServer

GZIP = "scrapy.extensions.postprocessing.GzipPlugin"  # Scrapy's own, as a user names it


def _urls(data: bytes) -> list[str]:
    """The URLs of the complete JSON lines in *data* (a killed feed may end mid-line)."""
    lines = data.split(b"\n")[:-1]
    return [json.loads(line)["url"] for line in lines if line]


def gunzip_readable(path: Path) -> bytes:
    """What a gzip file without its end (the writer was killed) decompresses to."""
    return zlib.decompressobj(wbits=31).decompress(path.read_bytes())


def crawl(name: str, start: list[str], workdir: Path, redis_url: str, feeds: dict,
          stdout: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "scrapy", "crawl", "follow", "-a",
               "start_urls=" + ",".join(start), "-s", f"FEEDS={json.dumps(feeds)}"]
    settings = {**FAST, "CRAWLER_ALLOW_PRIVATE_ADDRESSES": True, "REDIS_URL": redis_url,
                "CRAWLER_NODE_ID": name, "CRAWLER_STATE_DIR": workdir / "state",
                "LOG_FILE": workdir / f"{name}.log"}
    for key, value in settings.items():
        command += ["-s", f"{key}={value}"]
    with open(stdout, "wb") as out:
        return subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL)


@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [60, 250])
def test_a_sigkill_loses_no_item_of_an_acked_page_in_any_feed(
        redis_server: RedisServer, tmp_path: Path, kill_after: int) -> None:
    site = wide_site(4, 100)
    killed_dir, resumed_dir = tmp_path / "killed", tmp_path / "resumed"
    killed_dir.mkdir()
    resumed_dir.mkdir()
    feeds = {str(killed_dir / "items.jl.gz"): {"format": "jsonlines", "postprocessing": [GZIP]},
             str(killed_dir / "batch-%(batch_id)03d.jl"): {"format": "jsonlines",
                                                          "batch_item_count": 7},
             str(killed_dir / "items.csv"): {"format": "csv", "fields": ["url"]},
             "stdout:": {"format": "jsonlines"}}
    with LoopbackServer(site) as server:
        starts = [o + "/" for o in server.origins]
        every = {o + p for o in server.origins for p in ["/", *(f"/p{i}" for i in range(100))]}
        node = crawl("n0", starts, killed_dir, redis_server.url, feeds, killed_dir / "stdout")
        assert server.recorder.wait_fetched(kill_after, 120), \
            (killed_dir / "n0.log").read_text()[-3000:]
        node.send_signal(signal.SIGKILL)
        assert node.wait(30) == -signal.SIGKILL
        # another node takes over the dead one's leases (CRAWLER_NODE_TIMEOUT) and finishes
        resumed = crawl("n1", starts, resumed_dir, redis_server.url,
                        {str(resumed_dir / "items.jl"): {"format": "jsonlines"}},
                        resumed_dir / "stdout")
        assert resumed.wait(120) == 0, (resumed_dir / "n1.log").read_text()[-3000:]
    again = set(_urls((resumed_dir / "items.jl").read_bytes()))
    batches = sorted(killed_dir.glob("batch-*.jl"))
    assert len(batches) > 1  # (the kill came after a few batches were closed)
    written = {
        "gzip": _urls(gunzip_readable(killed_dir / "items.jl.gz")),
        "batches": [u for path in batches for u in _urls(path.read_bytes())],
        "csv": (killed_dir / "items.csv").read_text().split()[1:],
        "stdout": _urls((killed_dir / "stdout").read_bytes()),
    }
    lost = {feed: len(every - set(urls) - again) for feed, urls in written.items()}
    assert lost == dict.fromkeys(written, 0), f"items of acked pages lost: {lost}"
    assert all(len(urls) > 0 for urls in written.values())


@pytest.mark.slow
def test_a_crawl_resumed_into_the_killed_runs_feeds_leaves_each_file_whole(
        redis_server: RedisServer, tmp_path: Path) -> None:
    """The same command run again after a SIGKILL appends to the same files: each is still
    one a standard reader reads to its end (gzip, bz2, lines), and holds every page."""
    site = wide_site(4, 100)
    feeds = {str(tmp_path / "items.jl.gz"): {"format": "jsonlines", "postprocessing": [GZIP]},
             str(tmp_path / "items.jl.bz2"): {"format": "jsonlines", "postprocessing": [
                 "scrapy.extensions.postprocessing.Bz2Plugin"]},
             str(tmp_path / "items.jl"): {"format": "jsonlines"}}
    with LoopbackServer(site) as server:
        starts = [o + "/" for o in server.origins]
        every = {o + p for o in server.origins for p in ["/", *(f"/p{i}" for i in range(100))]}
        node = crawl("n0", starts, tmp_path, redis_server.url, feeds, tmp_path / "stdout-0")
        assert server.recorder.wait_fetched(150, 120), (tmp_path / "n0.log").read_text()[-3000:]
        node.send_signal(signal.SIGKILL)
        assert node.wait(30) == -signal.SIGKILL
        gz_killed = (tmp_path / "items.jl.gz").stat().st_size
        resumed = crawl("n1", starts, tmp_path, redis_server.url, feeds, tmp_path / "stdout-1")
        assert resumed.wait(120) == 0, (tmp_path / "n1.log").read_text()[-3000:]
    assert gz_killed, "the killed run wrote to its gzip feed"
    for name, read in (("items.jl.gz", gzip.decompress), ("items.jl.bz2", bz2.decompress),
                       ("items.jl", bytes)):
        data = read((tmp_path / name).read_bytes())  # a broken stream raises here
        assert data.endswith(b"\n"), name
        urls = {json.loads(line)["url"] for line in data.splitlines()}  # every line whole
        assert urls == every, (name, len(every - urls))
