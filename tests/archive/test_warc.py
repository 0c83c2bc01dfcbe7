"""CRAWLER_WARC_DIR end to end: a phpBB forum served chunked and gzip on 127.0.0.1, crawled
twice (the second run an incremental pass on the changed forum), every WARC read back by
hand and by warcio's checker, every digest computed again from the bytes the server sent."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

from tests.archive.chunked_server import REDIRECT
from tests.archive.conftest import REFUSED, files_of
from tests.archive.warcs import Record, read, sha1_b32

IDENTICAL = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
NOT_MODIFIED = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"


def _responses(records: list[Record]) -> list[Record]:
    return [r for r in records if r.type in ("response", "revisit")]


def test_every_file_passes_warcio_check(runs):
    files = [str(runs["dir"] / n) for n in (*runs["first_files"], *runs["again_files"], *runs["still_files"])]
    assert len(files) >= 2
    warcio = Path(sys.executable).with_name("warcio")
    proc = subprocess.run([str(warcio), "check", *files], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_files_are_named_and_framed_as_warc_1_1(runs):
    for name in (*runs["first_files"], *runs["again_files"], *runs["still_files"]):
        assert name.startswith("phpbb-127.0.0.1-") and name.endswith("-00001.warc.gz"), name
        records = read(runs["dir"] / name)
        assert {r.version for r in records} == {"WARC/1.1"}
        assert [r.type for r in records].count("warcinfo") == 1 and records[0].type == "warcinfo"
        assert records[0].headers["WARC-Filename"] == name
    assert not list(runs["dir"].glob("*.open"))


def test_each_response_has_its_request_linked_by_concurrent_to(runs):
    for records in (runs["first_records"], runs["again_records"]):
        requests = {r.headers["WARC-Concurrent-To"]: r for r in records if r.type == "request"}
        responses = _responses(records)
        assert len(requests) == len(responses)
        for response in responses:
            request = requests[response.headers["WARC-Record-ID"]]
            assert request.uri == response.uri
            assert request.headers["WARC-Date"] == response.headers["WARC-Date"]
            line = request.http_head.split(b"\r\n", 1)[0].decode()
            path = response.uri.split("/", 3)[3]
            assert line == f"GET /{path} HTTP/1.1"  # the query string in the request line


def test_exactly_one_response_record_per_fetch(runs):
    for records, log in ((runs["first_records"], runs["first_log"]),
                         (runs["again_records"], runs["again_log"])):
        origin = runs["origin"]
        fetched = Counter(origin + target for target, _ in log)
        archived = Counter(r.uri for r in _responses(records))
        assert archived == fetched
        statuses = Counter((origin + t, s) for t, s in log)
        assert Counter((r.uri, r.status) for r in _responses(records)) == statuses


def test_pages_refused_by_robots_txt_are_not_archived(runs):
    assert not any(t.startswith(REFUSED) for t, _ in runs["first_log"] + runs["again_log"])
    records = runs["first_records"] + runs["again_records"]
    assert not any(REFUSED in r.uri for r in records)
    assert runs["first"].stats["outcomes/filtered/robots"] == 1  # it was linked, and refused


def test_records_are_exact(runs):
    first = runs["first_records"]
    origin = runs["origin"]
    uris = {r.uri for r in _responses(first)}
    # the redirect, robots.txt and pages with query strings, as requested
    assert origin + REDIRECT + "?from=old&x=%C3%A9" in uris
    assert origin + "/robots.txt" in uris
    assert any("viewtopic.php?" in u and "start=" in u for u in uris)
    for record in first:
        assert "<" not in record.uri and ">" not in record.uri
        if record.type not in ("response", "revisit", "request"):
            continue
        assert record.headers["WARC-IP-Address"] == "127.0.0.1"
        head = record.http_head.decode("latin-1")
        lines = head.split("\r\n")[1:-2]
        assert all(line and line[0] not in " \t" for line in lines), head  # never folded
        if record.type == "request":
            continue
        assert head.startswith("HTTP/1.1 ")
        assert "transfer-encoding" not in head.lower()
        assert "Server: chunky/1.0" in head
    redirect = next(r for r in first if r.uri.endswith("from=old&x=%C3%A9") and r.type == "response")
    assert redirect.status == 301 and b"\r\nLocation: /index.php\r\n" in redirect.http_head


def test_payload_digests_are_those_of_the_bytes_sent(runs):
    """Chunked and gzip pages: the stored payload is the gzip entity the server sent, and
    both digests check out by an independent computation."""
    origin, sent = runs["origin"], runs["first_sent"]
    gzipped = 0
    for record in _responses(runs["first_records"]):
        assert record.headers["WARC-Block-Digest"] == sha1_b32(record.block)
        if record.type == "revisit":
            assert record.payload == b""
            continue
        target = record.uri[len(origin):]
        assert record.payload == sent[target], record.uri
        assert record.headers["WARC-Payload-Digest"] == sha1_b32(sent[target])
        if b"Content-Encoding: gzip" in record.http_head:
            assert record.payload[:2] == b"\x1f\x8b"  # never a decoded body under gzip
            gzipped += 1
    assert gzipped >= 20


def test_the_second_run_adds_files_and_leaves_the_first_untouched(runs):
    assert runs["again_files"]
    assert set(runs["first_files"]).isdisjoint(runs["again_files"])
    now = files_of(runs["dir"])
    assert {k: now[k] for k in runs["first_files"]} == runs["first_files"]


def test_the_second_run_stores_unchanged_pages_as_revisits(runs):
    first = {r.uri: r for r in runs["first_records"] if r.type == "response"}
    again = _responses(runs["again_records"])
    identical = [r for r in again if r.headers.get("WARC-Profile") == IDENTICAL]
    # a board page read again unchanged (its board's row changed), and robots.txt
    assert any("viewforum" in r.uri for r in identical)
    # a third run, nothing changed: the index is a 304, referring to its second capture
    latest = {**first, **{r.uri: r for r in again if r.type == "response"}}
    still = _responses(runs["still_records"])
    not_modified = [r for r in still if r.headers.get("WARC-Profile") == NOT_MODIFIED]
    assert not_modified
    for r in identical + not_modified:
        assert r.type == "revisit" and r.payload == b""
        original = (first if r in identical else latest)[r.headers["WARC-Refers-To-Target-URI"]]
        assert r.headers["WARC-Refers-To-Date"] == original.headers["WARC-Date"]
        assert r.headers["WARC-Payload-Digest"] == original.headers["WARC-Payload-Digest"]
    assert all(r.status == 304 for r in not_modified)
    for r in again:  # a changed page is a full response
        if r.type == "response" and r.uri in first:
            assert r.headers["WARC-Payload-Digest"] != first[r.uri].headers["WARC-Payload-Digest"]


def test_the_second_run_stores_far_fewer_payload_bytes(runs):
    def stored(records: list[Record]) -> int:
        return sum(len(r.payload) for r in records if r.type == "response")

    first, again = stored(runs["first_records"]), stored(runs["again_records"])
    assert again <= 0.25 * first, (again, first)
    stats = runs["first"].stats
    assert stats["warc/payload_bytes"] == first and stats["warc/files"] == 1
    assert stats["warc/responses"] + stats.get("warc/revisits", 0) \
        + stats.get("warc/not_modified", 0) == len(runs["first_log"])
