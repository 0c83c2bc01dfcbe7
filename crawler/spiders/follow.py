"""Follow links breadth-first per host, staying on the start URLs' hosts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import scrapy
from scrapy.linkextractors import LinkExtractor
from scrapy.utils.httpobj import urlparse_cached

from crawler.config import check_url

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.http import Response


class FollowSpider(scrapy.Spider):
    """``scrapy crawl follow -a start_urls=URL[,URL...]``: every page once, no extraction.

    Stays on the hosts of the start URLs (``allowed_domains``); depth is bounded by
    :setting:`DEPTH_LIMIT` and pages per host by :setting:`CRAWLER_HOST_PAGE_LIMIT`.
    Yields one small item per page (url, status, depth) so a crawl leaves a record.
    """

    name = "follow"

    def __init__(self, start_urls: str = "", start_url: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = self.check_arguments(start_urls=start_urls, start_url=start_url)
        urls = self.start_urls
        self.allowed_domains = sorted({urlparse_cached(scrapy.Request(u)).hostname for u in urls})
        self.link_extractor = LinkExtractor()

    @staticmethod
    def check_arguments(start_urls: str = "", start_url: str = "", **_: Any) -> list[str]:
        """The start URLs; ValueError (one line) if there are none or one is not http(s)."""
        urls = [u.strip() for u in f"{start_urls},{start_url}".split(",") if u.strip()]
        if not urls:
            raise ValueError("give the sites to crawl: -a start_urls=URL[,URL...]")
        for url in urls:
            check_url(url)
        return urls

    async def start(self) -> AsyncIterator[scrapy.Request]:
        # Not dont_filter: a resumed crawl must not fetch its start pages again.
        for url in self.start_urls:
            yield scrapy.Request(url, errback=self.failed)

    def parse(self, response: Response):
        yield {"url": response.url, "status": response.status,
               "depth": response.meta.get("depth", 0)}
        if not hasattr(response, "text"):
            return
        for link in self.link_extractor.extract_links(response):
            # LinkExtractor's allow_domains compares netlocs, so ports defeat it
            if urlparse_cached(scrapy.Request(link.url)).hostname in self.allowed_domains:
                yield response.follow(link, errback=self.failed)

    def failed(self, failure) -> None:
        # Counted under outcomes/failed/<error> (or filtered/...) by the frontier;
        # without an errback Scrapy would log every one with a traceback.
        self.logger.debug("Download failed: %(request)s (%(error)s)",
                          {"request": failure.request, "error": failure.value})
