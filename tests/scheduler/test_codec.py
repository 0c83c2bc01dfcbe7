"""Queued requests: plain data, round-trips, at most 120 bytes of Redis memory each."""

from __future__ import annotations

import pytest
import scrapy
from scrapy.http import JsonRequest

from crawler.frontier import codec
from crawler.frontier.frontier import Pending
from crawler.frontier.keys import host_of
from tests.helpers.forum_links import ForumSpider, OtherSpider, follow_request, typical_forum_links
from tests.helpers.frontier import make_frontier, ready_of


def test_round_trip_keeps_what_matters() -> None:  # a subclass: to_dict, request_from_dict
    spider = ForumSpider()
    request = scrapy.FormRequest("https://f.example/post.php", formdata={"q": "中文"},
                                 callback=spider.parse_thread, errback=spider.on_error,
                                 meta={"depth": 3, "thread": "12"}, cb_kwargs={"page": 2},
                                 priority=5, dont_filter=True,
                                 headers={"Referer": "https://f.example/"})
    request.meta[codec.LEASE_META] = "42"
    for host in (None, "f.example"):
        payload = codec.encode(request, spider, host)
        # priority 5: the level tag refill.lua queues it by, before the version
        assert payload.startswith(b"!5|" + codec.VERSION) and b"42" not in payload
        assert (b'"u":' in payload) is (host is None)
        back = codec.decode(payload, spider, host)
        assert isinstance(back, scrapy.FormRequest)
        assert (back.url, back.method, back.body) == (request.url, "POST", request.body)
        assert back.callback == spider.parse_thread and back.errback == spider.on_error
        assert back.meta == {"depth": 3, "thread": "12"} and back.cb_kwargs == {"page": 2}
        assert (back.priority, back.dont_filter) == (5, True)
        assert back.headers.get("Referer") == b"https://f.example/"
        assert back.headers.get("Content-Type") == b"application/x-www-form-urlencoded"


def test_plain_request_round_trip_keeps_every_attribute() -> None:  # the fast path
    spider = ForumSpider()
    request = scrapy.Request(
        "http://f.example:8080/a/b?x=1#top", callback=spider.parse_thread,
        errback=spider.on_error, method="PUT", body=b"\x00\xffbin", cookies={"sid": "1"},
        meta={"depth": 2, "list": [1, "二"], codec.LEASE_META: "7"}, encoding="latin-1",
        priority=-3, dont_filter=True, flags=["cached"], cb_kwargs={"page": 2},
        headers={"Referer": "http://f.example:8080/a/", "Accept": ["a", "b"],
                 "X-Raw": b"caf\xe9"})
    payload = codec.encode(request, spider, "f.example:8080")
    assert b'"t":"/a/b?x=1#top"' in payload and b'"r":"./"' in payload
    back = codec.decode(payload, spider, "f.example:8080")
    assert type(back) is scrapy.Request
    for attr in scrapy.Request.attributes:
        if attr not in ("meta", "headers"):
            assert getattr(back, attr) == getattr(request, attr), attr
    assert back.meta == {"depth": 2, "list": [1, "二"]}
    assert dict(back.headers) == dict(request.headers)  # bytes as they were, not re-encoded


def test_json_request_keeps_its_own_attributes() -> None:
    request = JsonRequest("https://api.example/v1", data={"q": 1}, dumps_kwargs={"sort_keys": True})
    back = codec.decode(codec.encode(request, None, "api.example"), None, "api.example")
    assert type(back) is JsonRequest and back.body == request.body
    assert back.dumps_kwargs == {"sort_keys": True} and back.method == "POST"


def test_payloads_are_the_same_whichever_path_builds_them() -> None:
    spider = ForumSpider()
    requests = [
        follow_request("https://bbs.example.cn/thread-1-2-1.html",
                       "https://bbs.example.cn/forum-3-1.html", spider),
        scrapy.Request("http://f.example/?q=1", callback=spider.alias, priority=2, flags=["x"],
                       cookies=[{"name": "a", "value": "b"}], body="body", method="POST",
                       meta={codec.LEASE_META: "1"}, headers={"Referer": "https://f.example/"}),
        scrapy.Request("https://f.example/", callback=spider.parse_thread, dont_filter=True,
                       cb_kwargs={"a": None}, encoding="cp1252"),
    ]
    for request in requests:
        for host in (None, host_of(request), "other.example"):
            generic = codec._pack(request.to_dict(spider=spider), host)
            assert codec.encode(request, spider, host) == generic
    assert b'"c":"alias"' in codec.encode(requests[1], spider)


def test_unencodable_requests_are_refused_not_pickled() -> None:
    spider, other = ForumSpider(), OtherSpider()
    refused = [
        scrapy.Request("https://f.example/", meta={"obj": object()}),
        scrapy.Request("https://f.example/", cb_kwargs={"b": b"bytes"}),
        scrapy.Request("https://f.example/", callback=lambda r: None),  # not a spider method
        scrapy.Request("https://f.example/", errback=print),
        scrapy.Request("https://f.example/", callback=other.elsewhere),  # another spider's
        scrapy.FormRequest("https://f.example/", callback=lambda r: None),
    ]
    for request in refused:
        with pytest.raises(codec.EncodeError):
            codec.encode(request, spider, "f.example")
    with pytest.raises(codec.EncodeError):  # no spider to name a method of
        codec.encode(scrapy.Request("https://f.example/", callback=spider.parse_thread), None)


@pytest.mark.parametrize(("url", "key"), [
    ("https://bbs.example.cn/forum.php?mod=viewthread&tid=1&page=2", "s"),
    ("http://bbs.example.cn/forum.php?mod=viewthread&tid=1&page=2", "t"),
    ("https://f.example:8443/t/1", "s"),  # the port is part of the queue's host
    ("http://127.0.0.1:36259/board/1", "t"),
    ("https://bücher.example/straße/主题?q=ü", "s"),  # IDN, percent-encoded by Request
    ("https://f.example/%E4%B8%AD%E6%96%87?q=%20&r=%2F", "s"),
    ("https://f.example?x=1", "s"),
    ("https://f.example", "s"),
    ("https://f.example//other.example/x", "s"),  # "//" after the host: still exact
    ("https://user:pw@f.example/x", "u"),  # the host has no userinfo: kept whole
    ("ftp://f.example/x", "u"),
])
def test_urls_are_stored_without_their_host_when_that_is_exact(url: str, key: str) -> None:
    spider = ForumSpider()
    request = scrapy.Request(url, callback=spider.parse_thread)
    host = host_of(request)
    payload = codec.encode(request, spider, host)
    assert next(iter(codec._loads(payload[1:].decode()))) == key
    assert codec.decode(payload, spider, host).url == request.url
    full = codec.encode(request, spider)
    assert b'"u":' in full and codec.decode(full, spider).url == request.url
    if key != "u":
        assert host.encode() not in payload
        with pytest.raises(ValueError, match="decode it with the host of its queue"):
            codec.decode(payload, spider)


def test_netloc_other_than_the_host_keeps_the_full_url() -> None:
    spider = ForumSpider()
    for url, host in [("https://a.example/x", "b.example"), ("https://a.example:81/", "a.example"),
                      ("https://a.example/", "a.example:443")]:
        payload = codec.encode(scrapy.Request(url), spider, host)
        assert payload == b'2{"u":"%s"}' % url.encode()
        assert codec.decode(payload, spider, host).url == url
    # Request lowercases scheme and host unless told to keep the URL as it is
    for url in ("https://Forum.Example.COM/X", "HTTPS://forum.example.com/X"):
        request = scrapy.Request(url, meta={"verbatim_url": True})
        assert host_of(request) == "forum.example.com" and request.url == url
        payload = codec.encode(request, spider, "forum.example.com")
        assert payload.startswith(b'2{"u":')
        assert codec.decode(payload, spider, "forum.example.com").url == url


@pytest.mark.parametrize(("url", "referer", "stored"), [
    ("https://f.example/t/9/page-3", "https://f.example/t/9/page-2", "./page-2"),  # sibling
    ("https://f.example/t/9/page-3", "https://f.example/t/9/", "./"),
    ("https://f.example/t/9/page-3", "https://f.example/t/9/?x", "./?x"),
    ("https://f.example/t/9/page-3", "https://f.example/t/9//x", ".//x"),
    ("https://f.example/t/9/page-3", "https://f.example/t/9/./x", "././x"),
    ("https://f.example/t/9/page-3", "https://f.example/t/9", "/t/9"),
    ("https://f.example/t/9/page-3", "https://f.example/board/1", "/board/1"),
    ("https://f.example/t/page-3", "https://f.example/t/page-2", "./page-2"),
    ("https://f.example/t/page-3", "https://f.example/./page-2", "/./page-2"),
    ("https://f.example/viewtopic.php?t=1", "https://f.example/viewforum.php?f=2",
     "/viewforum.php?f=2"),  # "./" would make it no shorter
    ("https://f.example/ab/cd?next=/b/c", "https://f.example/ab/d", "./d"),  # "/" of a query
    ("https://f.example/x", "https://f.example", ""),
    ("https://f.example/x", "https://f.example?q", "?q"),
    ("http://f.example:8080/x", "http://f.example:8080/", "/"),
])
def test_same_origin_referer_is_stored_as_its_path(url: str, referer: str, stored: str) -> None:
    spider = ForumSpider()
    request = follow_request(url, referer, spider)
    for host in (host_of(request), None):  # also next to a full URL
        payload = codec.encode(request, spider, host)
        data = codec._loads(payload[1:].decode())
        assert data["r"] == stored and "h" not in data
        back = codec.decode(payload, spider, host)
        assert back.headers.getlist("Referer") == [referer.encode()]
        assert back.url == request.url and back.meta == {"depth": 4}


@pytest.mark.parametrize("referer", [
    "https://other.example/t/9/page-2",
    "http://f.example/t/9/page-2",  # another scheme
    "https://f.example:444/t/9/page-2",  # another port
    "https://F.example/t/9/page-2",  # another netloc, as text
    "/t/9/page-2",  # a relative Referer stays as it was
    "",
])
def test_other_referers_stay_headers(referer: str) -> None:
    spider = ForumSpider()
    request = follow_request("https://f.example/t/9/page-3", referer, spider)
    payload = codec.encode(request, spider, "f.example")
    data = codec._loads(payload[1:].decode())
    assert "r" not in data and data["h"] == {"Referer": [referer]}
    assert dict(codec.decode(payload, spider, "f.example").headers) == dict(request.headers)


def test_several_referers_stay_headers() -> None:
    request = scrapy.Request("https://f.example/x", headers={"Referer": ["https://f.example/a",
                                                                         "https://f.example/b"]})
    payload = codec.encode(request, None, "f.example")
    assert b'"r"' not in payload
    assert codec.decode(payload, None, "f.example").headers.getlist("Referer") == [
        b"https://f.example/a", b"https://f.example/b"]


def test_version_1_payloads_still_decode() -> None:
    # as the version 1 codec wrote them (e4f4e81)
    spider = ForumSpider()
    follow = (b'1{"u":"https://bbs.example.cn/thread-8812-2-1.html","e":"on_error","h":{"Referer'
              b'":["https://bbs.example.cn/forum-37-5.html"]},"m":{"depth":4}}')
    form = (b'1{"u":"https://f.example/post.php","c":"parse_thread","h":{"Content-Type":["applicat'
            b'ion/x-www-form-urlencoded"]},"b":"cT0lRTQlQjglQUQlRTYlOTYlODc=","a":{"page":2},"d":'
            b'true,"x":"POST","p":5,"_":"scrapy.http.request.form.FormRequest"}')
    for host in (None, "bbs.example.cn"):
        back = codec.decode(follow, spider, host)
        assert type(back) is scrapy.Request
        assert back.url == "https://bbs.example.cn/thread-8812-2-1.html"
        assert back.errback == spider.on_error and back.callback is None
        assert back.meta == {"depth": 4}
        assert back.headers.getlist("Referer") == [b"https://bbs.example.cn/forum-37-5.html"]
    back = codec.decode(form, spider, "f.example")
    assert type(back) is scrapy.FormRequest and back.body == b"q=%E4%B8%AD%E6%96%87"
    assert (back.callback, back.cb_kwargs, back.dont_filter, back.method, back.priority) == (
        spider.parse_thread, {"page": 2}, True, "POST", 5)
    with pytest.raises(ValueError, match="unknown queued request format"):
        codec.decode(b'3{"u":"https://f.example/"}', spider)


def test_redis_memory_per_queued_request_is_at_most_120_bytes(r) -> None:
    spider = ForumSpider()
    f = make_frontier(r)
    epoch = f.join(1)
    links = typical_forum_links(5000)
    pushes = []
    for url, parent, depth in links:
        request = follow_request(url, parent, spider, depth)
        host = host_of(request)
        pushes.append(Pending(host, None, codec.encode(request, spider, host)))
    for start in range(0, len(pushes), 500):
        f.flush(pushes[start:start + 500], [], epoch, ready_of("n1"))
    hosts = {p.host for p in pushes}
    used = sum(r.memory_usage(f.keys.queue(h), samples=0) for h in hosts)
    per_request = used / len(links)
    print(f"Redis memory per queued request: {per_request:.1f} bytes")
    assert per_request <= 120
