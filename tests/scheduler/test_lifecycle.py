"""A crawl's life in a process that outlives it (CrawlerRunner, one crawl after another):
it starts empty unless it opts in, ends as soon as a lone node runs out of work, and its
embedded Redis (with its watchdog) is gone once its Deferred fires."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.helpers import forked
from tests.sitekit.site import SiteServer

if TYPE_CHECKING:
    from tests.helpers.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]
BARE = {"SCHEDULER": "crawler.scheduler.Scheduler", "CRAWLER_ALLOW_PRIVATE_ADDRESSES": True,
        "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "INFO",
        # a wait the crawl must not take: were it taken, the crawl would last this long
        "CRAWLER_IDLE_CLOSE": 30}


def run_in_process(config: dict[str, Any], log: Path) -> list[dict[str, Any]]:
    """The crawls of ``tests.helpers.inprocess``, one dict each; its log goes to *log*."""
    out = forked.run("tests.helpers.inprocess", [json.dumps(config)], cwd=ROOT, timeout=180)
    log.write_text(out.stderr)
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert lines and lines[-1] == {"done": True}, (out.stdout[-2000:], log.read_text()[-3000:])
    return lines[:-1]


def test_in_process_crawls_start_empty_end_at_once_and_stop_their_redis(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with SiteServer(hosts=1, pages_per_host=8, seed=3) as site:
        crawls = run_in_process({"urls": site.base_urls, "crawls": 2,
                                 "settings": {**BARE, "CRAWLER_STATE_DIR": str(state)}},
                                tmp_path / "crawl.log")
        expected = len(site.expected_urls())
        counts = site.fetch_counts()
    log = (tmp_path / "crawl.log").read_text()
    assert [c["reason"] for c in crawls] == ["finished", "finished"]
    # the second crawl of the same spider and site does not resume the first one's
    # finished frontier: it fetches every page again, as with Scrapy's scheduler
    assert [c["pages"] for c in crawls] == [expected, expected]
    assert all(n == 2 for n in counts.values()), counts
    # a lone node on its embedded Redis finishes without CRAWLER_IDLE_CLOSE (30 s here)
    assert all(c["seconds"] < 15 for c in crawls), [c["seconds"] for c in crawls]
    assert log.count("The frontier is empty and nothing is leased: finishing") == 2
    for crawl in crawls:  # its Redis, its watchdog and its temporary state are gone
        assert crawl["redis_pid"] and not crawl["redis_alive"], crawl
        assert crawl["watchdog_alive"] == [], crawl
        assert not Path(crawl["state_dir"]).exists(), crawl
    assert not state.exists(), "a fresh crawl keeps nothing in CRAWLER_STATE_DIR"


def test_a_crawl_that_names_its_state_resumes_it(tmp_path: Path) -> None:
    jobdir = tmp_path / "job"
    with SiteServer(hosts=1, pages_per_host=8, seed=3) as site:
        by_id = run_in_process({"urls": site.base_urls, "crawls": 2, "settings": {
            **BARE, "CRAWLER_STATE_DIR": str(tmp_path / "state"), "CRAWLER_CRAWL_ID": "mine"}},
            tmp_path / "by_id.log")
        by_jobdir = run_in_process({"urls": site.base_urls, "crawls": 2,
                                    "settings": {**BARE, "JOBDIR": str(jobdir)}},
                                   tmp_path / "jobdir.log")
        expected = len(site.expected_urls())
    for crawls, kept in ((by_id, tmp_path / "state" / "mine"), (by_jobdir, None)):
        # the second run finds the first one's finished frontier: nothing new to fetch
        assert [c["pages"] for c in crawls] == [expected, 0], crawls
        assert all(not c["redis_alive"] and c["watchdog_alive"] == [] for c in crawls)
        assert Path(crawls[0]["state_dir"]).is_dir() and crawls[0]["state_dir"] == \
            crawls[1]["state_dir"]
        if kept is not None:
            assert Path(crawls[0]["state_dir"]) == kept
    assert Path(by_jobdir[0]["state_dir"]).parent == jobdir


def test_the_cluster_still_waits_for_other_nodes(tmp_path: Path, redis_server: RedisServer) -> None:
    with SiteServer(hosts=1, pages_per_host=4, seed=3) as site:
        crawls = run_in_process({"urls": site.base_urls, "settings": {
            **BARE, "REDIS_URL": redis_server.url, "CRAWLER_IDLE_CLOSE": 1,
            "CRAWLER_CRAWL_ID": "cluster"}}, tmp_path / "crawl.log")
    log = (tmp_path / "crawl.log").read_text()
    assert crawls[0]["pages"] > 0 and crawls[0]["redis_pid"] is None
    assert "The cluster's frontier has been empty for 1s: finishing" in log


def test_redis_stops_when_the_spider_fails_to_open(tmp_path: Path) -> None:
    with SiteServer(hosts=1, pages_per_host=4, seed=3) as site:
        crawls = run_in_process({"urls": site.base_urls, "crawls": 2, "settings": {
            **BARE, "ITEM_PIPELINES": {"tests.helpers.inprocess.FailingPipeline": 100}}},
            tmp_path / "crawl.log")
    for crawl in crawls:  # the engine never started: no engine_stopped
        assert "cannot open" in crawl["failure"], crawl
        assert crawl["redis_pid"] and not crawl["redis_alive"], crawl
        assert crawl["watchdog_alive"] == [], crawl


def test_a_slow_start_is_not_taken_for_the_end(tmp_path: Path) -> None:
    """Heartbeats that find nothing queued before start() yields anything decide nothing:
    the lone node decides when its engine, idle with every start request queued, asks."""
    with SiteServer(hosts=1, pages_per_host=8, seed=3) as site:
        # the next heartbeat (1 s) comes long after the crawl's first idle moment
        (crawl,) = run_in_process({"urls": site.base_urls, "spider": "late", "settings": BARE},
                                  tmp_path / "crawl.log")
        expected = len(site.expected_urls())
    assert crawl["reason"] == "finished" and crawl["pages"] == expected, crawl
