"""The WordPress spider's API mode, offline: each Article waits for its first comments page and
takes ``comment_count`` from ``X-WP-Total``; a failed comments request still emits it."""

from __future__ import annotations

import json
from typing import Any

from scrapy import Request
from scrapy.http import TextResponse
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.request import request_from_dict
from scrapy.utils.test import get_crawler
from twisted.python.failure import Failure

from crawler.items import Article, Comment
from crawler.spiders.wordpress import WordPressSpider
from tests.helpers.expected import SITES

SITE = SITES / "wordpress"
ROOT = "http://blog.example/wp-json/"


def spider() -> WordPressSpider:
    crawler = get_crawler(WordPressSpider, settings_dict={"ADDONS": {}})
    crawler.spider = WordPressSpider.from_crawler(
        crawler, start_url="http://blog.example/", per_page="3"
    )
    return crawler.spider  # type: ignore[return-value]


def served(target: str, url: str) -> TextResponse:
    route = json.loads((SITE / "routes.json").read_text(encoding="utf-8"))["routes"][
        target
    ]
    headers = {"Date": "Sat, 02 Mar 2024 04:00:00 GMT", **route.get("headers", {})}
    return TextResponse(
        url=url,
        body=(SITE / route["file"]).read_bytes(),
        encoding="utf-8",
        headers=headers,
    )


def posts_page(s: WordPressSpider, page: int = 1) -> list[Any]:
    target = f"/wp-json/wp/v2/posts?_embed=author%2Cwp%3Aterm&page={page}&per_page=3"
    response = served(target, s.wp.posts_url(ROOT, page))
    response.request = Request(response.url, meta={"home": "http://blog.example/"})
    return list(s.parse_api_posts(response, root=ROOT, page=page))


def test_articles_wait_for_their_comment_count() -> None:
    s = spider()
    out = [r for page in (1, 2, 3) for r in posts_page(s, page)]
    assert not [i for i in out if isinstance(i, Article)], (
        "articles go out with their count"
    )
    routes = json.loads((SITE / "routes.json").read_text(encoding="utf-8"))["routes"]
    counts = []
    for request in (r for r in out if isinstance(r, Request) and "comments" in r.url):
        # The pending article survives the request codec (plain values in cb_kwargs).
        data = request.to_dict(spider=s)
        data["cb_kwargs"] = json.loads(json.dumps(data["cb_kwargs"]))
        request = request_from_dict(data, spider=s)
        target = f"/wp-json/wp/v2/comments?page=1&per_page=3&post={request.cb_kwargs['post_id']}"
        items = list(
            s.parse_api_comments(served(target, request.url), **request.cb_kwargs)
        )
        articles = [i for i in items if isinstance(i, Article)]
        assert (
            len(articles) == 1 and articles[0].url == request.cb_kwargs["article_url"]
        )
        assert articles[0].comment_count == int(routes[target]["headers"]["X-WP-Total"])
        assert articles[0].crawled_at == "2024-03-02T04:00:00+00:00"
        assert (
            len([i for i in items if isinstance(i, Comment)])
            <= articles[0].comment_count
        )
        # Later comment pages carry no article: it is emitted once.
        assert all(
            "article" not in r.cb_kwargs for r in items if isinstance(r, Request)
        )
        counts.append(articles[0].comment_count)
    assert len(counts) == 7 and max(counts) > 3, (
        "a post whose comments span pages is covered"
    )


def test_failed_comments_request_still_emits_the_article() -> None:
    s = spider()
    request = next(
        r for r in posts_page(s) if isinstance(r, Request) and "comments" in r.url
    )
    refused = TextResponse(
        url=request.url, status=401, body=b'{"code":"rest_forbidden"}', request=request
    )
    failure = Failure(HttpError(refused))
    failure.request = request  # type: ignore[attr-defined]
    out = list(s.api_comments_failed(failure))
    assert len(out) == 1 and isinstance(out[0], Article)
    assert (
        out[0].comment_count is None and out[0].url == request.cb_kwargs["article_url"]
    )
    assert s.crawler.stats.get_value("wordpress/comments/failed") == 1
