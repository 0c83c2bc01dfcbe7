"""Dev blog engines under a second bundled theme: pages captured from the lab's engines with
the theme switched (tests/fixtures/blogs_themes/README.md).

Chyrp Lite's sparrow (like blossom and umbra) shows no post author: only its Atom feed names
one (read first: the listing asks for it before its posts). Serendipity's bootstrap4 wraps its
comment form in ``<section id="reply">`` under an "Add
Comment" heading inside the ``<article>``, and shows each comment's author and date as items of
a list of icons and values, its replies a level class with an underscore (``commentlevel_1``).
Dotclear's Ductile2026 in English dates comments "06/01/2024" under ``lang="en"``: another
page of the site tells the day from the month.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse, XmlResponse
from scrapy.utils.test import get_crawler

from crawler.blogs.generic import BlogPage
from crawler.blogs.urls import canonical
from crawler.blogs.waits import Later
from crawler.dates import normalize_date
from crawler.items import Article, Comment
from crawler.learn import when
from crawler.spiders.blog import BlogSpider
from tests.extract.realsites import load_scorer
from tests.helpers.blog_waits import run_steps

SCORER = load_scorer()
FIXTURES = Path(__file__).parent.parent / "fixtures" / "blogs_themes"
NOW = datetime.now(UTC)


def _response(site: str, name: str, url: str) -> HtmlResponse:
    return HtmlResponse(url, body=(FIXTURES / site / name).read_bytes(), encoding="utf-8")


def _spec(site: str) -> dict:
    return json.loads((FIXTURES / site / "expected.json").read_text())


def _text(markup: str | None) -> str:
    return SCORER.normalise(SCORER.html_text(markup))


def _chyrp_spider() -> tuple[BlogSpider, list[Request]]:
    spec = _spec("chyrp-lite-sparrow")
    spider = BlogSpider.from_crawler(get_crawler(BlogSpider), start_url=spec["index"])
    index = _response("chyrp-lite-sparrow", "index.html", spec["index"])
    feeds = [r for r in spider.parse_listing(index)
             if isinstance(r, Request) and r.callback == spider.parse_feed]
    return spider, feeds


def test_a_post_page_naming_no_author_takes_its_feed_entry_s() -> None:
    spec = _spec("chyrp-lite-sparrow")
    when.prepare()
    page = _response("chyrp-lite-sparrow", "post.html", spec["url"])
    assert BlogPage(page).article().get("author") is None  # the theme shows none
    spider, feeds = _chyrp_spider()
    assert [r.url for r in feeds] == [spec["feed"]]
    feed = XmlResponse(spec["feed"], body=(FIXTURES / "chyrp-lite-sparrow/atom.xml").read_bytes())
    list(spider.parse_feed(feed))
    items = [i for i in spider.parse_page(page, False) if isinstance(i, Article)]
    assert [(a.url, a.title, a.author) for a in items] == [
        (canonical(spec["url"]), spec["title"], spec["author"])]


def test_a_post_page_naming_no_author_waits_for_its_feed_until_the_wait_ends() -> None:
    # a feed may never be read (an earlier run fetched it): the post waits for it, inside its
    # page's callback, until CRAWLER_BLOG_WAIT ends, then goes without an author
    spec = _spec("chyrp-lite-sparrow")
    when.prepare()
    spider, _ = _chyrp_spider()
    page = _response("chyrp-lite-sparrow", "post.html", spec["url"])
    first = list(spider.parse_page(page, False))
    assert [type(i) for i in first if isinstance(i, (Article, Later))] == [Later]
    items = [i for i in run_steps([(lambda: first, ())], ended=True) if isinstance(i, Article)]
    assert [(a.url, a.title, a.author) for a in items] == [
        (canonical(spec["url"]), spec["title"], None)]


def test_a_comment_form_s_section_is_not_part_of_the_body() -> None:
    spec = _spec("serendipity-bootstrap4")["post.html"]
    when.prepare()
    page = BlogPage(_response("serendipity-bootstrap4", "post.html", spec["url"]))
    assert _text(page.article()["body_html"]) == SCORER.normalise(spec["body_text"])


def test_comments_whose_author_and_date_are_items_of_a_list() -> None:
    spec = _spec("serendipity-bootstrap4")["post-comments.html"]
    when.prepare()
    page = BlogPage(_response("serendipity-bootstrap4", "post-comments.html", spec["url"]))
    got = page.comments(canonical(spec["url"]))
    assert [(c["comment_id"], c["author"], SCORER.instant(c["created_raw"]), c["parent_id"],
             _text(c["body_html"])) for c in got] == [
        (c["comment_id"], c["author"], SCORER.instant(c["created"]), c["parent_id"],
         SCORER.normalise(c["body_text"])) for c in spec["comments"]]


@pytest.mark.parametrize("ambiguous_first", [True, False])
def test_numeric_comment_dates_take_the_order_another_page_of_the_site_shows(
        ambiguous_first: bool) -> None:
    # Dotclear in English on Ductile2026: post 01's comments say 06/01/2024 under lang="en"
    # (either order); post 03's say 20/01/2024: the site writes the day first
    site = "dotclear-ductile2026-en"
    spec = _spec(site)
    when.prepare()
    spider = BlogSpider.from_crawler(get_crawler(BlogSpider),
                                     start_url="http://127.0.0.1:18205/index.php/")
    names = ["post-01.html", "post-03.html"]
    steps = []
    for name in names if ambiguous_first else names[::-1]:
        out = list(spider.parse_page(_response(site, name, spec[name]["url"]), False))
        if ambiguous_first and name == "post-01.html":
            # they wait for a page that tells day from month
            assert [type(i) for i in out if isinstance(i, (Comment, Later))] == [Later]
        steps.append((lambda out=out: out, ()))
    got = [c for c in run_steps(steps) if isinstance(c, Comment)]  # no wait ended
    assert sorted((c.author, SCORER.instant(normalize_date(c.created_raw, base=NOW)))
                  for c in got) == sorted(
        (c["author"], SCORER.instant(c["created"])) for n in names for c in spec[n]["comments"])


def test_comments_shown_without_dates_are_read_from_the_post_s_comment_feed() -> None:
    # Chyrp Lite's virgula shows each comment's author and text, no date; the post's <head>
    # names its own Atom feed of comments (under the post's URL), which has them whole
    site = "chyrp-lite-virgula"
    spec = _spec(site)
    when.prepare()
    spider = BlogSpider.from_crawler(get_crawler(BlogSpider), start_url="http://127.0.0.1:18207/")
    out = list(spider.parse_page(_response(site, "post.html", spec["url"]), False))
    asked = [r for r in out if isinstance(r, Request) and r.callback == spider.parse_comment_page]
    assert [r.url for r in asked] == [spec["comments_feed"]]
    feed = XmlResponse(asked[0].url, body=(FIXTURES / site / "comments.xml").read_bytes())
    got = [c for c in asked[0].callback(feed, **asked[0].cb_kwargs) if isinstance(c, Comment)]
    assert [(c.article_url, c.author, SCORER.instant(c.created_raw), _text(c.body_html))
            for c in got] == [(canonical(spec["url"]), c["author"], SCORER.instant(c["created"]),
                               SCORER.normalise(c["body_text"])) for c in spec["comments"]]
