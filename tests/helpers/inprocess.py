"""Crawls run in one process through Scrapy's ``CrawlerRunner``, one after the other, as a
script that keeps running after them: what a user's own script or a notebook does (not
``scrapy crawl``). Run as ``python -m tests.helpers.inprocess <json>``; prints one JSON
line per crawl, then ``{"done": true}``.

The JSON argument: ``urls`` (start URLs), ``crawls`` (how many), ``settings`` (for every
crawl), ``spider`` (``follow``: follows every link of the start URLs' hosts; ``files``: yields
one item with ``file_urls`` for a FilesPipeline; ``pages``: fetches ``urls`` only, counting
what each callback saw), ``attrs`` (class attributes of the spider, e.g. ``download_delay``).

Each crawl's line: ``seconds``, ``reason``, ``pages`` (responses its callbacks saw),
``fetched`` (``response_received_count``), ``items``, ``redis_pid`` (its embedded
redis-server, or None), ``redis_alive`` (still running once the crawl's Deferred fired),
``watchdog_alive``, ``state_dir`` (where its embedded Redis kept its data), ``errors``
(log records at ERROR), ``stats`` (a few named stats), ``starts`` (monotonic start time of
every fetch of a page).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
import time
from typing import Any

import attrs
import psutil
import scrapy
from scrapy import signals
from scrapy.crawler import CrawlerRunner
from scrapy.exceptions import StopDownload
from scrapy.linkextractors import LinkExtractor
from scrapy.utils.log import configure_logging
from scrapy.utils.reactor import install_reactor

install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")

from scrapy.utils.defer import maybe_deferred_to_future  # noqa: E402
from twisted.internet import defer, reactor, task  # noqa: E402 - once the reactor is installed

from crawler.embedded_redis import embedded_of  # noqa: E402

STATS = ("scheduler/enqueued", "scheduler/dequeued", "frontier/not_a_page",
         "outcomes/filtered/not_a_page", "file_count", "file_status_count/downloaded",
         "outcomes/filtered/depth", "request_depth_max")


class FollowSpider(scrapy.Spider):
    name = "inprocess"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pages = 0
        self.hosts = set()

    async def start(self):
        for url in self.start_urls:
            self.hosts.add(url.split("/")[2])
            yield scrapy.Request(url, self.parse)

    def closed(self, reason: str) -> None:
        slots = self.crawler.engine.downloader.slots
        SLOT_DELAYS.update({key: slot.delay for key, slot in slots.items()})

    def parse(self, response):
        self.pages += 1
        STARTS.append(time.monotonic())
        for link in LinkExtractor().extract_links(response):
            if link.url.split("/")[2] in self.hosts:  # the start URLs' sites only
                yield response.follow(link.url, self.parse)


class PagesSpider(FollowSpider):
    def parse(self, response):
        self.pages += 1
        STARTS.append(time.monotonic())
        yield {"url": response.url}


class FilesSpider(FollowSpider):
    """The start page's links under /files/ go to the FilesPipeline; those under /pages/
    are crawled as pages."""

    def parse(self, response):
        self.pages += 1
        links = [response.urljoin(u) for u in response.css("a::attr(href)").getall()]
        yield {"file_urls": [u for u in links if "/files/" in u]}
        for url in links:
            if "/pages/" in url:
                yield scrapy.Request(url, self.parse)


@dataclasses.dataclass
class Post:
    item_type: str = "post"


@attrs.define
class Thread:
    item_type: str = "thread"


class OddItemsSpider(FollowSpider):
    """Yields items of every kind Scrapy passes on: a dataclass, an attrs class, and
    objects that are no items at all."""

    def parse(self, response):
        self.pages += 1
        yield from (Post(), Thread(), {"url": response.url}, 42, "text", object())


class FailingPipeline:
    """Fails the spider's opening after the scheduler (and so Redis) started: the engine
    never starts, so it never sends engine_stopped."""

    def open_spider(self, spider=None) -> None:
        raise RuntimeError("this pipeline cannot open")


class StopperSpider(FollowSpider):
    """Stops every download itself once its headers arrive (Scrapy's StopDownload); its
    errback records the type of each failure."""

    @classmethod
    def from_crawler(cls, crawler, *args: Any, **kwargs: Any):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.headers_received, signal=signals.headers_received)
        return spider

    def headers_received(self, headers, body_length, request, spider) -> None:
        raise StopDownload(fail=True)

    async def start(self):
        for url in self.start_urls:
            yield scrapy.Request(url, self.parse, errback=self.failed)

    def failed(self, failure) -> None:
        FAILURES.append(type(failure.value).__name__)


class LateStartSpider(FollowSpider):
    """Yields its start requests only once the node has beaten with nothing queued
    (a slow start(): a login, a sitemap): a finish must not be decided before."""

    async def start(self):
        from crawler.node.api import node_of  # noqa: PLC0415

        loop = node_of(self.crawler).loop
        seen = loop.last_beat_at
        while loop.last_beat_at == seen:  # until the next heartbeat, however long it takes
            await maybe_deferred_to_future(task.deferLater(reactor, 0.01, lambda: None))
        async for request in super().start():
            yield request


SPIDERS = {"follow": FollowSpider, "late": LateStartSpider, "files": FilesSpider,
           "pages": PagesSpider,
           "odd": OddItemsSpider, "stopper": StopperSpider}
FAILURES: list[str] = []
STARTS: list[float] = []
SLOT_DELAYS: dict[str, float] = {}


class ErrorCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage()[:300])


def alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def watchdogs() -> list[int]:
    """This process's watchdog children still running (not zombies)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "crawler.embedded_watchdog" in " ".join(child.cmdline()):
                found.append(child.pid)
        except psutil.Error:  # gone, or a zombie: not running
            continue
    return found


@defer.inlineCallbacks
def run(config: dict[str, Any]):
    errors = ErrorCounter()
    logging.getLogger().addHandler(errors)
    configure_logging(config.get("settings") or {})  # CrawlerRunner leaves logging to its user
    runner = CrawlerRunner(config.get("settings") or {})
    base = SPIDERS[config.get("spider", "follow")]
    spidercls = type("Spider", (base,), dict(config.get("attrs") or {}))
    for _ in range(config.get("crawls", 1)):
        STARTS.clear()
        FAILURES.clear()
        SLOT_DELAYS.clear()
        errors.messages.clear()
        crawler = runner.create_crawler(spidercls)
        began = time.monotonic()
        failure = None
        try:
            yield runner.crawl(crawler, start_urls=config["urls"])
        except Exception as exc:  # noqa: BLE001 - reported, the script goes on
            failure = repr(exc)
        embedded = embedded_of(crawler)
        pid = getattr(embedded.server, "pid", None) or embedded.pid
        stats = crawler.stats.get_stats()
        print(json.dumps({
            "seconds": time.monotonic() - began, "reason": stats.get("finish_reason"),
            "failure": failure,
            "pages": getattr(crawler.spider, "pages", 0), "fetched": stats.get("response_received_count", 0),
            "items": stats.get("item_scraped_count", 0), "redis_pid": pid,
            "redis_alive": alive(pid), "watchdog_alive": watchdogs(),
            "state_dir": embedded.state_dir,
            "errors": list(errors.messages), "stats": {k: stats.get(k) for k in STATS},
            "starts": list(STARTS), "errback_failures": list(FAILURES), "slot_delays": dict(SLOT_DELAYS),
            "download_delay": crawler.settings.getfloat("DOWNLOAD_DELAY"),
            "depth_limit": crawler.settings.getint("DEPTH_LIMIT")}), flush=True)
    print(json.dumps({"done": True}), flush=True)


def main() -> None:
    config = json.loads(sys.argv[1])
    d = run(config)
    d.addErrback(lambda f: print(json.dumps({"failure": f.getTraceback()}), flush=True))
    d.addBoth(lambda _: reactor.stop())
    reactor.run()


if __name__ == "__main__":
    main()
