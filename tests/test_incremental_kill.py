"""A crawl killed (SIGKILL) mid-way, resumed, then run again on a changed forum: the incremental
pass still finds every new and edited item (issue 27, item 2). The revisit state of a page
(its listing's registration, a thread's last known page, the item digests) is written no
later than the page's ack, so a kill cannot leave an acked page without it.

The heartbeat that used to write that state is set far beyond the crawl's length, so the
kill finds every acked page's state where the node left it, at any moment.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from crawler.demo.server import LoopbackServer
from crawler.incremental.items import VOLATILE
from tests.helpers import forked
from tests.helpers.changing_forum import ChangingForum
from tests.helpers.crawl import CRAWL_SETTINGS, PROJECT_ROOT, _env

if TYPE_CHECKING:
    from pathlib import Path


def _key(item: dict[str, Any]) -> tuple:
    return item["item_type"], item["thread_id"], item.get("post_id")


def _content(item: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in item.items() if k not in VOLATILE}, sort_keys=True)


def _command(url: str, out: Path, state: Path, **settings: Any) -> list[str]:
    command = [sys.executable, "-m", "scrapy", "crawl", "phpbb", "-a", f"start_url={url}",
               "-o", f"{out}:jsonlines"]
    for name, value in {**CRAWL_SETTINGS, "CRAWLER_STATE_DIR": state, **settings}.items():
        command += ["-s", f"{name}={value}"]
    return command


def _items(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line] \
        if path.exists() else []


def _run(command: list[str]) -> None:
    """A crawl the test waits for, forked from the preloaded server (tests/helpers/forked)."""
    done = forked.run("scrapy", command[3:], env=_env(), cwd=PROJECT_ROOT, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.slow
def test_a_kill_then_a_resume_leaves_the_next_pass_every_new_and_edited_item(tmp_path) -> None:
    site, state = ChangingForum(), tmp_path / "state"
    first = tmp_path / "first.jl"
    with LoopbackServer(site) as server:
        url = server.origins[0] + site.start
        slow_beat = {"CRAWLER_HEARTBEAT_INTERVAL": 100, "CRAWLER_NODE_TIMEOUT": 300}
        killed = subprocess.Popen(_command(url, first, state, **slow_beat), cwd=PROJECT_ROOT,
                                  env=_env(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            assert server.recorder.wait_fetched(60, 120)
        finally:
            killed.send_signal(signal.SIGKILL)
            killed.wait(30)
        _run(_command(url, first, state))  # resumed to its end
        site.version = 2
        again = tmp_path / "again.jl"
        _run(_command(url, again, state))  # the incremental pass
        fresh_dir = tmp_path / "fresh"
        fresh_dir.mkdir()
        _run(_command(url, fresh_dir / "fresh.jl", fresh_dir / "state"))
    seen = {_key(i): _content(i) for i in _items(first)}
    wanted = {k for k, i in ((_key(i), i) for i in _items(fresh_dir / "fresh.jl"))
              if seen.get(k) != _content(i)}
    got = {_key(i) for i in _items(again)}
    # the fixture's changes: a new thread with 2 posts, 4 replies, 1 edited post
    assert len(wanted) >= 8
    assert wanted - got == set(), f"the pass missed {len(wanted - got)} of {len(wanted)}"
