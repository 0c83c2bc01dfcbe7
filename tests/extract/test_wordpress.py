"""WordPress extraction on the reference pages saved from a real WordPress 6.1 install."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scrapy.http import HtmlResponse

from crawler.blogs.wordpress import WordPress

REF = Path(__file__).resolve().parents[1] / "fixtures" / "reference" / "wordpress-6.1-twentytwentyone"
BASE = "http://127.0.0.1:18081"


def page(name: str, url: str) -> HtmlResponse:
    return HtmlResponse(url=url, body=(REF / name).read_bytes(), encoding="utf-8")


def test_detect_and_api_root() -> None:
    response = page("index.html", BASE + "/")
    assert WordPress.detect(response)
    assert WordPress.api_root(response) == BASE + "/wp-json/"


def test_article_and_threaded_comments_ignore_recent_comments_widget() -> None:
    response = page("post-03.html", BASE + "/2024/01/post-03/")
    article = WordPress.article_from_html(response)
    assert article is not None
    assert article["title"] == "Post 03: Tool review 工具评测"
    assert article["author"] == "Carol Zhang"
    assert article["published_raw"] == "2024-01-17T10:30:00+00:00"
    assert article["categories"] == ["Reviews 评测"] and article["tags"] == ["scrapy", "中文"]
    assert article["comment_count"] == 8
    comments = WordPress.comments_from_html(response, article["url"])
    # Page 1 holds comments 5-10 (8 is a reply to 7); the sidebar lists others (#51, #50…).
    assert [c["comment_id"] for c in comments] == ["5", "6", "7", "8", "9", "10"]
    assert {c["comment_id"]: c["parent_id"] for c in comments}["8"] == "7"
    assert all(c["parent_id"] is None for c in comments if c["comment_id"] != "8")
    assert comments[0]["author"] == "Dave Chen"
    assert WordPress.next_comment_page(response) == BASE + "/2024/01/post-03/comment-page-2/"


def test_second_comment_page() -> None:
    response = page("post-03-comment-page-2.html", BASE + "/2024/01/post-03/comment-page-2/")
    comments = WordPress.comments_from_html(response, BASE + "/2024/01/post-03/")
    assert [(c["comment_id"], c["parent_id"]) for c in comments] == [("11", None), ("12", "11")]
    assert WordPress.next_comment_page(response) is None


def test_index_pagination_and_feed() -> None:
    response = page("index.html", BASE + "/")
    links = WordPress.article_links(response)
    assert len(links) == 5 and links[0] == BASE + "/2024/03/post-15/"
    assert WordPress.next_index_page(response) == BASE + "/page/2/"
    assert WordPress.feed_url(response) == BASE + "/feed/"


def test_split_post_parts() -> None:
    first = page("post-05-split-page-1.html", BASE + "/2024/01/post-05/")
    assert WordPress.part_links(first) == [BASE + "/2024/01/post-05/2/"]
    second = page("post-05-split-page-2.html", BASE + "/2024/01/post-05/2/")
    assert WordPress.part_links(second) == []
    assert "page-links" not in (WordPress.part_body(second) or "")


def test_api_objects() -> None:
    posts = json.loads((REF / "wp-json-posts.json").read_text(encoding="utf-8"))
    article = WordPress.article_from_api(posts[0])
    assert article["url"] == BASE + "/2024/03/post-15/"
    assert article["title"] == "Post 15: Tool review 工具评测"
    assert article["published_raw"] == "2024-03-29T12:30:00+00:00"
    assert "<pre><code" in article["body_html"]
    comments = json.loads((REF / "wp-json-comments-post-5.json").read_text(encoding="utf-8"))
    fields = [WordPress.comment_from_api(c, article["url"]) for c in comments]
    assert [f["comment_id"] for f in fields] == ["4", "3", "2"]
    assert all(f["parent_id"] is None for f in fields)
    assert fields[0]["author"] == "匿名用户"


def real_headers() -> dict[str, str]:
    return dict(
        line.split(": ", 1)
        for line in (REF / "posts-headers.txt").read_text().splitlines()[1:]
        if ": " in line
    )


def test_total_pages_header() -> None:
    response = HtmlResponse(url=BASE + "/wp-json/wp/v2/posts", body=b"[]", headers=real_headers())
    assert WordPress.total_pages(response) == 5


def test_total_items_header() -> None:
    # The comment count of API mode: X-WP-Total of the collection, not the items on one page.
    response = HtmlResponse(url=BASE + "/wp-json/wp/v2/posts", body=b"[]", headers=real_headers())
    assert WordPress.total_items(response, on_page=3) == 15
    # Header stripped (some proxies): the page's items when it is the only page, else unknown.
    bare = HtmlResponse(url=BASE + "/wp-json/wp/v2/comments?post=5", body=b"[]")
    assert WordPress.total_items(bare, on_page=3) == 3
    paged = bare.replace(headers={"X-WP-TotalPages": "2"})
    assert WordPress.total_items(paged, on_page=3) is None


@pytest.mark.parametrize(
    ("root", "expected"),
    [
        ("http://b/wp-json/", "http://b/wp-json/wp/v2/posts?per_page=100&page=2&_embed=author%2Cwp%3Aterm"),
        (
            "http://b/?rest_route=/",
            "http://b/?rest_route=%2Fwp%2Fv2%2Fposts&per_page=100&page=2&_embed=author%2Cwp%3Aterm",
        ),
    ],
)
def test_api_url_forms(root: str, expected: str) -> None:
    assert WordPress().posts_url(root, 2) == expected
