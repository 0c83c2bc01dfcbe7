"""What ``scrapy crawl`` exits with, and the crawl it picks (issue 29): a start URL the netguard
refuses ends at once, one crawl (state folder) per site by default, one process per embedded
state, exit statuses a script can tell apart (the README's table).

Real crawls of fixture sites on 127.0.0.1, on the embedded Redis in a test's own state folder.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from crawler.commands.crawl import (
    EXIT_FORCED,
    EXIT_NOTHING_FETCHED,
    EXIT_STOPPED,
    exit_status,
)
from crawler.state import default_crawl_id
from tests.helpers import ROOT, forked
from tests.sitekit import FixtureSites

DEAD = "http://127.0.0.1:9/"  # the discard port: connection refused
ALLOW = ["-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True"]
FAST = ["-s", "CRAWLER_IDLE_CLOSE=1", "-s", "DOWNLOAD_DELAY=0", "-s", "CRAWLER_BACKOFF_BASE=0.2",
        "-s", "CRAWLER_BACKOFF_MAX=0.5", "-s", "LOG_LEVEL=INFO", "-s", "TELNETCONSOLE_ENABLED=False"]


def scrapy(*args: str) -> list[str]:
    return [sys.executable, "-m", "scrapy", "crawl", *args]


def run(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """``scrapy crawl ARGS`` to its end, in a process forked from one that imported the
    project (:mod:`tests.helpers.forked`)."""
    return forked.run("scrapy", ["crawl", *args], timeout=timeout)


def last_line(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


def test_a_start_url_on_a_private_address_is_refused_at_once(tmp_path):
    state = tmp_path / "state"
    with FixtureSites(["phpbb"]) as site:
        url = site.start_url("phpbb")
        began = time.monotonic()
        refused = run("forum", "-a", f"start_urls={url}", "-o", str(tmp_path / "out.jl"),
                      "-s", f"CRAWLER_STATE_DIR={state}", *FAST)
        took = time.monotonic() - began
        assert refused.returncode == 2, refused.stderr[-3000:]
        line = last_line(refused.stderr)
        assert line.startswith(f"error: start URL {url} is on 127.0.0.1"), line
        assert line.endswith("add -s CRAWLER_ALLOW_PRIVATE_ADDRESSES=True"), line
        assert "Traceback" not in refused.stderr
        assert took < 30, took  # not a crawl of nothing until the idle close
        assert site.recorder.requests == []
    assert not state.exists(), "no crawl state (nor a 'finished' one) is left behind"
    assert not (tmp_path / "out.jl").exists()


def test_each_site_is_a_crawl_of_its_own_and_one_process_per_crawl(tmp_path):
    state = tmp_path / "state"
    common = ["-s", f"CRAWLER_STATE_DIR={state}", *ALLOW, *FAST]
    with FixtureSites(["phpbb", "discuz"], latency=1.0) as site:  # the first still runs
        site.server.host_latency[1] = 0.0  # discuz's crawl: only phpbb's must last
        phpbb, discuz = site.start_url("phpbb"), site.start_url("discuz")
        first_id = default_crawl_id("forum", [phpbb])
        assert first_id == "forum-127.0.0.1-" + phpbb.split(":")[2].split("/")[0]
        log = tmp_path / "first.log"
        with log.open("w") as out:
            first = subprocess.Popen(scrapy("forum", "-a", f"start_urls={phpbb}",
                                            "-o", str(tmp_path / "phpbb.jl"), *common),
                                     cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True)
        try:
            assert site.recorder.wait_fetched(2, timeout=120), log.read_text()[-3000:]
            # the same site again while it runs: refused in one line, the crawl untouched
            second = run("forum", "-a", f"start_urls={phpbb}", "-o", str(tmp_path / "b.jl"),
                         *common, timeout=120)
            assert second.returncode == 2, second.stderr[-3000:]
            line = last_line(second.stderr)
            assert line.startswith(f"error: crawl state {state / first_id} is in use by another "
                                   f"crawl (pid {first.pid})"), line
            assert "Traceback" not in second.stderr
            # another site at the same time: a new crawl of its own
            other = run("forum", "-a", f"start_urls={discuz}", "-o", str(tmp_path / "discuz.jl"),
                        *common)
            assert other.returncode == 0, other.stderr[-3000:]
            other_id = default_crawl_id("forum", [discuz])
            assert f"Starting a new crawl {other_id} (state: {state / other_id})" in other.stderr
            assert first.wait(180) == 0, log.read_text()[-3000:]
        finally:
            first.kill()
            first.wait()
        assert f"Starting a new crawl {first_id} (state: {state / first_id})" in log.read_text()
        assert sorted(p.name for p in state.iterdir()) == sorted([first_id, other_id])
        assert not (tmp_path / "b.jl").exists()
        # the first site again: an incremental pass of its own crawl, which says so
        site.server.latency = 0.0
        again = run("forum", "-a", f"start_urls={phpbb}", "-o", str(tmp_path / "phpbb.jl"),
                    *common)
        assert again.returncode == 0, again.stderr[-3000:]
        assert f"Crawl {first_id} finished on" in again.stderr
        assert "This run is an incremental pass" in again.stderr


def test_ids_that_would_leave_the_state_folder_are_refused(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    for crawl in ("..", ".", "../x"):
        refused = run("follow", "-a", "start_urls=http://x.test/", "-s", f"CRAWLER_STATE_DIR={state}",
                      "-s", f"CRAWLER_CRAWL_ID={crawl}", *FAST, timeout=60)
        assert refused.returncode == 2, refused.stderr[-2000:]
        assert last_line(refused.stderr).startswith("error: "), refused.stderr[-2000:]
        assert "Traceback" not in refused.stderr
    status = forked.run("crawler", ["purge", "--yes", "--crawl", "..", "--state-dir", str(state)])
    assert status.returncode == 2 and "crawl id '..'" in status.stderr, status.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state"]
    assert list(state.iterdir()) == []


def test_nothing_fetched_is_a_failure(tmp_path):
    result = run("follow", "-a", f"start_urls={DEAD}", "-s", f"CRAWLER_STATE_DIR={tmp_path}",
                 *ALLOW, *FAST)
    assert result.returncode == EXIT_NOTHING_FETCHED, result.stderr[-3000:]
    assert last_line(result.stderr).startswith("error: fetched 0 pages: 1 URLs failed"), \
        result.stderr[-2000:]


@pytest.mark.slow
def test_a_forced_stop_is_a_failure(tmp_path):
    # Scrapy's graceful stop is over at once when nothing is in flight, so the two Ctrl-Cs
    # come while the node is busy: its reactor blocked 5 s in the second page's callback
    # (tests/helpers/stall.py), as a slow callback holds it.
    log = tmp_path / "crawl.log"
    stall = ["-s", 'SPIDER_MIDDLEWARES={"tests.helpers.stall.StallOnce": 10}',
             "-s", "STALL_AT_RESPONSE=2", "-s", "STALL_SECONDS=5"]
    with FixtureSites(["phpbb"]) as site, log.open("w") as out:
        proc = subprocess.Popen(scrapy("forum", "-a", f"start_urls={site.start_url('phpbb')}",
                                       "-s", f"CRAWLER_STATE_DIR={tmp_path / 'state'}", *ALLOW,
                                       *FAST, *stall), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=out)
        try:
            assert site.recorder.wait_fetched(2, timeout=120)  # its callback stalls now
            proc.send_signal(signal.SIGINT)
            time.sleep(0.5)  # the user's second key press, not a synchronisation
            proc.send_signal(signal.SIGINT)  # Ctrl-C twice
            proc.wait(120)
        finally:
            proc.kill()
            proc.wait()
    text = log.read_text()
    assert proc.returncode == EXIT_FORCED, text[-3000:]
    assert "error: forced stop" in text


@pytest.mark.parametrize(("stats", "status"), [
    ({"finish_reason": "finished", "outcomes/fetched": 12}, 0),
    # an incremental pass that found nothing new fetched its listings again (304 included)
    ({"finish_reason": "finished", "outcomes/fetched": 3, "outcomes/filtered": 40}, 0),
    ({"finish_reason": "closespider_pagecount", "outcomes/fetched": 5}, 0),
    ({"finish_reason": "shutdown", "outcomes/fetched": 2}, 0),  # Ctrl-C once: it resumes
    ({"finish_reason": "finished", "outcomes/failed": 2}, EXIT_NOTHING_FETCHED),
    ({"finish_reason": "finished", "outcomes/filtered": 1}, EXIT_NOTHING_FETCHED),  # robots.txt
    # a follow crawl's incremental pass that finds nothing new: its start URLs were seen
    ({"finish_reason": "finished", "outcomes/filtered": 1, "outcomes/filtered/duplicate": 1}, 0),
    ({}, EXIT_FORCED),  # the engine never closed: Ctrl-C twice
    ({"finish_reason": "stalled", "outcomes/fetched": 9}, EXIT_STOPPED),
    ({"finish_reason": "cancelled"}, EXIT_STOPPED),
])
def test_exit_status(stats, status):
    code, message = exit_status(stats)
    assert code == status
    assert (message is None) == (status == 0)


def test_default_crawl_ids():
    assert default_crawl_id("forum", ["http://127.0.0.1:8080/index.php"]) == "forum-127.0.0.1-8080"
    assert default_crawl_id("forum", ["https://bbs.example.cn/"]) == "forum-bbs.example.cn"
    assert default_crawl_id("forum", []) == "forum"
    several = default_crawl_id("follow", ["https://a.example/", "https://b.example/x"])
    assert several.startswith("follow-a.example-2-sites-")
    assert several == default_crawl_id("follow", ["https://a.example/y", "https://b.example/"])
    assert several != default_crawl_id("follow", ["https://a.example/", "https://c.example/"])
    assert default_crawl_id("x", ["http://[::1]:80/"]).startswith("x-")
    for url in ("http://../", "http://a/..%2f..", "http://" + "a" * 300 + "/"):
        crawl = default_crawl_id("forum", [url])
        assert "/" not in crawl and not crawl.startswith(".") and len(crawl) <= 100



def test_the_netguard_names_the_hosts_it_refused_whole():
    """For the frontier's outcomes: a host whose every address was refused is known by name
    (its URLs are filtered/private_address, not failed); one with a public address is not."""
    from twisted.internet.address import IPv4Address

    from crawler.netguard import REFUSED_HOSTS, _PublicOnly, refused_host

    class Receiver:
        def __init__(self) -> None:
            self.addresses: list[str] = []

        def resolutionBegan(self, resolution) -> None:  # noqa: N802
            pass

        def addressResolved(self, address) -> None:  # noqa: N802
            self.addresses.append(address.host)

        def resolutionComplete(self) -> None:  # noqa: N802
            pass

    def resolve(host: str, *addresses: str) -> list[str]:
        receiver = Receiver()
        guard = _PublicOnly(receiver, host, lambda host, address: None)
        for address in addresses:
            guard.addressResolved(IPv4Address("TCP", address, 0))
        guard.resolutionComplete()
        return receiver.addresses

    assert resolve("Intranet.Example", "10.0.0.7", "127.0.0.1") == []
    assert resolve("mixed.example", "10.0.0.8", "93.184.216.34") == ["93.184.216.34"]
    assert refused_host("intranet.example") and refused_host("INTRANET.example")
    assert not refused_host("mixed.example") and not refused_host("public.example")
    REFUSED_HOSTS.discard("intranet.example")


def test_the_state_lock_goes_with_its_process(tmp_path):
    from crawler.state import StateLocked, lock_state, unlock_state

    folder = tmp_path / "forum-bbs.example.org"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from crawler.state import lock_state; "
         "lock_state(sys.argv[1]); print('locked', flush=True); time.sleep(60)", str(folder)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StateLocked, match=rf"in use by another crawl \(pid {holder.pid}\)"):
            lock_state(folder)
    finally:
        holder.kill()  # as a SIGKILL'd crawl: the kernel drops its lock
        holder.wait()
    lock_state(folder)
    lock_state(folder)  # again in the same process: a no-op
    unlock_state(folder)
    unlock_state(folder)
