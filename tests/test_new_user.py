"""What a new user meets running ``scrapy crawl`` as the README says: the start line, resume
that cannot lose work, the progress lines and the summary, quiet logs (issue 15).

Real crawls of a fixture site (phpBB) plus a dead host, on the embedded Redis.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from crawler.ops.logs import QuietLogFormatter
from crawler.spiders.follow import FollowSpider
from crawler.state import default_crawl_id
from tests.helpers import ROOT
from tests.sitekit import FixtureSites

DEAD = "http://127.0.0.1:9/"  # the discard port: connection refused
FAST = ["-s", "CRAWLER_IDLE_CLOSE=1", "-s", "DOWNLOAD_DELAY=0", "-s", "CRAWLER_PROGRESS_INTERVAL=1",
        "-s", "CRAWLER_BACKOFF_BASE=0.2", "-s", "CRAWLER_BACKOFF_MAX=0.5", "-s", "LOG_LEVEL=INFO",
        "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True"]  # the sites are on 127.0.0.1


@pytest.fixture
def state_name():
    """A relative CRAWLER_STATE_DIR, anchored to the project (removed afterwards)."""
    name = f".crawler-state-test-{uuid.uuid4().hex[:8]}"
    yield name
    shutil.rmtree(ROOT / name, ignore_errors=True)


def crawl(*args: str, cwd: Path = ROOT, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scrapy", "crawl", "follow", *args, *FAST],
                          cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


def lines_at(log: str, level: str) -> list[str]:
    return [line for line in log.splitlines() if f"] {level}: " in line]


def test_a_crawl_then_the_same_command_again(tmp_path, state_name):
    out = tmp_path / "pages.jl"
    with FixtureSites(["phpbb"]) as site:
        urls = f"start_urls={site.start_url('phpbb')},{DEAD}"
        crawl_id = default_crawl_id("follow", [site.start_url("phpbb"), DEAD])  # one per site list
        assert crawl_id.startswith("follow-127.0.0.1-") and "-2-sites-" in crawl_id
        # 1. from a subfolder of the project: the state is the project's all the same
        first = crawl("-a", urls, "-o", str(out), "-s", f"CRAWLER_STATE_DIR={state_name}",
                      cwd=ROOT / "docs")
        assert first.returncode == 0, first.stderr[-3000:]
        state = ROOT / state_name / crawl_id
        assert state.is_dir() and not (ROOT / "docs" / state_name).exists()
        log = first.stderr
        assert f"Starting a new crawl {crawl_id} (state: {state})" in log
        pages = len(out.read_text().splitlines())
        ok = {r.url for r in site.recorder.requests if not r.is_robots and r.status == 200}
        assert pages == len(ok) > 10  # one record per page (404s are not items)

        # progress: totals and rates, no LogStats line beside it, a summary at the end
        progress = [line for line in log.splitlines() if "Progress: " in line]
        assert progress and re.search(r"Progress: \d+ pages \([\d.]+ pages/s\), \d+ records "
                                      r"\([\d.]+ items/s\), \d+ failures?; frontier \d+ queued",
                                      progress[-1]), progress
        assert "Crawled 0 pages" not in log and "scrapy.extensions.logstats" not in log
        summary = log[log.index("Crawl summary:"):]
        fetched = len([r for r in site.recorder.requests if not r.is_robots])
        assert re.search(rf"pages fetched\s+{fetched}\n", summary), summary
        assert re.search(rf"records\s+{pages}\n", summary), summary

        # quiet: no Disabled warnings, no telnet, one line for the dead host, no traceback
        warnings = lines_at(log, "WARNING")
        assert not [w for w in warnings if "Disabled" in w], warnings
        assert "Telnet" not in log and "Traceback" not in log and "\x1b[" not in log
        assert len([line for line in log.splitlines() if "127.0.0.1:9" in line
                    and re.search(r"\] (WARNING|ERROR): ", line)]) == 1, warnings
        assert len(lines_at(log, "ERROR")) == 0
        # the dead host's URL is a failure to report, not a page robots.txt forbade
        failures = subprocess.run([sys.executable, "-m", "crawler", "failures", "-o", "-",
                                   "--state-dir", str(ROOT / state_name)],
                                  cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert failures.returncode == 0, failures.stderr
        assert [(f["url"], f["reason"]) for f in map(json.loads, failures.stdout.splitlines())] \
            == [(DEAD, "robots_unavailable")]

        # 2. the same command again, from the project folder: the crawl says it finished
        again = crawl("-a", urls, "-o", str(out), "-s", f"CRAWLER_STATE_DIR={state_name}")
        assert again.returncode == 0, again.stderr[-3000:]
        finished = [w for w in lines_at(again.stderr, "WARNING") if f"Crawl {crawl_id} finished on" in w]
        assert finished and "delete the state or pick another -s CRAWLER_CRAWL_ID" in finished[0]
        assert len(out.read_text().splitlines()) == pages  # -o appended nothing, lost nothing

        # 3. -O over it is refused before anything is written
        refused = crawl("-a", urls, "-O", str(out), "-s", f"CRAWLER_STATE_DIR={state_name}")
        assert refused.returncode == 2
        assert f"error: -O {out} would overwrite the items of crawl '{crawl_id}'" in refused.stderr
        assert f"append with -o {out}" in refused.stderr
        assert len(out.read_text().splitlines()) == pages


def test_overwrite_refused_with_the_default_state_folder(tmp_path):
    """The default CRAWLER_STATE_DIR (the add-on's), with a crawl id of its own."""
    crawl_id = f"test-{uuid.uuid4().hex[:8]}"
    state = ROOT / ".crawler-state" / crawl_id
    state.mkdir(parents=True)
    (state / "appendonly.aof").write_bytes(b"")  # what a crawl leaves
    out = tmp_path / "items.jl"
    out.write_text('{"url": "http://a.example/"}\n')
    try:
        refused = subprocess.run(
            [sys.executable, "-m", "scrapy", "crawl", "forum", "-a", "start_urls=http://a.example/",
             "-O", f"{out}:jsonlines", "-s", f"CRAWLER_CRAWL_ID={crawl_id}"],
            cwd=ROOT / "docs", capture_output=True, text=True, timeout=120, check=False)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert f"which resumes from {state}" in refused.stderr
    assert out.read_text() == '{"url": "http://a.example/"}\n'


def test_ctrl_c_then_the_same_command_resumes(tmp_path, state_name):
    out = tmp_path / "pages.jl"
    args = ["-o", str(out), "-s", f"CRAWLER_STATE_DIR={state_name}"]
    with FixtureSites(["phpbb"], latency=0.3) as site:
        urls = f"start_urls={site.start_url('phpbb')}"
        proc = subprocess.Popen([sys.executable, "-m", "scrapy", "crawl", "follow", "-a", urls,
                                 *args, *FAST], cwd=ROOT, stderr=subprocess.PIPE, text=True)
        try:
            assert site.recorder.wait_fetched(3, timeout=120)
            proc.send_signal(signal.SIGINT)
            _, log = proc.communicate(timeout=120)
        finally:
            proc.kill()
        assert proc.returncode == 0, log[-3000:]
        before = len(out.read_text().splitlines())
        resumed = crawl("-a", urls, *args)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        crawl_id = re.escape(default_crawl_id("follow", [site.start_url("phpbb")]))
        line = re.search(rf"Resuming crawl {crawl_id}: (\d+) queued, \d+ leased, (\d+) seen", resumed.stderr)
        assert line and int(line.group(1)) > 0 and int(line.group(2)) >= before
        fetched = [r.url for r in site.recorder.requests if not r.is_robots]
        assert len(fetched) == len(set(fetched))  # nothing fetched twice
        ok = [r for r in site.recorder.requests if not r.is_robots and r.status == 200]
        assert len(out.read_text().splitlines()) == len(ok)  # every page, once, kept


def test_dropped_items_are_logged_once_per_reason():
    crawler = get_crawler(FollowSpider, {"LOG_FORMATTER": "crawler.ops.logs.QuietLogFormatter"})
    crawler.spider = FollowSpider(start_urls="http://a.example/")
    crawler.spider.crawler = crawler
    formatter = QuietLogFormatter.from_crawler(crawler)
    levels = [formatter.dropped({}, DropItem(reason), None, crawler.spider)["level"]
              for reason in ("duplicate", "duplicate", "invalid", "duplicate", "invalid")]
    assert levels == [logging.INFO, logging.DEBUG, logging.INFO, logging.DEBUG, logging.DEBUG]
    first = formatter.dropped({}, DropItem("stale"), None, crawler.spider)
    assert "items/dropped/stale" in first["msg"] % first["args"]
    # an explicit level wins
    assert formatter.dropped({}, DropItem("duplicate", log_level="ERROR"), None,
                             crawler.spider)["level"] == logging.ERROR


def test_the_demo_sites_serve_the_engines_markup():
    with FixtureSites(["phpbb", "wordpress"]) as sites:
        import urllib.request  # noqa: PLC0415

        page = urllib.request.urlopen(sites.start_url("phpbb"), timeout=10).read().decode()
        assert "phpBB" in page
        home = urllib.request.urlopen(sites.start_url("wordpress"), timeout=10).read().decode()
        assert "wp-" in home
        assert sites.kind("phpbb") == "forum" and sites.kind("wordpress") == "blog"
    with pytest.raises(ValueError, match="no fixture site 'nope'; the fixture sites are: .*phpbb"):
        FixtureSites(["nope"])




def test_a_terminal_gets_a_live_line(tmp_path):
    """On a terminal, a live line at the bottom (rich) with the log lines printed above it."""
    import os  # noqa: PLC0415
    import pty  # noqa: PLC0415
    import select  # noqa: PLC0415

    with FixtureSites(["phpbb"], latency=0.1) as site:
        master, slave = pty.openpty()
        proc = subprocess.Popen(
            [sys.executable, "-m", "scrapy", "crawl", "follow", "-a", f"start_urls={site.start_url('phpbb')}",
             "-s", f"CRAWLER_STATE_DIR={tmp_path}", *FAST, "-s", "DOWNLOAD_DELAY=0.2"],
            stdin=slave, stdout=slave, stderr=slave, cwd=ROOT)
        os.close(slave)
        out = b""
        try:
            while True:  # read until the crawl closes the terminal (EIO) or exits
                ready, _, _ = select.select([master], [], [], 1)
                if not ready:
                    if proc.poll() is not None:
                        break
                    continue
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                out += data
            assert proc.wait(timeout=60) == 0
        finally:
            proc.kill()
            os.close(master)
    text = out.decode(errors="replace")
    live = re.findall(r"\r?(\d+m\d\ds  \d+ pages \([\d.]+ pages/s\)[^\r\n]*)", text)
    assert len(live) >= 3, text[-3000:]
    assert "\x1b[2K" in text  # redrawn in place
    assert "Crawl summary:" in text and "Spider closed (finished)" in text


def test_download_errors_are_one_line_per_host_without_traceback(caplog):
    """Scrapy's scraper logs a download error (no errback) at ERROR with its traceback."""
    from scrapy import Request  # noqa: PLC0415

    crawler = get_crawler(FollowSpider)
    QuietLogFormatter.from_crawler(crawler)  # installs the per-host filter
    scraper = logging.getLogger("scrapy.core.scraper")
    caplog.set_level(logging.DEBUG)
    for url in ("http://dead.example/a", "http://dead.example/b", "http://other.example/"):
        try:
            raise ConnectionRefusedError("Connection refused")
        except ConnectionRefusedError:
            scraper.error("Error downloading %(request)s", {"request": Request(url)}, exc_info=True)
    try:  # a spider's bug keeps its level and its traceback
        raise KeyError("title")
    except KeyError:
        scraper.error("Spider error processing %(request)s", {"request": Request("http://dead.example/c")},
                      exc_info=True)
    records = [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records if r.name == scraper.name]
    assert [level for level, _, _ in records] == ["WARNING", "DEBUG", "WARNING", "ERROR"]
    assert records[0][1].startswith("Cannot download from dead.example: Connection refused")
    assert all(exc_info is None for _, _, exc_info in records[:3])
    assert records[3][1].startswith("Spider error processing") and records[3][2] is not None
