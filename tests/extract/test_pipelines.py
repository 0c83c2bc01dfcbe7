"""Item pipelines: validation, duplicates, date normalization, text cleanup."""

from __future__ import annotations

import logging

import pytest
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from crawler.items import Article, Author, Comment, Post, Thread
from crawler.pipelines import (
    DedupPipeline,
    NormalizeDatesPipeline,
    TextCleanupPipeline,
    ValidatePipeline,
)


def post(**kw: object) -> Post:
    fields: dict[str, object] = {
        "site": "bbs.example",
        "engine": "discuz",
        "thread_id": "1",
        "post_id": "10",
        "url": "http://bbs.example/p/10",
        "body_html": "<p>hi</p>",
        "crawled_at": "2024-03-02T04:00:00+00:00",
    }
    fields.update(kw)
    return Post(**fields)  # type: ignore[arg-type]


def test_validate_drops_counts_and_logs_with_url(caplog: pytest.LogCaptureFixture) -> None:
    crawler = get_crawler()
    pipeline = ValidatePipeline.from_crawler(crawler)
    with caplog.at_level(logging.WARNING), pytest.raises(DropItem, match="invalid"):
        pipeline.process_item(post(body_html=None))
    assert crawler.stats.get_value("items/invalid/post") == 1
    assert crawler.stats.get_value("items/dropped/invalid") == 1
    assert "http://bbs.example/p/10" in caplog.text and "body_html" in caplog.text


def test_validate_keeps_valid_items() -> None:
    pipeline = ValidatePipeline.from_crawler(get_crawler())
    item = Thread(site="s", engine="phpbb", thread_id="1", url="u", title="t")
    assert pipeline.process_item(item) is item
    with pytest.raises(DropItem):
        pipeline.process_item(Thread(site="s", engine="phpbb", thread_id="1", url="u", title=""))


def test_dedup_by_stable_id_not_url() -> None:
    crawler = get_crawler()
    pipeline = DedupPipeline.from_crawler(crawler)
    pipeline.process_item(post())
    # Same post reached through another URL (session id, other page): still a duplicate.
    with pytest.raises(DropItem, match="duplicate"):
        pipeline.process_item(post(url="http://bbs.example/p/10?sid=abc"))
    pipeline.process_item(post(post_id="11"))
    pipeline.process_item(post(thread_id="2"))  # same post id in another thread is another post
    pipeline.process_item(Comment(article_url="http://blog/a", comment_id="10", body_html="x"))
    assert crawler.stats.get_value("items/dropped/duplicate") == 1


def test_dates_use_fetch_time_and_site_zone() -> None:
    crawler = get_crawler(settings_dict={"CRAWLER_SITE_TIMEZONES": {"bbs.example": "Asia/Taipei"}})
    pipeline = NormalizeDatesPipeline.from_crawler(crawler)
    item = pipeline.process_item(post(created_raw="昨天 12:30"))
    assert item.created == "2024-03-01T12:30:00+08:00"
    thread = Thread(
        site="other.example",
        engine="discuz",
        thread_id="1",
        url="u",
        title="t",
        created_raw="发表于 2024-3-2 08:18",
        last_post_at_raw="刚刚",
        crawled_at="2024-03-02T04:00:00+00:00",
    )
    pipeline.process_item(thread)
    # other.example has no site setting: the Discuz profile's default zone applies.
    assert thread.created == "2024-03-02T08:18:00+08:00"
    assert thread.last_post_at == "2024-03-02T12:00:00+08:00"


def test_dates_global_setting_beats_profile_default() -> None:
    crawler = get_crawler(settings_dict={"CRAWLER_TIMEZONE": "Europe/Berlin"})
    item = NormalizeDatesPipeline.from_crawler(crawler).process_item(post(created_raw="2024-03-02 08:18"))
    assert item.created == "2024-03-02T08:18:00+01:00"


def test_unparsed_date_counted() -> None:
    crawler = get_crawler()
    item = NormalizeDatesPipeline.from_crawler(crawler).process_item(post(created_raw="楼主"))
    assert item.created is None
    assert crawler.stats.get_value("items/dates/unparsed") == 1


def test_blog_dates() -> None:
    article = Article(
        site="b",
        platform="wordpress",
        url="u",
        title="t",
        body_html="x",
        published_raw="2024-03-01T10:00:00+00:00",
        crawled_at="2024-03-02T04:00:00+00:00",
    )
    NormalizeDatesPipeline.from_crawler(get_crawler()).process_item(article)
    assert article.published == "2024-03-01T10:00:00+00:00"


def test_text_cleanup_removes_quotes_signatures_scripts() -> None:
    html = (
        '<div class="quote"><blockquote>quoted words</blockquote></div>'
        "<p>own words</p><script>var x = 1;</script>"
        '<div class="signature">my sig</div>'
        '<i class="pstatus"> 本帖最后由 a 于 2024-1-1 编辑 </i>'
        "<pre>line1\n    indented</pre>"
    )
    item = TextCleanupPipeline.from_crawler(get_crawler()).process_item(post(body_html=html))
    assert "own words" in item.body_text
    assert "    indented" in item.body_text
    for gone in ("quoted words", "var x", "my sig", "本帖最后由"):
        assert gone not in item.body_text
    assert "quoted words" in item.body_html  # the HTML keeps everything


def test_items_have_stable_keys() -> None:
    assert post().key() == ("post", "bbs.example", "1", "10")
    assert Thread(site="s", engine="e", thread_id="7", url="u").key() == ("thread", "s", "7")
    assert Article(site="s", platform="wordpress", url="http://b/a").key() == ("article", "http://b/a")
    assert Comment(article_url="http://b/a", comment_id="3").key() == ("comment", "http://b/a", "3")
    assert post(author=Author(name="x")).author.name == "x"


def test_validate_logs_each_reason_once(caplog: pytest.LogCaptureFixture) -> None:
    crawler = get_crawler()
    pipeline = ValidatePipeline.from_crawler(crawler)
    with caplog.at_level(logging.WARNING):
        for n in range(50):
            with pytest.raises(DropItem) as dropped:
                pipeline.process_item(post(post_id=str(n), body_html=None))
            assert dropped.value.log_level == "DEBUG"  # Scrapy's own per-item line stays quiet
        with pytest.raises(DropItem):
            pipeline.process_item(Thread(site="s", engine="phpbb", thread_id="1", url="u", title=""))
    assert crawler.stats.get_value("items/invalid/post/body_html") == 50
    assert crawler.stats.get_value("items/invalid/thread/title") == 1
    assert [r.levelno for r in caplog.records] == [logging.WARNING, logging.WARNING]
