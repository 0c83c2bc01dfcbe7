"""SIGKILL while a post's attachments download: the resumed crawl loses none of them and no
partial file is ever stored (a post's page is acked only once its files are stored)."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from tests.attachments.server import FILES, LabServer
from tests.helpers.crawl import CRAWL_SETTINGS, PROJECT_ROOT, _env

if TYPE_CHECKING:
    from pathlib import Path


def _command(url: str, out: Path, tmp: Path, **settings: Any) -> list[str]:
    command = [sys.executable, "-m", "scrapy", "crawl", "forum", "-a", f"start_urls={url}",
               "-o", f"{out}:jsonlines"]
    for name, value in {**CRAWL_SETTINGS, "CRAWLER_STATE_DIR": tmp / "state",
                        "FILES_STORE": tmp / "files", "CRAWLER_ATTACHMENT_MAXSIZE": 2**20,
                        **settings}.items():
        command += ["-s", f"{name}={value}"]
    return command


@pytest.mark.slow
def test_a_kill_during_downloads_then_a_resume_loses_no_attachment(tmp_path: Path) -> None:
    out = tmp_path / "items.jl"
    # one more request once a file stalled: the crawl is not blocked on it. This small site
    # has few left by then (the other files, waiting on the host's gate, a page or two): in
    # full suite runs as few as two came
    with LabServer("phpbb", stall=True, after_stall=1) as server:
        # a node timeout beyond the test: the killed node's leases wait for the resume; a
        # stalled file holds one of its host's slots (the gate): room for the others
        killed = subprocess.Popen(_command(server.board_url, out, tmp_path,
                                           CRAWLER_NODE_TIMEOUT=300,
                                           CRAWLER_HOST_MAX_INFLIGHT=8),
                                  cwd=PROJECT_ROOT, env=_env(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            assert server.stalled.wait(90), "no attachment download started"
            # the crawl went on (its acks with it) while the post's files were held
            assert server.moved_on.wait(90), [(h.method, h.target) for h in server.log]
        finally:
            killed.send_signal(signal.SIGKILL)
            killed.wait(30)
        server.stall = False
        server.release.set()
        done = subprocess.run(_command(server.board_url, out, tmp_path), cwd=PROJECT_ROOT,
                              env=_env(), capture_output=True, text=True, timeout=180,
                              check=False)
        assert done.returncode == 0, done.stderr[-3000:]

    items = [json.loads(line) for line in out.read_text().splitlines() if line]
    found = {a["id"]: a for i in items if i["item_type"] == "post" for a in i["attachments"]}
    assert {aid: found[aid]["status"] for aid in "1234"} == dict.fromkeys("1234", "stored")
    files = tmp_path / "files"
    assert not any((files / ".partial").iterdir())
    stored = [p for p in files.rglob("*") if p.is_file()]
    assert len(stored) == 3
    for path in stored:  # whole files only: each one's bytes hash to its name
        assert path.name.startswith(hashlib.sha256(path.read_bytes()).hexdigest())
    assert {hashlib.sha256(FILES[aid][0]).hexdigest() for aid in "1234"} \
        == {p.name.split(".")[0] for p in stored}
