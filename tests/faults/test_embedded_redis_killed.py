"""The crawl's own embedded redis-server killed mid-crawl (SIGKILL, as the OOM killer
does): the crawl restarts it from its AOF and goes on, instead of waiting for ever.
A real crawl process, its real embedded Redis, a real site on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import time

import psutil
import pytest

from crawler.embedded_redis import EMBEDDED_MAX_RESTARTS
from tests.helpers.nodes import COMMON, embedded_servers
from tests.helpers.ops import wait_until
from tests.sitekit.site import SiteServer

pytestmark = pytest.mark.slow


def test_a_killed_embedded_redis_is_restarted_from_its_aof_and_the_crawl_goes_on(
        tmp_path, nodes) -> None:
    state = tmp_path / "state"
    with SiteServer(hosts=3, pages_per_host=30, latency=0.02, seed=91) as site:
        node = nodes("n0", site.base_urls, **{**COMMON, "DOWNLOAD_DELAY": 0.1})
        assert site.wait_fetched(20, timeout=120), node.output()[-3000:]
        [pid] = wait_until(lambda: embedded_servers(state), 30, what="the embedded server")
        os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        before = len(site.requests)
        # the crawl goes on: a new server, then new pages
        wait_until(lambda: [p for p in embedded_servers(state) if p != pid
                            and psutil.Process(p).status() != psutil.STATUS_ZOMBIE], 30,
                   what="a new embedded server")
        restarted_after = time.monotonic() - killed_at
        assert site.wait_for(lambda: len(site.requests) > before + 5, timeout=30), \
            node.output()[-3000:]
        fetching_after = time.monotonic() - killed_at
        assert node.wait(90) == 0, node.output()[-3000:]
        counts = site.fetch_counts()
    print(f"embedded Redis restarted {restarted_after:.2f} s after its SIGKILL, crawl fetching "
          f"again after {fetching_after:.2f} s; "
          f"{sum(c - 1 for c in counts.values())} pages fetched twice")
    assert site.expected_urls() - set(counts) == set(), "pages lost with the killed Redis"
    log = node.output()
    assert "restarted it from its AOF" in log
    assert "Traceback" not in log
    assert node.stats().get("frontier/embedded_redis_restarts") == 1
    # the restarted server stops with the crawl too
    wait_until(lambda: not [p for p in embedded_servers(state)
                            if psutil.Process(p).status() != psutil.STATUS_ZOMBIE], 30,
               what="the embedded server to stop with the crawl")


def test_an_embedded_redis_that_cannot_restart_stops_the_crawl_with_one_line(
        tmp_path, nodes) -> None:
    state = tmp_path / "state"
    with SiteServer(hosts=2, pages_per_host=30, latency=0.02, seed=92) as site:
        node = nodes("n0", site.base_urls, **{**COMMON, "DOWNLOAD_DELAY": 0.1})
        assert site.wait_fetched(10, timeout=120), node.output()[-3000:]
        [pid] = wait_until(lambda: embedded_servers(state), 30, what="the embedded server")
        # a damaged AOF (the server appends after the damage): no server can load it
        [aof] = state.glob("*/appendonly.aof")
        with aof.open("ab") as damaged:
            damaged.write(b"this is no redis command\r\n")
        os.kill(pid, signal.SIGKILL)
        code = node.wait(90)
    log = node.output()
    assert code == 4, log[-3000:]  # stopped before finishing; it resumes once repaired
    assert log.count("could not be restarted from its AOF") == 1, log[-3000:]
    assert "reason: embedded_redis_lost" in log


def _live_servers(state) -> list[int]:
    """The embedded redis-servers of *state* still running (a killed one stays a zombie)."""
    live = []
    for pid in embedded_servers(state):
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                live.append(pid)
        except psutil.NoSuchProcess:
            pass
    return live


def test_an_embedded_redis_that_keeps_dying_stops_the_crawl_with_one_line(
        tmp_path, nodes) -> None:
    """Killed again after each restart: restarted EMBEDDED_MAX_RESTARTS times, then the crawl
    stops in one line (exit 4) instead of restarting it for ever."""
    state = tmp_path / "state"
    with SiteServer(hosts=3, pages_per_host=80, latency=0.02, seed=93) as site:
        node = nodes("n0", site.base_urls, **{**COMMON, "DOWNLOAD_DELAY": 0.2})
        assert site.wait_fetched(5, timeout=120), node.output()[-3000:]
        killed: list[int] = []
        for restarts in range(EMBEDDED_MAX_RESTARTS + 1):
            [pid] = wait_until(lambda: [p for p in _live_servers(state) if p not in killed], 30,
                               what=f"embedded server #{restarts + 1}")
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            if restarts < EMBEDDED_MAX_RESTARTS:  # restarted: the log says so
                assert wait_until(lambda n=restarts + 1: node.output().count(
                    "restarted it from its AOF") >= n or node.process.poll() is not None, 30,
                    what=f"restart #{restarts + 1}")
        code = node.wait(60)
        fetched = len(site.fetch_counts())
    log = node.output()
    assert code == 4, log[-3000:]  # stopped before finishing; it resumes when run again
    assert fetched < len(site.expected_urls()), "the crawl finished before its Redis was lost"
    assert log.count("restarted it from its AOF") == EMBEDDED_MAX_RESTARTS, log[-3000:]
    assert log.count("The embedded Redis keeps dying") == 1, log[-3000:]
    assert "reason: embedded_redis_lost" in log
    assert "Traceback" not in log, log[-3000:]
    assert node.stats().get("frontier/embedded_redis_restarts") == EMBEDDED_MAX_RESTARTS
    assert node.stats().get("frontier/embedded_redis_lost") == 1
    assert _live_servers(state) == [], "a server started after the last kill"
