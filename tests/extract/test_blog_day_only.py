"""Blogs whose pages say less than their feeds, read through the ``blog`` spider: pages captured
from Lektor 3.3 (its quickstart blog) and Puput 2.2 (Wagtail), expected values from each
engine's own truth (tests/fixtures/blogs_unmodelled/README.md).

* Lektor's home page links its blog's list (``/blog/``: the 10 newest posts in full, no
  ``<article>``, no ``<time>``, a byline "written by NAME on 2024-01-05"): reached as a post's
  link, it is an index page whose posts and pager are followed.
* Puput's entry shows only its day ("Jan. 5, 2024"); its RSS feed, linked only in the page's
  sidebar, has the instant: the article takes it whichever of page and feed comes first, and
  keeps the day when the feed never comes.
* A real crawl of one Dotclear page whose comments' numeric dates read either way: they wait
  for a page that tells day from month, and come out when the crawl ends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse, TextResponse, XmlResponse
from scrapy.utils.test import get_crawler

from crawler.blogs.generic import BlogPage
from crawler.blogs.urls import canonical
from crawler.blogs.waits import Later
from crawler.demo.fixture_server import ORIGIN, FixtureServer, route_key
from crawler.items import Article, Comment
from crawler.learn import when
from crawler.spiders.blog import BlogSpider
from tests.helpers.blog_waits import run_steps
from tests.helpers.crawl import run_crawl

FIXTURES = Path(__file__).parent.parent / "fixtures" / "blogs_unmodelled"
LEKTOR, PUPUT = FIXTURES / "lektor-3.3.14", FIXTURES / "puput-2.2.0"


def _spec(site: Path) -> dict[str, Any]:
    return json.loads((site / "expected.json").read_text())


def _html(site: Path, name: str) -> HtmlResponse:
    return HtmlResponse(_spec(site)[name]["url"], body=(site / name).read_bytes(),
                        encoding="utf-8")


def _spider(start: str) -> BlogSpider:
    when.prepare()
    return BlogSpider.from_crawler(get_crawler(BlogSpider), start_url=start)


def test_a_list_of_posts_a_link_led_to_is_an_index_page() -> None:
    spec = _spec(LEKTOR)
    spider = _spider(spec["home.html"]["url"])
    home = [r.url for r in spider.parse_listing(_html(LEKTOR, "home.html"))
            if isinstance(r, Request)]
    assert spec["home.html"]["home"]["blog"] in home
    # /blog/ is requested as a post (a link of the home page): its page lists whole posts
    out = list(spider.parse_page(_html(LEKTOR, "blog.html"), listing=False))
    assert not [i for i in out if isinstance(i, Article)]
    followed = {canonical(r.url) for r in out if isinstance(r, Request)}
    want = spec["blog.html"]["index"]
    assert {canonical(u) for u in want["posts"] + want["pager"]} <= followed


def _puput_items(steps: list[tuple[Any, tuple[Any, ...]]], ended: bool = False) -> list[Any]:
    return [i for i in run_steps(steps, ended) if isinstance(i, (Article, Comment))]


@pytest.mark.parametrize("feed_first", [True, False])
def test_a_post_showing_its_day_takes_the_instant_of_its_feed_entry(feed_first: bool) -> None:
    spec = _spec(PUPUT)["post.html"]
    spider = _spider(_spec(PUPUT)["index.html"]["url"])
    index = _html(PUPUT, "index.html")
    feeds = [r for r in spider.parse_listing(index) if isinstance(r, Request)
             and r.callback == spider.parse_feed]
    # the feed is named only by a link in the sidebar, and asked for before the posts
    assert [(r.url, r.priority) for r in feeds] == [("http://127.0.0.1:18223/feed/", 1)]
    feed = XmlResponse(feeds[0].url, body=(PUPUT / "rss.xml").read_bytes())
    steps = [(spider.parse_feed, (feed,)), (spider.parse_page, (_html(PUPUT, "post.html"), False))]
    items = _puput_items(steps if feed_first else steps[::-1])
    want = spec["feed_article"]
    articles = [i for i in items if isinstance(i, Article)]
    assert [(a.url, a.title, a.author, a.published_raw) for a in articles] == [
        (canonical(want["url"]), want["title"], want["author"], want["published"])]
    assert [c.author for c in items if isinstance(c, Comment)] == [
        c["author"] for c in spec["comments"]]


def test_a_post_waiting_for_a_feed_that_never_comes_keeps_its_day() -> None:
    spec = _spec(PUPUT)["post.html"]
    spider = _spider(_spec(PUPUT)["index.html"]["url"])
    list(spider.parse_listing(_html(PUPUT, "index.html")))
    first = list(spider.parse_page(_html(PUPUT, "post.html"), False))
    # it waits for the feed, inside its page's callback (crawler.blogs.waits)
    assert [type(i) for i in first if isinstance(i, (Article, Later))] == [Later]
    assert not [a for a in _puput_items([(lambda: first, ())]) if isinstance(a, Article)]
    articles = [a for a in _puput_items([(lambda: first, ())], ended=True)
                if isinstance(a, Article)]  # the wait ended (CRAWLER_BLOG_WAIT)
    assert [(a.url, a.published_raw) for a in articles] == [(canonical(spec["url"]),
                                                             "Jan. 5, 2024")]


def test_a_feed_fetched_as_a_page_is_read_as_a_feed() -> None:
    # a sitemap that lists the feed: its page request comes first, the listing's is a duplicate
    spider = _spider(_spec(PUPUT)["index.html"]["url"])
    list(spider.parse_listing(_html(PUPUT, "index.html")))
    feed = XmlResponse("http://127.0.0.1:18223/feed/", body=(PUPUT / "rss.xml").read_bytes())
    list(spider.parse_page(feed, listing=False))
    assert spider.feeds == {"http://127.0.0.1:18223/feed/": True}
    assert canonical(_spec(PUPUT)["post.html"]["url"]) in spider.feed_articles


def test_a_guessed_sitemap_is_asked_once() -> None:
    spider = _spider("http://127.0.0.1:18223/")
    missing = TextResponse("http://127.0.0.1:18223/robots.txt", status=404, body=b"")
    guessed = list(spider.parse_robots(missing))
    assert [(r.url, r.meta.get("max_retry_times")) for r in guessed] == [
        ("http://127.0.0.1:18223/sitemap.xml", 0)]
    named = TextResponse("http://127.0.0.1:18223/robots.txt",
                         body=b"Sitemap: http://127.0.0.1:18223/sitemap-posts.xml\n")
    assert [r.meta.get("max_retry_times") for r in spider.parse_robots(named)] == [None]


def test_the_post_among_teasers_of_itself_and_others() -> None:
    # the newest entry is also a card of the sidebar's "Last Entries" and "Popular Entries",
    # linking to itself: the post is the <article> with text
    spec = _spec(PUPUT)["post-newest.html"]
    page = BlogPage(_html(PUPUT, "post-newest.html"))
    assert page.is_article()
    assert (page.article()["title"], page.article()["author"]) == (
        spec["article"]["title"], spec["article"]["author"])
    assert not BlogPage(_html(PUPUT, "index.html")).is_article()


def test_comments_waiting_for_the_site_s_date_order_come_out_when_the_wait_ends(
        tmp_path: Path) -> None:
    # a real crawl of one Dotclear page (Ductile2026, lang="en") whose comments say 06/01/2024:
    # no page of the site tells day from month, the comments wait in their page's callback
    # until CRAWLER_BLOG_WAIT ends
    site = FIXTURES.parent / "blogs_themes" / "dotclear-ductile2026-en"
    spec = json.loads((site / "expected.json").read_text())["post-01.html"]
    lab = "http://127.0.0.1:18205"
    path = spec["url"][len(lab):]
    (tmp_path / "post.html").write_bytes(
        (site / "post-01.html").read_bytes().replace(lab.encode(), ORIGIN))
    routes = {route_key(path): {"file": "post.html", "content_type": "text/html; charset=utf-8"}}
    (tmp_path / "routes.json").write_text(json.dumps(
        {"date": "Fri, 29 Nov 2026 12:00:00 GMT", "start": path, "routes": routes}))
    with FixtureServer(tmp_path) as server:
        result = run_crawl("blog", server.base_url + path, tmp_path / "out.jl",
                           settings={"CRAWLER_BLOG_WAIT": "1"})
    comments = [i for i in result.items if i["item_type"] == "comment"]
    assert sorted(c["author"] for c in comments) == sorted(c["author"] for c in spec["comments"])
    assert [i["title"] for i in result.items if i["item_type"] == "article"] == [
        "Post 01: Crawling notes 爬虫笔记"]


def test_a_byline_of_words_inside_an_article_dates_and_names_the_post() -> None:
    # Lektor's plain byline line inside an <article> (themes with no <time>): the line holding
    # the only date is the byline, not the text
    when.prepare()
    html = """<html><head><title>Notes - Site</title></head><body><header><h1>Site</h1></header>
      <article><h2>Notes</h2><p class="meta">Posted by Alice Martin on January 5, 2024</p>
      <p>First paragraph of the notes.</p><p>Second paragraph.</p></article></body></html>"""
    page = BlogPage(HtmlResponse("http://h/notes/", body=html.encode(), encoding="utf-8"))
    assert page.is_article()
    got = page.article()
    assert (got["title"], got["author"], got["published_raw"]) == (
        "Notes", "Alice Martin", "January 5, 2024")
    assert "Posted by" not in got["body_html"] and "Second paragraph." in got["body_html"]


def test_a_feed_a_sitemap_index_names_is_read_as_a_feed() -> None:
    # Nikola's sitemapindex.xml names its RSS feeds beside its sitemaps (the protocol allows it)
    site = FIXTURES / "nikola-8.3.3"
    spider = _spider("http://127.0.0.1:18203/")
    index = XmlResponse("http://127.0.0.1:18203/sitemapindex.xml",
                        body=(site / "sitemapindex.xml").read_bytes())
    named = [r for r in spider.parse_sitemap(index) if isinstance(r, Request)]
    assert "http://127.0.0.1:18203/rss.xml" in [r.url for r in named]
    feed = XmlResponse("http://127.0.0.1:18203/rss.xml", body=(site / "rss.xml").read_bytes())
    list(spider.parse_sitemap(feed))
    assert spider.feeds == {"http://127.0.0.1:18203/rss.xml": True}
    assert len(spider.feed_articles) == (site / "rss.xml").read_text().count("<item>")
