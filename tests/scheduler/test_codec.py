"""Queued requests: plain data, round-trips, at most 120 bytes of Redis memory each."""

from __future__ import annotations

import random

import pytest
import scrapy

from crawler.scheduler import codec
from crawler.scheduler.frontier import Pending
from tests.scheduler.helpers import make_frontier, ready_of


class ForumSpider(scrapy.Spider):
    name = "forum"

    def parse_thread(self, response):
        pass

    def on_error(self, failure):
        pass


def typical_forum_urls(count: int) -> list[str]:
    rng = random.Random(3)
    shapes = [
        "https://bbs.example.cn/forum.php?mod=viewthread&tid={n}&page={p}",
        "https://forum.example.com/viewtopic.php?t={n}&start={s}",
        "https://community.example.org/threads/some-thread-title.{n}/page-{p}",
        "https://bbs.example.cn/thread-{n}-{p}-1.html",
    ]
    return [rng.choice(shapes).format(n=rng.randrange(10**5, 10**7), p=rng.randrange(1, 40),
                                      s=25 * rng.randrange(40)) for _ in range(count)]


def test_round_trip_keeps_what_matters() -> None:
    spider = ForumSpider()
    request = scrapy.FormRequest("https://f.example/post.php", formdata={"q": "中文"},
                                 callback=spider.parse_thread, errback=spider.on_error,
                                 meta={"depth": 3, "thread": "12"}, cb_kwargs={"page": 2},
                                 priority=5, dont_filter=True,
                                 headers={"Referer": "https://f.example/"})
    request.meta[codec.LEASE_META] = "42"
    payload = codec.encode(request, spider)
    assert payload.startswith(codec.VERSION) and b"42" not in payload
    back = codec.decode(payload, spider)
    assert isinstance(back, scrapy.FormRequest)
    assert (back.url, back.method, back.body) == (request.url, "POST", request.body)
    assert back.callback == spider.parse_thread and back.errback == spider.on_error
    assert back.meta == {"depth": 3, "thread": "12"} and back.cb_kwargs == {"page": 2}
    assert (back.priority, back.dont_filter) == (5, True)
    assert back.headers.get("Referer") == b"https://f.example/"


def test_unencodable_requests_are_refused_not_pickled() -> None:
    spider = ForumSpider()
    with pytest.raises(codec.EncodeError):
        codec.encode(scrapy.Request("https://f.example/", meta={"obj": object()}), spider)
    with pytest.raises(codec.EncodeError):  # a callback that is not a spider method
        codec.encode(scrapy.Request("https://f.example/", callback=lambda r: None), spider)


def test_redis_memory_per_queued_request_is_at_most_120_bytes(r) -> None:
    spider = ForumSpider()
    f = make_frontier(r)
    epoch = f.join(1)
    urls = typical_forum_urls(5000)
    pushes = [Pending(scrapy.Request(u).url.split("/")[2], None,
                      codec.encode(scrapy.Request(u, callback=spider.parse_thread,
                                                  meta={"depth": 4}), spider))
              for u in urls]
    for start in range(0, len(pushes), 500):
        f.flush(pushes[start:start + 500], [], epoch, ready_of("n1"))
    hosts = {p.host for p in pushes}
    used = sum(r.memory_usage(f.keys.queue(h), samples=0) for h in hosts)
    per_request = used / len(urls)
    print(f"Redis memory per queued request: {per_request:.1f} bytes")
    assert per_request <= 120
