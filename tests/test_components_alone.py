"""The add-on's components built and opened without a running crawl, as Scrapy's own component
tests drive them (Scrapy 2.19 raises on ``crawler.engine`` before the crawl starts)."""

from __future__ import annotations

from scrapy.utils.test import get_crawler

from crawler.incremental.items import RevisitPipeline
from crawler.node.api import node_of


def test_the_revisit_pipeline_opens_and_passes_items_without_an_engine() -> None:
    crawler = get_crawler(settings_dict={"ADDONS": {"crawler.addon.ClusterAddon": 0}})
    pipeline = RevisitPipeline.from_crawler(crawler)
    pipeline.open_spider()
    item = {"item_type": "post", "url": "http://a.example/t/1"}
    assert pipeline.process_item(item) is item
    assert node_of(crawler) is None
