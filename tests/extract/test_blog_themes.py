"""Dev blog engines under a second bundled theme: pages captured from the lab's engines with
the theme switched (tests/fixtures/blogs_themes/README.md).

Chyrp Lite's sparrow (like blossom and umbra) shows no post author: only its Atom feed names
one (read first: the listing asks for it before its posts). Serendipity's bootstrap4 wraps its
comment form in ``<section id="reply">`` under an "Add
Comment" heading inside the ``<article>``, and shows each comment's author and date as items of
a list of icons and values, its replies a level class with an underscore (``commentlevel_1``).
"""

from __future__ import annotations

import json
from pathlib import Path

from scrapy import Request
from scrapy.http import HtmlResponse, XmlResponse
from scrapy.utils.test import get_crawler

from crawler.blogs.generic import BlogPage
from crawler.blogs.urls import canonical
from crawler.items import Article
from crawler.learn import when
from crawler.spiders.blog import BlogSpider
from tests.extract.realsites import load_scorer

SCORER = load_scorer()
FIXTURES = Path(__file__).parent.parent / "fixtures" / "blogs_themes"


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


def test_a_post_page_naming_no_author_read_before_its_feed_is_not_held() -> None:
    # a feed may never be read (a sitemap listed it as a page, an earlier run fetched it)
    spec = _spec("chyrp-lite-sparrow")
    when.prepare()
    spider, _ = _chyrp_spider()
    page = _response("chyrp-lite-sparrow", "post.html", spec["url"])
    items = [i for i in spider.parse_page(page, False) if isinstance(i, Article)]
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
