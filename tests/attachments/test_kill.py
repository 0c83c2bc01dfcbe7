"""SIGKILL while a post's attachments download: a page is acked only once its files are
stored, the pages around it are acked meanwhile, and the resumed crawl loses no attachment
and stores no partial file.

What holds the page's ack is Scrapy's scraper: a response stays in its slot until every item
of its callback has left the item pipelines, and the node acks no request still in that
slot (:meth:`crawler.node.leases.AckQueue.release`).
"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import pytest

from crawler.frontier.codec import decode
from crawler.frontier.keys import Keys
from tests.attachments.server import FILES, LabServer
from tests.helpers.crawl import CRAWL_SETTINGS, PROJECT_ROOT, _env

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import redis

    from tests.helpers.redis_server import RedisServer

STALLED = "/showthread.php?tid=1"  # attachments 1-5: their answers stall after the headers
AROUND = "/showthread.php?tid=3"  # attachment 6 (denied), on another host, fetched meanwhile


def _command(url: str, out: Path, tmp: Path, **settings: Any) -> list[str]:
    command = [sys.executable, "-m", "scrapy", "crawl", "forum", "-a", f"start_urls={url}",
               "-o", f"{out}:jsonlines"]
    for name, value in {**CRAWL_SETTINGS, "FILES_STORE": tmp / "files",
                        "CRAWLER_ATTACHMENT_MAXSIZE": 2**20, **settings}.items():
        command += ["-s", f"{name}={value}"]
    return command


class _Callbacks:
    """Stands for the spider whose callbacks the leased requests name."""

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


def _leased(client: redis.Redis, node: str) -> set[str]:
    """The URLs *node* holds leases of in Redis (fetched or not, not acked)."""
    entries = client.hgetall(Keys("forum").leases(node)).values()
    return {decode(payload, _Callbacks(), host.decode()).url  # type: ignore[arg-type]
            for host, payload in (entry.split(b"\n", 1) for entry in entries)}


def _wait_until_acked(client: redis.Redis, server: LabServer, url: str,
                      killed: subprocess.Popen) -> None:
    """Wait until the server answered *url*, then until Redis holds no lease of it."""
    deadline = time.monotonic() + 60
    target = url.removeprefix(server.origin)
    while not any(hit.target == target and hit.done for hit in server.log) \
            or url in _leased(client, "n0"):
        assert killed.poll() is None and time.monotonic() < deadline, f"{url} never acked"
        time.sleep(0.05)  # Redis offers no event for a hash field gone


def _posts(out: Path) -> list[dict[str, Any]]:
    lines = out.read_text().splitlines() if out.exists() else []
    return [item for item in map(json.loads, filter(None, lines)) if item["item_type"] == "post"]


@pytest.mark.slow
def test_a_kill_during_downloads_acks_no_page_without_its_files_and_loses_none(
        tmp_path: Path, redis_server: RedisServer) -> None:
    out, resumed_out = tmp_path / "killed.jl", tmp_path / "resumed.jl"
    client = redis_server.client()
    # two hosts: the stalled files hold their own host (its gate), not the other one
    with LabServer("mybb", stall=True) as server, \
            LabServer("mybb", hold={AROUND}, stalled=server.stalled) as other:
        stalled, around = server.origin + STALLED, other.origin + AROUND
        # a node timeout beyond the test: the killed node's leases wait for the resume
        killed = subprocess.Popen(_command(f"{stalled},{around}", out, tmp_path,
                                           REDIS_URL=redis_server.url, CRAWLER_NODE_ID="n0",
                                           CRAWLER_NODE_TIMEOUT=300),
                                  cwd=PROJECT_ROOT, env=_env(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            assert server.stalled.wait(90), "no attachment download started"
            # the other host's page, fetched after the stall, is acked (its one file
            # settled) while the stalled page's files are still on the wire
            _wait_until_acked(client, other, around, killed)
            leased_at_kill = _leased(client, "n0")
        finally:
            killed.send_signal(signal.SIGKILL)
            killed.wait(30)
        assert stalled in leased_at_kill  # its files are not stored: not acked
        # what the killed crawl wrote: the acked page's post with its file settled, the
        # stalled page's posts whose files need no download (5: listed over the cap); its
        # posts with files 1-4 wait for them
        written = {a["id"]: a["status"] for post in _posts(out) for a in post["attachments"]}
        assert written == {"5": "too_large", "6": "denied"}
        server.stall = False
        server.release.set()
        before = len(server.log)
        done = subprocess.run(_command(stalled, resumed_out, tmp_path, REDIS_URL=redis_server.url,
                                       CRAWLER_NODE_ID="n1"),
                              cwd=PROJECT_ROOT, env=_env(), capture_output=True, text=True,
                              timeout=180, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        resumed_targets = [hit.target for hit in server.log[before:]]

    assert STALLED in resumed_targets  # taken back from the killed node, fetched again
    found = {a["id"]: a for post in _posts(out) + _posts(resumed_out)
             for a in post["attachments"]}
    assert {aid: found[aid]["status"] for aid in "123456"} == {
        **dict.fromkeys("1234", "stored"), "5": "too_large", "6": "denied"}
    files = tmp_path / "files"
    assert not any((files / ".partial").iterdir())
    stored = [p for p in files.rglob("*") if p.is_file()]
    for path in stored:  # whole files only: each one's bytes hash to its name
        assert path.name.startswith(hashlib.sha256(path.read_bytes()).hexdigest())
    assert {p.name.split(".")[0] for p in stored} \
        == {hashlib.sha256(FILES[aid][0]).hexdigest() for aid in "1234"}
