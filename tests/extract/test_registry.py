"""The profile registry and the fallback plug, offline: how engines and fallbacks join, in which
order they are tried, how the forum spider picks a fallback, and records in step with items."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import TYPE_CHECKING, Any, ClassVar, Self

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.utils.test import get_crawler

from crawler.items import Post, Thread
from crawler.profiles import (
    REGISTRY,
    ForumProfile,
    HtmlForumProfile,
    PageCursor,
    PageKind,
    PostRecord,
    ProfileRegistry,
    ThreadPage,
    ThreadRecord,
    ThreadRef,
)
from crawler.profiles.jsonapi import JsonApiProfile
from crawler.profiles.learned import Learned
from crawler.profiles.template_profile import TemplateProfile
from crawler.profiles.vbulletin import VBulletin3
from crawler.spiders.forum import ForumSpider
from tests.helpers.expected import SITES

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class Template(ForumProfile, register=False):
    """A stand-in for a learned-template fallback: it reads only pages it has a template for."""

    name = "template"
    fallback_order = 10

    def __init__(self, body: str) -> None:
        self.body = body

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        # Profiles are built the Scrapy way: a fallback can read its settings.
        return cls(body=crawler.settings["TEMPLATE_BODY"])

    @classmethod
    def detect(cls, response: Response) -> bool:
        return isinstance(response, TextResponse) and bool(response.css("div.learned"))

    def classify(self, url: str) -> PageKind:
        return PageKind.PAGE

    def board_links(self, response: TextResponse) -> list[PageCursor]:
        return []

    def thread_refs(self, response: TextResponse, cursor: PageCursor) -> list[ThreadRef]:
        return []

    def next_page(self, response: TextResponse, cursor: PageCursor) -> PageCursor | None:
        return None

    def parse_thread(self, response: TextResponse, cursor: PageCursor,
                     ref: ThreadRef | None) -> ThreadPage:
        post = PostRecord(post_id="1", thread_id="7", url=response.url, body_html=self.body)
        return ThreadPage(thread=None, posts=[post], next=None, stats=["template/pages"])


def local_registry() -> ProfileRegistry:
    registry = ProfileRegistry()
    for profile in (*REGISTRY.engines, Learned, Template):
        registry.add(profile)
    return registry


class LocalForumSpider(ForumSpider):
    name = "forum_local"
    registry: ClassVar[ProfileRegistry] = local_registry()


def spider(**kwargs: Any) -> ForumSpider:
    crawler = get_crawler(LocalForumSpider,
                          settings_dict={"ADDONS": {}, "TEMPLATE_BODY": "<p>learned</p>"})
    crawler.spider = LocalForumSpider.from_crawler(crawler, start_url="http://bbs.example/",
                                                   **kwargs)
    return crawler.spider


def fluxbb_index(extra: bytes = b"") -> HtmlResponse:
    body = (SITES / "generic_fluxbb" / "index.html").read_bytes()
    body = body.replace(b"</body>", extra + b"</body>")
    return HtmlResponse(url="http://bbs.example/index.php", body=body, encoding="utf-8")


def test_engines_in_detect_order_and_fallbacks_apart() -> None:
    orders = [p.detect_order for p in REGISTRY.engines]
    assert orders == sorted(orders) and None not in orders
    assert Learned in REGISTRY.fallbacks and Learned not in REGISTRY.engines
    assert REGISTRY.fallbacks[-1] is Learned, \
        "the learned fallback reads anything: it must be the last resort"
    # Markup versions inherit the order but not the registration.
    assert VBulletin3 not in REGISTRY.engines and REGISTRY.get("vbulletin") is not VBulletin3


def test_a_profile_registers_itself_and_names_are_unique() -> None:
    registry = ProfileRegistry()
    registry.add(Template)
    with pytest.raises(ValueError, match="taken"):
        registry.add(type("Other", (Template,), {"__module__": __name__}))
    assert registry.remove("template") is Template and registry.get("template") is None


def test_a_named_profile_without_an_order_is_an_error() -> None:
    with pytest.raises(TypeError, match="detect_order"):
        type("Orphan", (HtmlForumProfile,), {"name": "orphan"})
    assert REGISTRY.get("orphan") is None


def test_no_engine_uses_the_json_or_html_base_it_does_not_need() -> None:
    # The review's complaint: JSON engines inherited ~30 selectors. They no longer do.
    # An engine is read through a JSON API, with CSS selectors, or with a template made by
    # `python -m crawler new-engine`: one of the three bases, never two.
    for profile in REGISTRY.engines:
        bases = [b for b in (JsonApiProfile, HtmlForumProfile, TemplateProfile)
                 if issubclass(profile, b)]
        assert len(bases) == 1, f"{profile.name}: {bases}"
        if bases == [JsonApiProfile]:
            assert not hasattr(profile, "_post_body")


def test_fallbacks_tried_in_order_and_the_first_that_accepts_wins() -> None:
    s = spider()
    out = list(s.parse_start(fluxbb_index(b'<div class="learned"></div>')))
    assert [type(i) for i in out] == [Post] and out[0].engine == "template"
    assert out[0].body_html == "<p>learned</p>"
    assert s.crawler.stats.get_value("profiles/undetected") == 1
    assert s.crawler.stats.get_value("profiles/fallback/template") == 1
    assert s.crawler.stats.get_value("template/pages") == 1


def test_a_fallback_that_declines_passes_to_the_next() -> None:
    s = spider()
    out = list(s.parse_start(fluxbb_index()))
    assert s.crawler.stats.get_value("profiles/fallback/learned") == 1
    requests = [r for r in out if isinstance(r, Request)]
    assert requests and {r.cb_kwargs["engine"] for r in requests} == {"learned"}
    assert {r.cb_kwargs["kind"] for r in requests} == {"page"}
    json.dumps([r.to_dict(spider=s)["cb_kwargs"] for r in requests])


def test_fallback_argument_chooses_the_fallbacks() -> None:
    s = spider(fallback="learned")
    list(s.parse_start(fluxbb_index(b'<div class="learned"></div>')))
    assert s.crawler.stats.get_value("profiles/fallback/learned") == 1
    none = spider(fallback="")
    assert list(none.parse_start(fluxbb_index())) == []
    assert none.crawler.stats.get_value("profiles/undetected") == 1


def test_unknown_fallback_is_a_one_line_error() -> None:
    with pytest.raises(ValueError, match="not a registered forum fallback"):
        LocalForumSpider.check_arguments(start_url="http://bbs.example/", fallback="nosuch")
    with pytest.raises(ValueError, match="not a registered forum fallback"):
        LocalForumSpider.check_arguments(start_url="http://bbs.example/", fallback="discuz")


def test_a_profiles_record_is_the_item_the_spider_stamps() -> None:
    # one record shape (issue 38 item 7): no second list of the item's fields to drift
    assert PostRecord is Post and ThreadRecord is Thread
    record = PostRecord(post_id="9", thread_id="1", url="u", position=2, quoted_post_ids=["3"],
                        edited=True)
    item = record.stamped(site="s", engine="e", crawled_at="t")
    stamped = {"site", "engine", "crawled_at"}
    assert {f.name: getattr(item, f.name) for f in fields(Post) if f.name not in stamped} == {
        f.name: getattr(record, f.name) for f in fields(Post) if f.name not in stamped}
    assert (item.site, item.engine, item.crawled_at) == ("s", "e", "t")
    assert (record.site, record.engine, record.crawled_at) == ("", "", None)  # a copy is stamped
    thread = ThreadRecord(thread_id="1", url="u", title="T", reply_count=3, last_post_at_raw="x")
    assert thread.stamped(site="s", engine="e", crawled_at="t").last_post_at_raw == "x"
