"""A URL seeded into a running crawl (``python -m crawler seed``) is queued without a callback,
so Scrapy hands its page to the spider's ``parse``: every spider reads it as a page of its site
(the forum spiders as a start page, the blog spiders as an article or a listing), instead of
Scrapy's ``NotImplementedError``. Pages captured from real installs (tests/fixtures/real)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from crawler.items import Article, Post
from crawler.spiders.blog import BlogSpider
from crawler.spiders.forum import ForumSpider
from crawler.spiders.wordpress import WordPressSpider

REAL = Path(__file__).parent / "fixtures" / "real"
ORIGIN = "http://127.0.0.1:8765"


def _page(capture: str, target: str) -> HtmlResponse:
    site = REAL / capture / "site"
    route = json.loads((site / "routes.json").read_text())["routes"][target]
    body = (site / route["file"]).read_bytes().replace(b"http://fixture.invalid", ORIGIN.encode())
    url = ORIGIN + target
    return HtmlResponse(url, body=body, request=Request(url))  # no callback, as seeded


def _read(spider_cls, response: HtmlResponse) -> list:
    crawler = get_crawler(spider_cls, {"ROBOTSTXT_OBEY": False})
    spider = spider_cls.from_crawler(crawler, start_url=ORIGIN + "/")
    crawler.spider = spider
    return list(spider.parse(response))


def test_a_seeded_thread_page_is_read_by_the_forum_spider():
    out = _read(ForumSpider, _page("phpbb-3.3.10", "/viewtopic.php?start=10&t=11"))
    posts = [o for o in out if isinstance(o, Post)]
    assert posts and all(p.thread_id == "11" for p in posts), out[:3]


@pytest.mark.parametrize("spider_cls", [BlogSpider, WordPressSpider])
def test_a_seeded_article_is_read_by_the_blog_spiders(spider_cls):
    out = _read(spider_cls, _page("wordpress-6.1", "/2024/01/post-03/"))
    articles = [o for o in out if isinstance(o, Article)]
    assert len(articles) == 1 and articles[0].url.endswith("/2024/01/post-03/"), out[:3]
