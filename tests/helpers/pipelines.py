"""Item pipelines that tests put into a crawl (``-s ITEM_PIPELINES=...``)."""

from __future__ import annotations

from typing import Any, Self

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem


class LosePosts:
    """Drops the posts whose ids are in the setting ``TEST_LOSE_POSTS`` (comma-separated):
    an item lost after :class:`crawler.incremental.items.RevisitPipeline` saw it, before any
    output had it, as a crash there would."""

    def __init__(self, lose: set[str]) -> None:
        self.lose = lose

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(set(crawler.settings.getlist("TEST_LOSE_POSTS")))

    def process_item(self, item: Any) -> Any:
        if ItemAdapter(item).get("post_id") in self.lose:
            raise DropItem("lost on purpose")
        return item
