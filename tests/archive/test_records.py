"""The records of one fetch and the rolling files, without a crawl."""

from __future__ import annotations

import gzip
from pathlib import Path

from scrapy import Request
from scrapy.http import HtmlResponse

from crawler.archive.records import (
    Fetch,
    Prior,
    fetch_records,
    request_block,
    response_block,
    warc_date,
)
from crawler.archive.writer import WarcFiles
from tests.archive.warcs import read, sha1_b32


def _response(protocol: str = "HTTP/1.1", **headers: str) -> tuple[Request, HtmlResponse]:
    request = Request("http://forum.example/viewtopic.php?t=5&start=20#p7",
                      headers={"Accept-Encoding": "gzip"})
    body = gzip.compress(b"<html><title>T</title></html>", mtime=0)
    response = HtmlResponse(request.url, status=200, body=body, request=request,
                            protocol=protocol,
                            headers={"Content-Encoding": "gzip", "Transfer-Encoding": "chunked",
                                     "Link": ["<a>", "<b>"], **headers})
    return request, response


def _fetch(request: Request, response: HtmlResponse) -> Fetch:
    return Fetch(uri="http://forum.example/viewtopic.php?t=5&start=20", date=warc_date(0),
                 ip="192.0.2.1", request_block=request_block(request, response),
                 request_body=b"", response_block=response_block(response),
                 body=response.body, status=200, truncated=False)


def test_the_header_blocks_are_as_received_without_transfer_encoding() -> None:
    request, response = _response("HTTP/1.0", Folded="one\r\n two")
    head = response_block(response).decode()
    assert head.startswith("HTTP/1.0 200 OK\r\n") and head.endswith("\r\n\r\n")
    assert "Transfer-Encoding" not in head and "Content-Encoding: gzip\r\n" in head
    assert "Link: <a>\r\nLink: <b>\r\n" in head
    assert all(line[:1] not in (" ", "\t") for line in head.split("\r\n"))
    line = request_block(request, response).decode().split("\r\n")[:2]
    assert line == ["GET /viewtopic.php?t=5&start=20 HTTP/1.0", "Host: forum.example"]


def test_digests_are_of_the_encoded_entity(tmp_path: Path) -> None:
    request, response = _response()
    fetch = _fetch(request, response)
    files = WarcFiles(tmp_path, "c", "n", 10**9, {"software": "t"})
    records, revisit = fetch_records(fetch, fetch.digest, None)
    files.write(records)
    files.close()
    assert not revisit
    got = read(files.closed[0])
    assert [r.type for r in got] == ["warcinfo", "response", "request"]
    assert got[1].headers["WARC-Payload-Digest"] == sha1_b32(response.body)
    assert got[1].payload == response.body
    assert got[1].headers["WARC-Target-URI"] == fetch.uri
    # an identical payload later: a revisit that refers to the first capture
    prior = Prior(fetch.digest, got[1].headers["WARC-Date"], fetch.uri)
    again, revisit = fetch_records(fetch, fetch.digest, prior)
    files = WarcFiles(tmp_path / "again", "c", "n", 10**9, {"software": "t"})
    files.write(again)
    files.close()
    got = read(files.closed[0])
    assert revisit and [r.type for r in got] == ["warcinfo", "revisit", "request"]
    assert got[1].headers["WARC-Refers-To-Date"] == prior.date
    assert got[1].headers["WARC-Payload-Digest"] == sha1_b32(response.body)
    assert got[1].payload == b"" and got[1].block == fetch.response_block
    # warcio reads the records back, digests checked
    from warcio.archiveiterator import ArchiveIterator  # noqa: PLC0415

    with files.closed[0].open("rb") as stream:
        kinds = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"))
                 for r in ArchiveIterator(stream, check_digests=True)]
    assert kinds == [("warcinfo", None), ("revisit", fetch.uri), ("request", fetch.uri)]


def test_files_roll_at_the_size_limit_with_one_warcinfo_each(tmp_path: Path) -> None:
    request, response = _response()
    opened = []
    files = WarcFiles(tmp_path, "forum-x.org", "node/1", 1500, {"software": "t"},
                      on_open=lambda: opened.append(1))
    for _ in range(6):
        fetch = _fetch(request, response)
        files.write(fetch_records(fetch, fetch.digest, None)[0])
    files.close()
    assert len(files.closed) == len(opened) >= 3
    for path in files.closed:
        assert path.name.startswith("forum-x.org-node_1-") and path.name.endswith(".warc.gz")
        types = [r.type for r in read(path)]
        assert types[0] == "warcinfo" and types.count("warcinfo") == 1
        assert types.count("response") == types.count("request") >= 1
    assert not list(tmp_path.glob("*.open"))


def test_the_login_flow_and_pages_that_are_not_content_are_not_archived(tmp_path: Path, r,
                                                                       redis_session) -> None:
    """The login POST (a password in its body) and a login wall marked ``not_content`` by
    crawler.login leave no record; the page fetched next to them does."""
    from scrapy import Spider  # noqa: PLC0415
    from scrapy.utils.test import get_crawler  # noqa: PLC0415

    from crawler.archive.middleware import WarcMiddleware  # noqa: PLC0415

    crawler = get_crawler(Spider, {"CRAWLER_WARC_DIR": str(tmp_path),
                                   "CRAWLER_CRAWL_ID": "login-test",
                                   "REDIS_URL": redis_session.url})
    crawler.spider = Spider("s")
    mw = WarcMiddleware.from_crawler(crawler)
    login = Request("http://forum.example/ucp.php?mode=login", method="POST",
                    body=b"username=u&password=secret", meta={"crawler_login": True})
    wall = Request("http://forum.example/viewtopic.php?t=9")
    page = Request("http://forum.example/viewtopic.php?t=5")
    for request in (login, wall, page):
        mw.process_request(request)
        response = HtmlResponse(request.url, body=b"<html></html>", request=request)
        mw.process_response(request, response)
    wall.meta["not_content"] = "filtered/login_required"  # as crawler.login marks it, later
    mw.spider_closed()
    records = [rec for path in tmp_path.glob("*.warc.gz") for rec in read(path)]
    assert {rec.uri for rec in records if rec.type != "warcinfo"} == {page.url}
    assert not any(b"secret" in rec.block for rec in records)
    stats = crawler.stats.get_stats()
    assert stats["warc/skipped/login"] == 1 and stats["warc/skipped/not_content"] == 1


def test_key_table_lists_the_digest_index() -> None:
    """The digest index is a key of the crawl, with its row in the key table (every key of
    Keys is documented there)."""
    import crawler.frontier.keys as keys_module  # noqa: PLC0415

    keys = keys_module.Keys("c")
    assert keys.warc_digests == "crawler:{c}:warc:digests"
    table = keys_module.__doc__ or ""
    for name in keys_module._CRAWL_KEYS.values():  # noqa: SLF001
        assert f"\n``{name}`` " in table, name
