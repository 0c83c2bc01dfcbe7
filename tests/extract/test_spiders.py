"""The forum spider's request plumbing, offline: serializable requests, breadth-first priorities,
soft 404s, generated engine spiders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.request import request_from_dict
from scrapy.utils.test import get_crawler

from crawler.items import Post, Thread
from crawler.profiles import REGISTRY
from crawler.profiles.base import PageKind
from crawler.spiders import forum
from crawler.spiders.common import site_domain
from crawler.spiders.forum import ForumSpider
from tests.helpers.expected import SITES

SITE = SITES / "phpbb"


def response(target: str, url_base: str = "http://bbs.example") -> HtmlResponse:
    routes = json.loads((SITE / "routes.json").read_text(encoding="utf-8"))["routes"]
    body = (SITE / routes[target]["file"]).read_bytes()
    return HtmlResponse(url=url_base + target, body=body, encoding="utf-8", headers={"Date": "Sat, 02 Mar 2024 04:00:00 GMT"})


def spider(cls: type[ForumSpider] = forum.PhpbbSpider) -> ForumSpider:  # type: ignore[attr-defined]
    crawler = get_crawler(cls, settings_dict={"ADDONS": {}})
    crawler.spider = cls.from_crawler(crawler, start_url="http://bbs.example/index.php")
    return crawler.spider


def test_one_generated_spider_per_profile() -> None:
    for profile in REGISTRY.engines:
        generated = [c for c in vars(forum).values() if isinstance(c, type) and getattr(c, "profile_class", None) is profile]
        assert len(generated) == 1 and generated[0].name == profile.name


def test_start_url_is_required() -> None:
    with pytest.raises(ValueError, match="start_url"):
        ForumSpider()


def test_requests_survive_to_dict_and_carry_their_engine() -> None:
    s = spider()
    board = response("/viewforum.php?f=2")
    out = list(s.parse_page(board, engine="phpbb", kind="board", cursor={"url": board.url, "page": 1, "extra": {}}))
    requests = [r for r in out if isinstance(r, Request)]
    assert requests
    for request in requests:
        data = request.to_dict(spider=s)
        json.dumps(data["cb_kwargs"])  # plain values: a non-pickle codec can carry them
        again = request_from_dict(data, spider=s)
        assert again.cb_kwargs == request.cb_kwargs and again.callback == s.parse_page
        assert again.cb_kwargs["engine"] == "phpbb"
        assert "sid=" not in again.url


def test_breadth_first_priorities() -> None:
    s = spider()
    index = list(s.parse_page(response("/index.php"), engine="phpbb", kind="index", cursor={"url": "x", "page": 1}))
    board = list(s.parse_page(response("/viewforum.php?f=2"), engine="phpbb", kind="board", cursor={"url": "x", "page": 1}))
    board_prio = {r.priority for r in index} | {r.priority for r in board if r.cb_kwargs["kind"] == PageKind.BOARD}
    thread_prio = {r.priority for r in board if r.cb_kwargs["kind"] == PageKind.THREAD}
    assert thread_prio and board_prio and min(board_prio) > max(thread_prio)


def test_thread_page_items_and_next_page_without_list_row() -> None:
    s = spider()
    ref = {"url": "http://bbs.example/viewtopic.php?t=101", "thread_id": "101", "reply_count": 6, "view_count": 1234}
    out = list(s.parse_page(response("/viewtopic.php?t=101"), engine="phpbb", kind="thread",
                            cursor={"url": "http://bbs.example/viewtopic.php?t=101", "page": 1, "extra": {}}, ref=ref))
    threads = [i for i in out if isinstance(i, Thread)]
    posts = [i for i in out if isinstance(i, Post)]
    nxt = [r for r in out if isinstance(r, Request)]
    assert len(threads) == 1 and threads[0].reply_count == 6 and threads[0].crawled_at.startswith("2024-03-02T04:00")
    assert [p.position for p in posts] == [1, 2, 3]
    assert len(nxt) == 1 and "ref" not in nxt[0].cb_kwargs and nxt[0].cb_kwargs["cursor"]["extra"]["offset"] == 3


def test_soft_404_counted_and_nothing_emitted() -> None:
    s = spider()
    out = list(s.parse_page(response("/viewtopic.php?t=202"), engine="phpbb", kind="thread", cursor={"url": "x", "page": 1}))
    assert out == []
    assert s.crawler.stats.get_value("forum/soft_404") == 1


@pytest.mark.parametrize(("url", "domain"), [("https://www.bbs.example:8443/x", "bbs.example"), ("http://127.0.0.1:5000/", "127.0.0.1")])
def test_site_domain(url: str, domain: str) -> None:
    assert site_domain(url) == domain


def test_phpbb_fixture_present() -> None:
    assert Path(SITE / "routes.json").exists()


def test_positions_from_the_url_offset_when_starting_mid_thread() -> None:
    # Crawl started at page 3 of a phpBB thread: no cursor history, start=6 says 6 posts precede.
    s = spider()
    out = list(s.parse_page(response("/viewtopic.php?start=6&t=101"), engine="phpbb", kind="thread"))
    assert [p.position for p in out if isinstance(p, Post)] == [7]
