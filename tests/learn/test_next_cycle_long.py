"""A long thread whose last page's "next" link goes back to page 2 (issue 27, item 8: 5,130
requests in 90 s on a 129-page site, the learned fallback trapped in the cycle).

``scrapy crawl forum -a profile=none`` (the learned fallback) on a fixture forum served on
127.0.0.1: three threads, one of them 48 pages (the trap is the same at any length) linked by
``rel=next`` only, its last page's "next" pointing back to page 2. The walk must read each page
once and stop: every post once, no page fetched more than twice (once more while the site is
learned), and the crawl ends. Two URL forms: numbered pages (``/topic/61/7``), and opaque page
URLs (``/topic/61/qhzkce``) where no page number can be read from the URL, so only the walk's
memory can see the cycle.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from crawler.demo.fixture_server import FixtureServer
from tests.helpers.crawl import run_crawl
from tests.learn.forms import Forum, _listing, _page, _posts, write_site

PAGES = 48
PER_PAGE = 3


def _route(tid: int, number: int, opaque: bool) -> str:
    if number == 1:
        return f"/topic/{tid}"
    if opaque:
        # letters only: no number in it that could pass for a page number
        token = hashlib.sha1(f"{tid}-{number}".encode()).digest()[:6]
        return f"/topic/{tid}/" + "".join(chr(ord("a") + b % 26) for b in token)
    return f"/topic/{tid}/{number}"


def long_cycle(opaque: bool) -> Forum:
    forum = Forum()
    forum.pages["/"] = _listing([(f"/topic/{t}", f"Long discussion number {t}") for t in (61, 62, 63)])
    for tid in (61, 62, 63):
        pages = PAGES if tid == 61 else 1
        posts = _posts(tid, PER_PAGE * pages, ["2022-05-1" + str(d) for d in range(9)])
        forum.threads[str(tid)] = posts
        for number in range(1, pages + 1):
            chunk = posts[(number - 1) * PER_PAGE: number * PER_PAGE]
            items = "".join(
                f"<div class='entry' id='msg{tid}{number:03d}{i}'><a class='poster' href='/profile/{p.author}'>"
                f"{p.author}</a> <span class='when'>{p.day} 12:0{i}</span><div class='text'>{p.text}</div></div>"
                for i, p in enumerate(chunk))
            # the last page's "next" goes back to page 2
            nxt = _route(tid, number + 1 if number < pages else 2, opaque) if pages > 1 else ""
            link = f"<a rel='next' href='{nxt}'>Next</a>" if nxt else ""
            forum.pages[_route(tid, number, opaque)] = _page(f"Discussion {tid}",
                                                             f"<h1>Discussion {tid}</h1>{items}{link}")
    return forum


@pytest.mark.parametrize("opaque", [False, True], ids=["numbered", "opaque"])
def test_a_next_link_back_to_page_2_of_a_long_thread_is_followed_once(opaque: bool) -> None:
    forum = long_cycle(opaque)
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        write_site(forum, site)
        with FixtureServer(site) as server:
            # a trapped crawl never ends: the page budget stops it, and the counts below tell
            result = run_crawl("forum", server.base_url + "/", Path(tmp) / "out.jl",
                               args={"profile": "none"},
                               settings={"CLOSESPIDER_PAGECOUNT": str(4 * len(forum.pages))},
                               timeout=300)
            asked = server.requests
    pages = Counter(path for path in asked if path.startswith("/topic/61"))
    assert len(pages) == PAGES, sorted(set(_route(61, n, opaque) for n in range(1, PAGES + 1)) - set(pages))
    assert max(pages.values()) <= 2, pages.most_common(5)
    assert len(asked) <= 2 * len(forum.pages) + 10, len(asked)
    assert result.stats.get("finish_reason") != "closespider_pagecount", result.stats
    posts = Counter(p["body_text"] for p in result.items if p["item_type"] == "post" and p["thread_id"] == "61")
    assert len(posts) == PAGES * PER_PAGE and max(posts.values()) == 1, (len(posts), posts.most_common(2))
