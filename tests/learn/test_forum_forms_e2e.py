"""End to end: ``scrapy crawl forum -a profile=none`` on small forums in the URL, pager, layout
and date forms that issue 26 lists (:mod:`tests.learn.forms`): icon-only relative pagers,
slug-and-id paths, routes in the query string, table posts of two rows with German dates,
French bylines, an empty 200 body and a cycle of "next" links. Every post of every thread
page must come out once, with its author and its calendar day.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from crawler.demo.fixture_server import FixtureServer
from tests.helpers.crawl import CrawlResult, run_crawl
from tests.learn.forms import FORMS, Forum, write_site


def _crawl(name: str) -> tuple[Forum, CrawlResult, list[str]]:
    forum = FORMS[name]()
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        write_site(forum, site)
        with FixtureServer(site) as server:
            result = run_crawl("forum", server.base_url + "/", Path(tmp) / "out.jl", args={"profile": "none"})
            asked = server.requests
    return forum, result, asked


@pytest.fixture(scope="module", params=sorted(FORMS))
def crawled(request: pytest.FixtureRequest) -> tuple[str, Forum, CrawlResult, list[str]]:
    return (request.param, *_crawl(request.param))


def _posts(result: CrawlResult) -> list[dict[str, Any]]:
    return [i for i in result.items if i["item_type"] == "post"]


def test_every_post_once_with_author_and_day(crawled: tuple[str, Forum, CrawlResult, list[str]]) -> None:
    name, forum, result, _ = crawled
    got = Counter((p["author"]["name"], (p.get("created") or "")[:10], p["body_text"]) for p in _posts(result))
    wanted = Counter((post.author, post.day, post.text) for posts in forum.threads.values() for post in posts)
    assert got == wanted, f"{name}: missing {wanted - got}, extra {got - wanted}"


def test_no_spider_error(crawled: tuple[str, Forum, CrawlResult, list[str]]) -> None:
    name, _, result, _ = crawled
    assert "Traceback" not in result.log, name
    assert not result.stats.get("spider_exceptions/count"), name


def test_positions_count_from_the_opening_post(crawled: tuple[str, Forum, CrawlResult, list[str]]) -> None:
    name, forum, result, _ = crawled
    by_thread: dict[str, list[int]] = {}
    for post in _posts(result):
        by_thread.setdefault(post["thread_id"], []).append(post["position"])
    assert sorted(len(v) for v in by_thread.values()) == sorted(len(v) for v in forum.threads.values()), name
    for positions in by_thread.values():
        assert sorted(positions) == list(range(1, len(positions) + 1)), name


def test_empty_body_is_an_outcome() -> None:
    _, result, asked = _crawl("empty_body")
    assert "/threads/14/" in asked
    assert result.stats.get("outcomes/empty_body") == 1
    assert "Document is empty" not in result.log


def test_cycle_of_next_links_followed_once_per_page() -> None:
    _, result, asked = _crawl("next_cycle")
    pages = Counter(path for path in asked if path.startswith("/topic/61"))
    # The walk reads each page once; a page may be fetched once more while the site is learned.
    assert set(pages) >= {"/topic/61", "/topic/61/2", "/topic/61/3"}
    assert all(count <= 2 for count in pages.values()), pages
    assert "says its thread goes on" not in result.log
