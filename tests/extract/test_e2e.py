"""End to end: ``scrapy crawl <engine>`` against each engine's fixture site.

Two checks per engine: the items equal ``expected.json`` (written by
``scripts/update_profile_fixtures.py --overwrite-json``), and, independently of that file, they
agree with the content model the fixture site was rendered from (every thread and post found,
positions, authors, instants, quotes, edits).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from crawler.demo.fixture_server import route_key
from crawler.profiles import get_profile
from crawler.profiles.base import limits_of
from tests.extract.sitegen.content import build
from tests.helpers.expected import crawl_fixture, engines, load_expected, site_engine

ENGINES = engines()


@pytest.fixture(scope="module", params=ENGINES)
def crawled(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]], Any, Any]:
    engine = request.param
    items, result, server = crawl_fixture(engine)
    return engine, items, result, server


def _by_type(items: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    key = "post_id" if kind == "post" else "thread_id"
    return {item[key]: item for item in items if item["item_type"] == kind}


def test_items_equal_expected_json(crawled: tuple[str, list[dict[str, Any]], Any, Any]) -> None:
    engine, items, _, _ = crawled
    expected = load_expected(engine)
    assert [i.get("post_id") or i["thread_id"] for i in items] == [
        i.get("post_id") or i["thread_id"] for i in expected
    ], "item set changed; run scripts/update_profile_fixtures.py to see the difference"
    for got, want in zip(items, expected, strict=True):
        assert got == want


def test_every_thread_and_post_found(crawled: tuple[str, list[dict[str, Any]], Any, Any]) -> None:
    _, items, result, server = crawled
    boards = build()
    threads = [t for b in boards for t in b.threads if not t.denied]
    assert set(_by_type(items, "thread")) == {str(t.id) for t in threads}
    assert set(_by_type(items, "post")) == {str(p.id) for t in threads for p in t.posts}
    # The denied thread: a soft 404 (HTTP 200 error page) on most engines, a real 403 on Discourse.
    refused = result.stats.get("forum/soft_404", 0) + result.stats.get("httperror/response_ignored_count", 0)
    # or a "log in first" page, which ends as one of its own (crawler/login: NodeBB's)
    refused = refused or result.stats.get("login/pages/login_required", 0)
    assert refused == 1, "the denied thread must be recognised as refused, once"
    unknown = [target for target in server.requests
               if route_key(target) not in server.routes and target != "/robots.txt"]
    assert not unknown, "requested URLs the site does not have (session ids not dropped?)"


def test_fields_agree_with_content_model(crawled: tuple[str, list[dict[str, Any]], Any, Any]) -> None:
    # What the engine never shows (its profile's declared limits) is not checked.
    site, items, _, _ = crawled
    limits = limits_of(get_profile(site_engine(site)))
    posts = _by_type(items, "post")
    threads = _by_type(items, "thread")
    for board in build():
        for thread in board.threads:
            if thread.denied:
                continue
            got_thread = threads[str(thread.id)]
            assert got_thread["title"] == thread.title
            if "board_ids" not in limits:
                assert got_thread["board"]["id"] == str(board.id)
            assert got_thread["board"]["name"] == board.name
            assert got_thread["author"]["name"] == thread.posts[0].author.name
            assert _same_time(got_thread["created"], thread.posts[0].at, limits)
            for position, post in enumerate(thread.posts, 1):
                got = posts[str(post.id)]
                assert got["thread_id"] == str(thread.id)
                assert got["position"] == position
                assert got["author"]["name"] == post.author.name
                assert _same_time(got["created"], post.at, limits)
                if "edits" not in limits:
                    assert got["edited"] == bool(post.edited_at)
                if "quote_ids" not in limits:
                    assert got["quoted_post_ids"] == ([str(post.quote_of)] if post.quote_of else [])
                for paragraph in post.paragraphs:
                    assert paragraph in got["body_text"]
                if post.code:
                    assert 'return "hello & <world>"' in got["body_text"]
                    assert "    if name:" in got["body_text"], "code indentation lost"


def _same_time(value: str, at: datetime, limits: frozenset[str]) -> bool:
    got = _instant(value)
    return got.date() == at.date() if "clock_time" in limits else got == at


def test_quotes_left_out_of_body_text(crawled: tuple[str, list[dict[str, Any]], Any, Any]) -> None:
    _, items, _, _ = crawled
    posts = _by_type(items, "post")
    # 1004 quotes 1001's first paragraph; the quote is in body_html but not in body_text.
    quoted = "大家好，这是第一帖"
    assert quoted in posts["1004"]["body_html"]
    assert quoted not in posts["1004"]["body_text"]


def _instant(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    assert parsed.tzinfo is not None, f"{value!r} is not timezone-aware"
    return parsed


@pytest.mark.parametrize("site", ["discuz", "discourse", "smf", "vbulletin3"])
def test_forum_spider_detects_engine_and_gets_the_same_items(site: str) -> None:
    # GBK behind a lying header (Discuz), an HTML start page leading to a JSON API (Discourse),
    # absolute links and offsets (SMF), an older markup version of an engine (vBulletin 3.8):
    # detection must pick the profile and change nothing else.
    items, result, _ = crawl_fixture(site, spider="forum")
    engine = site_engine(site)
    assert result.stats.get(f"profiles/detected/{engine}") == 1
    if site != engine:
        assert result.stats.get(f"profiles/detected/{engine}/{site.removeprefix(engine)}") == 1
    assert "profiles/undetected" not in result.stats
    assert items == load_expected(site)
