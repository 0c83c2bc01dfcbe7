"""The ``wordpress`` spider logged in reads the theme's pages, not the REST API: WordPress's
REST API answers a cookie session as a guest (it wants an ``X-WP-Nonce``), so it never lists
the user's private posts, which the theme's pages show (measured on the lab's WordPress 6.1:
0/2 private posts through the API, 2/2 through the pages). The home page captured from that
install, which advertises its API."""

from __future__ import annotations

import json
from pathlib import Path

from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from crawler.login.logins import Logins
from crawler.spiders.wordpress import WordPressSpider

SITE = Path(__file__).parents[1] / "fixtures" / "real" / "wordpress-6.1" / "site"
ORIGIN = "http://127.0.0.1:8765"


def _home_requests(logged_in: bool) -> list[str]:
    crawler = get_crawler(WordPressSpider, {"ROBOTSTXT_OBEY": False})
    spider = WordPressSpider.from_crawler(crawler, start_url=ORIGIN + "/")
    crawler.spider = spider
    if logged_in:
        Logins.of(crawler).versions["127.0.0.1:8765"] = 1
    route = json.loads((SITE / "routes.json").read_text())["routes"]["/"]
    body = (SITE / route["file"]).read_bytes().replace(b"http://fixture.invalid", ORIGIN.encode())
    home = HtmlResponse(ORIGIN + "/", body=body, request=Request(ORIGIN + "/"))
    return [r.url for r in spider.parse_home(home) if isinstance(r, Request)]


def test_a_guest_reads_the_rest_api():
    assert any("/wp-json/" in url or "rest_route=" in url for url in _home_requests(False))


def test_a_logged_in_crawl_reads_the_theme_s_pages():
    urls = _home_requests(True)
    assert urls and not any("/wp-json/" in url or "rest_route=" in url for url in urls), urls
    assert any("/2024/" in url for url in urls), urls  # the articles the home page lists
