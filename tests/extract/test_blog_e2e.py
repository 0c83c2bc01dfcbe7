"""End to end on the fixture blogs: ``scrapy crawl wordpress`` (REST API, and the HTML fallback
when the API refuses guests) and the generic ``scrapy crawl blog`` (feeds, sitemaps, listings,
trafilatura) on a Hugo blog."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from crawler.demo.fixture_server import FixtureServer
from tests.extract.sitegen import hugo
from tests.extract.sitegen.blog import BPost, build_blog
from tests.helpers.crawl import run_crawl
from tests.helpers.expected import ORIGIN, blog_sites, crawl_fixture, load_expected
from tests.sitekit import SITES as SITES_DIR

SITES = blog_sites()
WORDPRESS = {"wordpress", "wordpress_html"}


def permalink(site: str, post: BPost) -> str:
    return ORIGIN + (hugo.path(post) if site == "hugo" else post.path)


@pytest.fixture(scope="module", params=SITES)
def crawled(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]], Any]:
    items, result, _ = crawl_fixture(request.param)
    return request.param, items, result


def test_all_blog_fixtures_present() -> None:
    assert {"wordpress", "wordpress_html", "hugo"} <= set(SITES)


def test_items_equal_expected_json(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, items, _ = crawled
    assert items == load_expected(site), "run scripts/update_profile_fixtures.py to see the difference"


def test_how_it_was_crawled(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, _, result = crawled
    if site in WORDPRESS:
        mode = "html" if site.endswith("_html") else "api"
        assert result.stats.get(f"wordpress/mode/{mode}") == 1
    else:
        # The feed lists 5 posts, the home pages 6, only the sitemap all 7: all three were used.
        assert result.stats.get("blog/discovered/feed") == hugo.RSS_LIMIT
        assert result.stats.get("blog/discovered/sitemap", 0) >= len(build_blog())
        assert result.stats.get("blog/discovered/listing", 0) >= 1
        assert result.stats.get("blog/articles") == len(build_blog())


def test_every_article(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, items, _ = crawled
    articles = {i["url"]: i for i in items if i["item_type"] == "article"}
    posts = build_blog()
    assert set(articles) == {permalink(site, p) for p in posts}
    for post in posts:
        got = articles[permalink(site, post)]
        assert got["title"] == post.title
        assert got["author"] == post.author.name
        assert got["tags"] == post.tags
        if site in WORDPRESS:
            assert got["categories"] == post.categories
            # API mode: X-WP-Total of the post's comments; HTML: the comments title, if shown.
            count = len(post.comments)
            assert got["comment_count"] == (count if site == "wordpress" else count or None)
        assert datetime.fromisoformat(got["published"]) == post.at
        for part in post.parts:
            for paragraph in part:
                assert paragraph in got["body_text"]
        if post.code:
            assert "    if name:" in got["body_text"]


def test_every_comment_with_parent(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, items, _ = crawled
    comments = {i["comment_id"]: i for i in items if i["item_type"] == "comment"}
    if site not in WORDPRESS:
        assert comments == {}  # the Hugo theme's comments are a JavaScript widget
        return
    posts = build_blog()
    assert set(comments) == {str(c.id) for p in posts for c in p.comments}
    for post in posts:
        for comment in post.comments:
            got = comments[str(comment.id)]
            assert got["article_url"] == permalink(site, post)
            assert got["parent_id"] == (str(comment.parent) if comment.parent else None)
            assert got["author"] == comment.author
            assert datetime.fromisoformat(got["created"]) == comment.at
            assert got["body_text"] == comment.text


def test_generic_blog_spider_on_a_wordpress_theme() -> None:
    # No API, no feed, no sitemap on this site: listing pagination alone must find every post,
    # and the core comment markup gives the comments (both pages) with their parents.
    items, result, _ = crawl_fixture("wordpress_html", spider="blog")
    posts = build_blog()
    articles = {i["url"]: i for i in items if i["item_type"] == "article"}
    assert set(articles) == {ORIGIN + p.path for p in posts}
    assert all(articles[ORIGIN + p.path]["platform"] == "wordpress" for p in posts)
    comments = {i["comment_id"]: i["parent_id"] for i in items if i["item_type"] == "comment"}
    assert comments == {str(c.id): (str(c.parent) if c.parent else None) for p in posts for c in p.comments}
    assert result.stats.get("blog/articles") == len(posts)


@pytest.mark.parametrize("obey", [True, False])
def test_robots_txt_is_fetched_once_and_its_sitemap_read(obey: bool, tmp_path: Path) -> None:
    # Obeyed: the robots.txt middleware's fetch gives the spider the Sitemap lines (no second
    # fetch); not obeyed: the spider fetches it itself, once.
    with FixtureServer(SITES_DIR / "hugo") as server:
        result = run_crawl("blog", server.base_url + "/", tmp_path / "out.jl",
                           settings={"ROBOTSTXT_OBEY": str(obey)})
    assert server.requests.count("/robots.txt") == 1
    assert server.requests.count("/sitemap.xml") == 1
    assert result.stats.get("blog/discovered/sitemap", 0) >= len(build_blog())
    assert len(server.requests) == len(set(server.requests))
