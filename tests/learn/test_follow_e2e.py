"""End to end: ``scrapy crawl forum -a profile=none`` on a small forum whose pages carry every
kind of action link (reply, new thread, quote, edit, login, register, search, print, mark-read,
a form's target, ``rel=nofollow``), threads over several pages, and later pages linked from the
board before the crawl knows the site. The real HTTP server counts what is asked: every page
is fetched once, no action link is fetched, and every post comes out once, also of threads
linked under two URL forms."""

from __future__ import annotations

import html
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from crawler.demo.fixture_server import FixtureServer
from tests.helpers.crawl import CrawlResult, run_crawl
from tests.learn.forms import Forum, Post, write_site

_TEXTS = [
    "The new controller firmware fixed the fan curve for me, after a cold restart and a cache clear.",
    "Mine still ramps up at idle; I think the sensor offset is wrong on the older board revision.",
    "Try the beta release, it reads the case sensor instead of the chipset one and settles quickly.",
    "I measured forty degrees before the update and thirty-six after it, same room and same probe.",
    "Support told me the same thing on the phone and said a proper fix comes with the next release.",
    "Has anyone tried it with the passive cooler? I worry that the curve starts the fan too late.",
    "The passive cooler works fine here, the fan only starts once the load stays high for a minute.",
]
_NAMES = ["alice", "bruno", "chloe", "dieter", "emma"]
#: Action links on every page: none may be fetched.
_ACTIONS = ["/login/", "/member/register/", "/search/?q=fan", "/markread/1/",
            "/?thread-create-1.htm", "/posting.php?mode=reply&t={t}", "/topic/{t}/reply/",
            "/topic/{t}/quote/{p}/", "/topic/{t}/edit/{p}/", "/topic/{t}/print/"]
_NOFOLLOW = "/who-liked/{t}/"
_FORM = "/topic/{t}/answer-box/"


def _page(title: str, body: str, t: int = 0, p: int = 0) -> str:
    actions = "".join(f"<a href='{a.format(t=t, p=p)}'>{i}</a> " for i, a in enumerate(_ACTIONS))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)} - Bench</title></head>"
            f"<body><div id='nav'><a href='/'>Bench</a> <a href='/forum/1/'>Hardware</a> {actions}</div>"
            f"<a href='{_NOFOLLOW.format(t=t)}' rel='nofollow'>liked</a>{body}"
            f"<a href='{_FORM.format(t=t)}'>Answer</a><form method='post' action='{_FORM.format(t=t)}'>"
            "<textarea name='m'></textarea></form><div id='footer'>bench</div></body></html>")


def _forum() -> Forum:
    forum = Forum()
    pages = {41: 3, 42: 1, 43: 2, 44: 1, 45: 2}
    rows = []
    for tid, count in pages.items():
        posts = [Post(_NAMES[(tid + i) % 5], f"2024-05-{10 + i % 18:02d}",
                      f"{_TEXTS[(tid + i) % len(_TEXTS)]} ({tid}-{i})")
                 for i in range(4 * count)]
        forum.threads[str(tid)] = posts
        later = "".join(f" <a href='/topic/{tid}/?page={n}'>{n}</a>" for n in range(2, count + 1))
        rows.append(f"<li class='row'><a class='title' href='/topic/{tid}/'>Fan curve question {tid}</a>{later}"
                    " <span>4 replies</span></li>")
        for number in range(1, count + 1):
            items = "".join(
                f"<article class='message' id='m{tid}{number}{i}'><div class='user'><a class='username' "
                f"href='/member/{p.author}/'>{p.author}</a></div><div class='main'><time "
                f"datetime='{p.day}T10:0{i}:00Z'>{p.day}</time><div class='body'>{p.text}</div></div></article>"
                for i, p in enumerate(posts[(number - 1) * 4 : number * 4]))
            pager = "".join(f"<a href='/topic/{tid}/" + (f"?page={n}" if n > 1 else "") + f"'>{n}</a> "
                            for n in range(1, count + 1) if n != number)
            route = f"/topic/{tid}/" + (f"?page={number}" if number > 1 else "")
            forum.pages[route] = _page(f"Fan curve question {tid}", f"<h1>Fan curve question {tid}</h1>"
                                       f"<div class='pages'>{pager}</div>{items}", tid, number)
    # The index's "latest" box links two threads under a second URL form (with a slug), which
    # shows the same pages: one thread each, read once.
    for tid in (41, 44):
        forum.pages[f"/topic/{tid}/fan-curve-question-{tid}/"] = forum.pages[f"/topic/{tid}/"]
    latest = "".join(f"<li><a href='/topic/{t}/fan-curve-question-{t}/'>Fan curve question {t}</a></li>"
                     for t in (41, 44))
    forum.pages["/"] = _page("Index", f"<a href='/forum/1/'>Hardware</a><ul class='latest'>{latest}</ul>")
    forum.pages["/forum/1/"] = _page("Hardware", "<ul>" + "".join(rows[:3]) + "</ul><a href='/forum/1/?page=2'>2</a>")
    forum.pages["/forum/1/?page=2"] = _page("Hardware", "<ul>" + "".join(rows[3:]) + "</ul><a href='/forum/1/'>1</a>")
    return forum


@pytest.fixture(scope="module")
def crawled() -> tuple[Forum, CrawlResult, list[str]]:
    forum = _forum()
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        write_site(forum, site)
        with FixtureServer(site) as server:
            result = run_crawl("forum", server.base_url + "/", Path(tmp) / "out.jl", args={"profile": "none"})
            asked = [r for r in server.requests if r != "/robots.txt"]
    return forum, result, asked


def test_each_url_fetched_once(crawled: tuple[Forum, CrawlResult, list[str]]) -> None:
    _, _, asked = crawled
    again = {url: n for url, n in Counter(asked).items() if n > 1}
    assert not again, f"fetched more than once: {again}"


def test_no_action_link_fetched(crawled: tuple[Forum, CrawlResult, list[str]]) -> None:
    forum, _, asked = crawled
    pages = set(forum.pages)
    assert [url for url in asked if url not in pages] == []


def test_every_post_once(crawled: tuple[Forum, CrawlResult, list[str]]) -> None:
    forum, result, _ = crawled
    assert result.stats.get("items/dropped/duplicate", 0) == 0  # no thread read twice
    got = Counter(i["body_html"] for i in result.items if i["item_type"] == "post")
    wanted = Counter(p.text for posts in forum.threads.values() for p in posts)
    assert {k for k in got for w in wanted if w in k} and len(got) == sum(wanted.values())
    assert all(n == 1 for n in got.values())
    for text in wanted:
        assert sum(1 for body in got if text in body) == 1, text


def test_positions_continue_across_pages(crawled: tuple[Forum, CrawlResult, list[str]]) -> None:
    _, result, _ = crawled
    by_thread: dict[str, list[int]] = {}
    for item in result.items:
        if item["item_type"] == "post":
            by_thread.setdefault(item["thread_id"], []).append(item["position"])
    assert sorted(sorted(p) for p in by_thread.values()) == sorted(
        list(range(1, 4 * n + 1)) for n in (3, 1, 2, 1, 2))
