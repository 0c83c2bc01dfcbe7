"""One crawl with the frontier scheduler alone (no add-on), as Scrapy's own tests run one:
``python -m tests.helpers.dropin_run <scenario> <redis url> [<port>]``. Serves a local
site that answers 200 to any path (on *port*: the same URLs in a resumed crawl), and prints one JSON line: ``order`` (the number of every request
that reached the downloader, in order), ``visited`` (responses the callbacks saw),
``stats`` (the crawl's stats), ``reason``.

Scenarios (the Scrapy behaviour each mirrors):

- ``send_order``: priorities and callback requests before start requests
  (Scrapy's ``test_engine_loop::TestRequestSendOrder::test_default``)
- ``lazy``: a start() that waits for ``scheduler_empty`` (``test_lazy``)
- ``unserializable``: requests that cannot be queued as JSON (``test_unserializable_requests``)
- ``start_dupes`` / ``start_dupes_filtered``: start requests with / without dont_filter
  (``test_crawl::test_start_dupes``)
- ``own_dupefilter``: a DUPEFILTER_CLASS of the project's own
- ``slots``: two download slots with DOWNLOAD_SLOTS delays and the host's own, on one
  host (``test_downloaderslotssettings::test_delay``); ``times``: slot -> response times,
  ``yielded``: slot -> when its second request was made, ``arrivals``: path -> when the
  server got it
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import scrapy
from scrapy import signals
from scrapy.crawler import CrawlerProcess
from scrapy.dupefilters import BaseDupeFilter

SETTINGS = {
    "SCHEDULER": "crawler.scheduler.Scheduler",
    "CRAWLER_ALLOW_PRIVATE_ADDRESSES": True,
    "CRAWLER_IDLE_CLOSE": 0.3,
    "CRAWLER_HEARTBEAT_INTERVAL": 0.1,
    "CRAWLER_NODE_TIMEOUT": 2,
    "CRAWLER_NODE_ID": "dropin-0",
    "CONCURRENT_REQUESTS": 1,
    "TELNETCONSOLE_ENABLED": False,
    "LOG_LEVEL": "WARNING",
    "ROBOTSTXT_OBEY": False,
}


SLOTS = {"a": {"delay": 1.0}, "b": {"delay": 1.5}}


#: path -> when each request for it reached the server (this process's clock)
ARRIVALS: dict[str, list[float]] = {}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        ARRIVALS.setdefault(self.path, []).append(time.time())
        body = b"<html><body>ok</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def serve(port: int = 0) -> str:
    server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


class SeenSkip(BaseDupeFilter):
    """A project's own filter: any URL with 'skip' in it counts as seen."""

    opened = closed = 0

    def open(self) -> None:
        SeenSkip.opened += 1

    def close(self, reason: str) -> None:
        SeenSkip.closed += 1

    def request_seen(self, request: scrapy.Request) -> bool:
        return "skip" in request.url

    def log(self, request: scrapy.Request, spider: scrapy.Spider) -> None:
        spider.crawler.stats.inc_value("seen_skip/filtered")


def plain_callback(response: scrapy.http.Response) -> None:
    response.meta["spider"].visited += 1


class Spider(scrapy.Spider):
    name = "dropin"

    def __init__(self, scenario: str, base: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario, self.base, self.visited = scenario, base, 0

    def request(self, number: int, priority: int = 0, **kwargs: Any) -> scrapy.Request:
        return scrapy.Request(f"{self.base}/n?{number}", priority=priority, **kwargs)

    async def start(self):
        async for request in getattr(self, f"start_{self.scenario}")():
            yield request

    async def start_send_order(self):
        yield self.request(1)
        for request in (self.request(2, priority=1), self.request(5)):
            self.crawler.engine._slot.scheduler.enqueue_request(request)
        yield self.request(6)
        yield self.request(3, priority=1)
        yield self.request(4, priority=1)

    async def start_lazy(self):
        for number in (1, 2, 4):
            if self.crawler.engine.needs_backout():
                await self.crawler.signals.wait_for(signals.scheduler_empty)
            yield self.request(number, callback=self.parse_lazy)

    def parse_lazy(self, response: scrapy.http.Response):
        self.visited += 1
        if response.url.endswith("?1"):
            yield self.request(3)

    async def start_unserializable(self):
        for number in (1, 2):
            yield self.request(number, meta={"callable": lambda: None})
        yield self.request(3, callback=plain_callback, meta={"spider": None})

    async def start_start_dupes(self, dont_filter: bool = True):
        for number in (1, 2):
            for _ in range(3):
                yield self.request(number, dont_filter=dont_filter)

    async def start_start_dupes_filtered(self):
        async for request in self.start_start_dupes(dont_filter=False):
            yield request

    async def start_own_dupefilter(self):
        for path in ("a", "skip-b", "c", "a"):
            yield scrapy.Request(f"{self.base}/{path}")

    async def start_slots(self):
        self.times, self.yielded = {}, {}
        for slot in (*SLOTS, None):
            self.times[slot or "host"] = []
            yield scrapy.Request(f"{self.base}/{slot}", callback=self.parse_slot,
                                 meta={"download_slot": slot, "slot": slot or "host"})

    def parse_slot(self, response: scrapy.http.Response):
        slot = response.meta["slot"]  # Scrapy sets download_slot to the host's if None
        self.times[slot].append(time.time())
        if len(self.times[slot]) == 1:
            self.yielded[slot] = time.time()
            yield scrapy.Request(f"{self.base}/{slot}/2", callback=self.parse_slot,
                                 meta={"download_slot": slot if slot != "host" else None,
                                       "slot": slot})

    def parse(self, response: scrapy.http.Response) -> None:
        self.visited += 1


def main() -> None:
    scenario, redis_url = sys.argv[1], sys.argv[2]
    port = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    settings = {**SETTINGS, "REDIS_URL": redis_url}
    if scenario == "own_dupefilter":
        settings["DUPEFILTER_CLASS"] = "tests.helpers.dropin_run.SeenSkip"
    if scenario == "slots":
        settings |= {"DOWNLOAD_DELAY": 0.5, "RANDOMIZE_DOWNLOAD_DELAY": False,
                     "DOWNLOAD_SLOTS": SLOTS, "CONCURRENT_REQUESTS": 8}
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(Spider)
    order: list[str] = []

    def reached(request: scrapy.Request, spider: scrapy.Spider) -> None:
        if "spider" in request.meta:  # the plain-function callback's way to the spider
            request.meta["spider"] = spider
        order.append(request.url.rsplit("/", 1)[1].removeprefix("n?"))

    crawler.signals.connect(reached, signals.request_reached_downloader)
    process.crawl(crawler, scenario=scenario, base=serve(port))
    process.start()
    stats = crawler.stats.get_stats()
    from tests.helpers.dropin_run import SeenSkip as loaded

    print(json.dumps({"order": order, "visited": crawler.spider.visited,
                      "reason": stats.get("finish_reason"),
                      "dupefilter": [loaded.opened, loaded.closed],
                      "times": getattr(crawler.spider, "times", {}),
                      "yielded": getattr(crawler.spider, "yielded", {}), "arrivals": ARRIVALS,
                      "stats": {k: v for k, v in stats.items() if isinstance(v, int)}}))


if __name__ == "__main__":
    main()
