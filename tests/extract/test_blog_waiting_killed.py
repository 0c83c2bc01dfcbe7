"""A post that waits for its site's feed, in a crawl killed (SIGKILL) and resumed: the promise of
crawler/durable.py (no item of a settled page is lost to a kill) holds for it.

A real crawl: the ``blog`` spider in its own process, the embedded Redis, a loopback server of
two hosts. The blog (host 0) shows its post's day only (Puput 2.2's page, captured); the feed
that has the post's instant is on another host (a feed service, host 1), which holds the feed's
answer until the node is killed. The post's page must not be acked while its article waits.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from crawler.demo.server import LoopbackServer, Response
from tests.helpers import forked
from tests.helpers.crawl import CRAWL_SETTINGS, PROJECT_ROOT, _env

if TYPE_CHECKING:
    from collections.abc import Sequence

PUPUT = Path(__file__).parent.parent / "fixtures" / "blogs_unmodelled" / "puput-2.2.0"
LAB = b"http://127.0.0.1:18223"
POST = "/2024/01/05/post-01/"
HTML, XML = "text/html; charset=utf-8", "application/rss+xml; charset=utf-8"


class _BlogAndFeedHost:
    """Host 0: the blog's home page (naming the feed of host 1) and its post; host 1: the feed,
    answered only once :attr:`feed_open` is set."""

    hosts = 2

    def __init__(self) -> None:
        self.feed_asked = threading.Event()
        self.feed_open = threading.Event()

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response:
        blog, feeds = origins
        if target == "/robots.txt":
            return Response(200, "text/plain", b"User-agent: *\n")
        if host == 1 and target == "/feed/":
            self.feed_asked.set()
            self.feed_open.wait(60)
            return Response(200, XML, (PUPUT / "rss.xml").read_bytes().replace(LAB, blog.encode()))
        if host == 0 and target == "/":
            home = (f'<html><head><title>Notes</title><link rel="alternate" '
                    f'type="application/rss+xml" title="Notes" href="{feeds}/feed/"></head><body>'
                    f'<h1>Notes</h1><article><h2><a href="{POST}">Post 01: Crawling notes</a>'
                    f'</h2><p>Jan. 5, 2024</p></article></body></html>')
            return Response(200, HTML, home.encode())
        if host == 0 and target == POST:
            return Response(200, HTML, (PUPUT / "post.html").read_bytes().replace(
                LAB, blog.encode()))
        return Response(404, HTML, b"<html><body>Not found</body></html>")


def _command(url: str, out: Path, state: Path) -> list[str]:
    command = [sys.executable, "-m", "scrapy", "crawl", "blog", "-a", f"start_url={url}",
               "-o", f"{out}:jsonlines"]
    for name, value in {**CRAWL_SETTINGS, "CRAWLER_STATE_DIR": state}.items():
        command += ["-s", f"{name}={value}"]
    return command


def _articles(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text().splitlines() if path.exists() else []
    return [item for item in map(json.loads, lines) if item["item_type"] == "article"]


@pytest.mark.slow
def test_a_post_waiting_for_its_feed_survives_a_kill_exactly_once(tmp_path: Path) -> None:
    site, out, state = _BlogAndFeedHost(), tmp_path / "items.jl", tmp_path / "state"
    with LoopbackServer(site) as server:
        blog = server.origins[0]
        command = _command(blog + "/", out, state)
        killed = subprocess.Popen(command, cwd=PROJECT_ROOT, env=_env(),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert site.feed_asked.wait(60), "the feed was never asked for"
            assert server.recorder.wait_for(
                lambda: blog + POST in server.recorder.fetched_urls(), 60), "no post fetched"
            # the post waits for the feed: ten heartbeats observed (an acked page's ack is sent
            # at the first), not a synchronisation
            time.sleep(10 * float(CRAWL_SETTINGS["CRAWLER_HEARTBEAT_INTERVAL"]))
        finally:
            killed.send_signal(signal.SIGKILL)
            killed.wait(30)
        assert killed.returncode == -signal.SIGKILL
        assert _articles(out) == []  # nothing was written: the post was waiting
        site.feed_open.set()
        resumed = forked.run("scrapy", command[3:], env=_env(), cwd=PROJECT_ROOT, timeout=180)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
    got = [(a["url"], a["author"], a["published"][:10]) for a in _articles(out)]
    # once; its instant if the resumed crawl read the feed before the post, else its day (the
    # resumed crawl knows the site's feeds once its home page is read again)
    assert got == [(blog + POST, "alice", "2024-01-05")]
