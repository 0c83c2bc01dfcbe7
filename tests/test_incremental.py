"""Run again = an incremental pass, end to end on a phpBB forum that changes between runs.

One crawl of version 1, then the same command on version 2 (same crawl state): the second
run must emit exactly the new and edited items and fetch at most 15% of the first run's
requests. A fresh crawl of version 2 is the oracle for what is new or edited.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from itemadapter import ItemAdapter
from scrapy.http import HtmlResponse

from crawler.demo.server import LoopbackServer
from crawler.incremental.items import VOLATILE, item_digest
from crawler.pipelines import ITEM_PIPELINES
from crawler.profiles import REGISTRY, PageCursor, PageKind
from tests.helpers.changing_blog import ChangingBlog
from tests.helpers.changing_forum import ChangingForum
from tests.helpers.crawl import CrawlResult, run_crawl

FIXTURES = Path(__file__).parent / "fixtures" / "real"
#: Row-driven revisits alone: a deep revisit would read an unchanged thread or article
#: again (tests/test_incremental_deep.py tests those)
NO_DEEP = {"CRAWLER_REVISIT_DEEP_PASSES": "0", "CRAWLER_REVISIT_DEEP_DAYS": "0"}


def _key(item: dict[str, Any]) -> tuple:
    return item["item_type"], item["thread_id"], item.get("post_id")


def _content(item: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in item.items() if k not in VOLATILE}, sort_keys=True)


#: The first run loses post 20312 after RevisitPipeline (on the last page of a thread that
#: gets replies, so read again): it must come out of the second run, as new. Both runs
#: write to the Redis item stream too, whose writes the item digests wait for. The first run
#: has no progress lines: the crawl is marked finished all the same (the second run is a pass).
_LOSE = {"ITEM_PIPELINES": json.dumps({**ITEM_PIPELINES, "tests.helpers.pipelines.LosePosts": 800}),
         "TEST_LOSE_POSTS": "20312", "CRAWLER_ITEMS_STREAM": "True", "CRAWLER_PROGRESS_INTERVAL": "0"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    site, tmp = ChangingForum(boards=3), tmp_path_factory.mktemp("incremental")
    with LoopbackServer(site) as server:
        url = server.origins[0] + site.start
        first = run_crawl("phpbb", url, tmp / "first.jl", settings=_LOSE)
        n_first = len(server.recorder.requests)
        site.version = 2
        again = run_crawl("phpbb", url, tmp / "again.jl",
                          settings={"CRAWLER_ITEMS_STREAM": "True", **NO_DEEP})
        revisit = server.recorder.requests[n_first:]
        fresh_dir = tmp / "fresh"
        fresh_dir.mkdir()
        fresh = run_crawl("phpbb", url, fresh_dir / "fresh.jl")
    return {"first": first, "again": again, "fresh": fresh, "n_first": n_first,
            "revisit": revisit}


def test_the_second_run_emits_exactly_the_new_and_edited_items(runs):
    first: CrawlResult = runs["first"]
    seen = {_key(i): _content(i) for i in first.items}
    fresh = {_key(i): i for i in runs["fresh"].items}
    wanted = {k for k, i in fresh.items() if seen.get(k) != _content(i)}
    got = {_key(i): i for i in runs["again"].items}
    assert len(got) == len(runs["again"].items)
    assert set(got) == wanted
    # what the fixture changed: a new thread with 2 posts, 4 replies, 1 edited post; and
    # the post the first run lost
    assert ("post", "203", "20312") in got and "revision" not in got[("post", "203", "20312")]
    assert sum(1 for k in got if k[0] == "thread") == 1
    assert sum(1 for k in got if k[0] == "post") == 8
    edited = [i for i in got.values() if i.get("revision")]
    assert [(i["post_id"], i["revision"]) for i in edited] == [("10512", 1)]
    for key, item in got.items():  # the same content as a full crawl reads
        assert _content(item) == _content(fresh[key])
    # the page of the reply that spilled over was found, with the right floor
    assert got[("post", "100", "10050")]["position"] == 16


def test_the_second_run_reads_only_the_changed_boards_and_threads(runs):
    revisit, n_first = runs["revisit"], runs["n_first"]
    assert len(revisit) <= 0.15 * n_first, [r.url for r in revisit]
    urls = [r.url for r in revisit]
    # the third board's row on the index did not change: none of its pages is read again
    assert not [u for u in urls if "f=12" in u]
    # the second board's first page did not change, its second did (a reply to thread 203)
    assert any(u.endswith("f=11") for u in urls) and any("f=11&start=3" in u for u in urls)
    threads = {parse_qs(urlsplit(u).query)["t"][0] for u in urls if "viewtopic" in u}
    assert threads == {"100", "105", "203", "999"}  # replied to, and the new one
    stats = runs["again"].stats
    # the index changed (a 200); the boards a changed row leads to are read in full
    assert stats.get("revisit/not_modified", 0) == stats.get("outcomes/fetched/304", 0) == 0
    assert stats["revisit/items/edited"] == 1
    # every URL, revisits included, ends in exactly one outcome
    assert stats["outcomes/discovered"] == \
        stats["outcomes/fetched"] + stats.get("outcomes/filtered", 0) + stats.get("outcomes/failed", 0)
    assert "Revisiting" in runs["again"].log
    assert "revisit/rows/changed" not in runs["first"].stats  # nothing to compare with


@pytest.fixture(scope="module")
def blog_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    site, tmp = ChangingBlog(), tmp_path_factory.mktemp("incremental-blog")
    args = {"timezone": "Asia/Shanghai"}
    with LoopbackServer(site) as server:
        url = server.origins[0] + site.start
        first = run_crawl("blog", url, tmp / "first.jl", args=args)
        n_first = len(server.recorder.requests)
        site.version = 2
        again = run_crawl("blog", url, tmp / "again.jl", args=args, settings=NO_DEEP)
        origin = server.origins[0]
    return {"first": first, "again": again, "n_first": n_first, "origin": origin,
            "revisit": server.recorder.requests[n_first:]}


def test_a_blog_revisit_emits_the_new_article_new_comments_and_the_edited_article(blog_runs):
    origin = blog_runs["origin"]
    got = {(i["item_type"], i.get("url") or i["article_url"], i.get("comment_id")): i
           for i in blog_runs["again"].items}
    assert set(got) == {
        ("article", f"{origin}/2024/02/post-new/", None),
        ("article", f"{origin}/2024/01/post-02/", None),  # edited
        ("comment", f"{origin}/2024/02/post-06/", "1760"),
        ("comment", f"{origin}/2024/02/post-06/", "1761"),
        ("comment", f"{origin}/2024/01/post-04/", "1740"),
    }
    assert got[("article", f"{origin}/2024/01/post-02/", None)]["revision"] == 1
    assert "Edited: a correction." in got[("article", f"{origin}/2024/01/post-02/", None)]["body_text"]
    # listings, plus the articles whose sitemap lastmod changed, and the new one
    fetched = {r.url.removeprefix(origin) for r in blog_runs["revisit"]}
    assert fetched - {"/robots.txt", "/", "/page/2/", "/page/3/", "/sitemap.xml"} == {
        "/2024/02/post-new/", "/2024/02/post-06/", "/2024/01/post-04/", "/2024/01/post-02/"}


@pytest.fixture(scope="module")
def learned_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    site, tmp = ChangingForum(), tmp_path_factory.mktemp("incremental-learned")
    args = {"profile": "none", "fallback": "learned"}  # no phpBB profile: learn the site
    with LoopbackServer(site) as server:
        url = server.origins[0] + site.start
        first = run_crawl("forum", url, tmp / "first.jl", args=args)
        n_first = len(server.recorder.requests)
        site.version = 2
        again = run_crawl("forum", url, tmp / "again.jl", args=args)
    return {"first": first, "again": again, "n_first": n_first,
            "revisit": server.recorder.requests[n_first:]}


def test_the_learned_fallback_marks_listings_and_rows_too(learned_runs):
    got = {_key(i): i.get("revision") for i in learned_runs["again"].items}
    # the same changes the phpBB profile finds: a new thread with 2 posts, 4 replies, an edit
    assert got == {("thread", "999", None): None, ("post", "999", "99900"): None,
                   ("post", "999", "99901"): None, ("post", "203", "20350"): None,
                   ("post", "203", "20351"): None, ("post", "100", "10050"): None,
                   ("post", "105", "10550"): None, ("post", "105", "10512"): 1}
    revisit = learned_runs["revisit"]
    assert len(revisit) <= 0.2 * learned_runs["n_first"], [r.url for r in revisit]
    stats = learned_runs["again"].stats
    assert stats["revisit/rows/changed"] >= 1 and stats["revisit/not_modified"] >= 3


def _discuz_posts(body: bytes) -> list[dict[str, Any]]:
    url = "http://127.0.0.1:18089/forum.php?mod=viewthread&tid=12&page=2"
    response = HtmlResponse(url=url, body=body, encoding="utf-8")
    page = REGISTRY.get("discuz")().read(response, PageKind.THREAD, PageCursor(url=url, page=2), None)
    return [ItemAdapter(p.stamped(site="x", engine="discuz", crawled_at="t")).asdict() for p in page.posts]


def test_an_item_seen_again_is_not_an_edit_for_its_per_view_markup():
    """Discuz! gives code blocks and images new random ids on every view (captured from the
    lab's real install): the same posts again are not edits; a changed word is."""
    body = (FIXTURES / "discuz-x3.5" / "site" / "forum-php-mod-viewthread-page-2-tid-12.html").read_bytes()
    again = re.sub(rb"(code|aimg)_[A-Za-z0-9]+", lambda m: m.group(1) + b"_" + m.group(0)[::-1][:3], body)
    assert again != body
    first, second = _discuz_posts(body), _discuz_posts(again)
    assert [p["body_html"] for p in first] != [p["body_html"] for p in second]
    assert [item_digest(p) for p in first] == [item_digest(p) for p in second]
    edited = _discuz_posts(body.replace(b"def parse(self, response):", b"def parse(self, resp):", 1))
    assert sum(item_digest(a) != item_digest(b) for a, b in zip(first, edited)) == 1
