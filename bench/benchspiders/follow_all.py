"""A follow-every-link spider as any Scrapy user writes one: a CrawlSpider with one Rule.

Not ours: nothing of the project's (no frontier hooks, no errbacks, no depth meta read).
The foreign-spider bench (``bench/foreign.py``) runs it in a project of its own
(:mod:`benchspiders.foreign_settings`), with Scrapy's scheduler, ours, and our add-on.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class FollowAllSpider(CrawlSpider):
    name = "follow_all"
    rules = (Rule(LinkExtractor(), callback="parse_item", follow=True),)

    def __init__(self, start_urls: str = "", *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.start_urls = start_urls.split(",")
        # Scrapy's offsite middleware compares host names (the bench's URLs carry a port)
        self.allowed_domains = sorted({urlsplit(u).hostname for u in self.start_urls})

    def parse_item(self, response):
        yield {"url": response.url, "title": response.css("title::text").get()}
