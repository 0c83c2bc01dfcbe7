"""A post's comments spread over pages, read by the ``blog`` spider without a profile: pages
captured from Chyrp Lite with two comments a page (``&comments_page=2``) and from WordPress
(``/comment-page-2/``), and the pager shapes engines show (oldest or newest first)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from crawler.blogs.comment_pages import comment_pages, shown_page
from crawler.blogs.urls import canonical
from crawler.items import Article, Comment
from crawler.learn import when
from crawler.spiders.blog import BlogSpider

FIXTURES = Path(__file__).parent.parent / "fixtures" / "blogs_unmodelled"
CHYRP = FIXTURES / "chyrp-lite-2026.02.02"
POST = "http://127.0.0.1:18251/?action=view&url=post-01"
PAGE_2 = canonical(POST + "&comments_page=2")


def _response(url: str, path: Path) -> HtmlResponse:
    return HtmlResponse(url, body=path.read_bytes(), encoding="utf-8")


def test_a_post_links_its_next_page_of_comments_by_query() -> None:
    html = (CHYRP / "post-comments-1.html").read_text()
    assert comment_pages(html, POST, POST) == {PAGE_2: 2}
    assert shown_page([2]) == 1  # the post's own URL shows the first page
    # the second page links back to the first, under another address
    back = comment_pages((CHYRP / "post-comments-2.html").read_text(), PAGE_2, POST)
    assert back == {canonical(POST + "&comments_page=1"): 1}


def test_a_post_links_its_next_page_of_comments_by_path() -> None:
    url = "http://127.0.0.1:18081/2024/01/post-03/"
    html = (FIXTURES / "wordpress-6.1" / "post.html").read_text()
    assert comment_pages(html, url, url) == {url + "comment-page-2/": 2}


@pytest.mark.parametrize(("links", "want"), [
    # oldest first, a windowed pager: the post shows page 1
    (["comment-page-2/", "comment-page-3/", "comment-page-10/"], {2: 2, 3: 3, 10: 10}),
    # newest first: the post shows the last page and links back to every other one
    (["comment-page-1/", "comment-page-7/", "comment-page-8/", "comment-page-9/"],
     {1: 1, 7: 7, 8: 8, 9: 9}),
])
def test_every_page_the_pager_names_is_found(links: list[str], want: dict[int, int]) -> None:
    url = "http://h/2024/01/post/"
    pager = "".join(f'<a href="{link}#comments">{link}</a>' for link in links)
    html = f'<html><body><article><h1>Post</h1></article><nav class="comments-pagination">' \
           f'{pager}</nav></body></html>'
    found = comment_pages(html, url, url)
    assert sorted(found.values()) == sorted(want)
    assert shown_page(list(found.values())) == (1 if 1 not in want else max(want) + 1)


def test_links_that_are_not_pages_of_this_post_s_comments_are_not_followed() -> None:
    url = "http://h/node/7"
    html = """<html><body>
      <nav class="pager"><a href="/node/7?page=2">2</a></nav>
      <div id="comments"><a href="/node/7?replytocom=5#respond">Reply</a>
        <a href="/node/8?page=2">other post</a><a href="/node/7?page=1">next comments</a></div>
      </body></html>"""
    # a bare ?page= outside the comment section is the post's own pager
    assert comment_pages(html, url, url) == {"http://h/node/7?page=1": 1}


def test_the_spider_reads_the_second_page_of_comments() -> None:
    when.prepare()
    spider = BlogSpider.from_crawler(get_crawler(BlogSpider), start_url="http://127.0.0.1:18251/")
    first = list(spider.parse_page(_response(POST, CHYRP / "post-comments-1.html"), False))
    requests = [r for r in first if isinstance(r, Request)]
    assert [r.url for r in requests] == [PAGE_2]
    assert [c.author for c in first if isinstance(c, Comment)] == ["Dave Reader", "Erin Li"]
    assert [a.author for a in first if isinstance(a, Article)] == ["Alice Martin"]
    second = list(requests[0].callback(_response(PAGE_2, CHYRP / "post-comments-2.html"),
                                       **requests[0].cb_kwargs))
    assert [(c.article_url, c.author) for c in second] == [
        (POST, "Frank O'Neil"), (POST, "Gao Wei")]  # and no request back to the first page
