"""Responses that are not pages: huge, binary, broken HTML, a lying charset."""

from __future__ import annotations

import pytest

from tests.helpers.nodes import COMMON
from tests.sitekit.site import SiteServer

pytestmark = pytest.mark.slow

GBK_PAGE = ('<html><head><meta charset="gbk"><title>论坛</title></head><body>'
            '<p>发表于 2024-3-2 08:18</p><a href="/thread/1">下一页</a></body></html>').encode("gbk")


def odd_pages(path: str, hit: int):
    if path == "/":
        links = "".join(f'<a href="{p}">x</a>' for p in
                        ("/big", "/attachment?id=7", "/blob", "/broken", "/gbk", "/board/1"))
        return 200, {}, f"<html><body>{links}</body></html>".encode()
    if path == "/big":
        return 200, {}, b"<html><body>" + b"x" * 3_000_000 + b"</body></html>"
    if path == "/attachment?id=7":
        return 200, {"Content-Type": "image/png"}, b"\x89PNG" + b"\0" * 200_000
    if path == "/blob":  # over DOWNLOAD_MAXSIZE, and binary
        return 200, {"Content-Type": "application/octet-stream"}, b"\0" * 5_000_000
    if path == "/broken":
        return 200, {}, b"<html><body><div><a href='/thread/2'>unclosed <p><table><tr><td>\xff\xfe"
    if path == "/gbk":  # the header claims utf-8 (the site's default Content-Type)
        return 200, {}, GBK_PAGE
    return None


def test_pages_that_are_not_pages_are_handled(redis_server, nodes):
    with SiteServer(hosts=1, pages_per_host=10, seed=61, faults={0: odd_pages}) as site:
        settings = {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": 0,
                    "DOWNLOAD_MAXSIZE": 1_000_000}
        node = nodes("crawler-0", site.base_urls, **settings)
        assert node.wait(60) == 0
        fetched = site.fetch_counts()
    log = node.output()
    assert "Traceback" not in log and "ERROR" not in log
    stats = node.outcomes()
    assert stats["filtered/too_large"] == 1
    assert stats["filtered/not_a_page"] == 2
    # neither reached a callback as if it were a whole page
    assert {p for p in node.pages() if p.endswith(("/big", "/attachment?id=7", "/blob"))} == set()
    assert stats["discovered"] == stats["fetched"] + stats["filtered"] + stats["failed"]
    base = site.base_urls[0]
    # links inside the broken page and the lying-charset page were still followed
    assert fetched[base + "thread/2"] == 1 and fetched[base + "thread/1"] == 1
