"""A node SIGKILLed mid-crawl with the archive on: every page whose lease was settled (acked,
so the resumed crawl does not fetch it again) has its response in the WARC files, as its
items are in the feed (issue 27's promise, for the archive: its records leave Python's buffer
before the acks do). Real node processes on a real Redis and a real HTTP server."""

from __future__ import annotations

import signal
import zlib
from typing import TYPE_CHECKING

import pytest

from crawler.demo.server import LoopbackServer
from tests.faults.test_items_durable import FAST, wide_site

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.slow


def response_uris(directory: Path) -> set[str]:
    """The URIs of the response records of every file, finished or not; a killed node's file
    may end in a cut record, which is where its reading stops."""
    uris = set()
    for path in directory.iterdir():
        data = path.read_bytes()
        while data:
            member = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                record = member.decompress(data) + member.flush()
            except zlib.error:
                break
            if not member.eof:
                break  # cut by the kill
            data = member.unused_data
            head = record.partition(b"\r\n\r\n")[0].decode()
            fields = dict(line.split(": ", 1) for line in head.split("\r\n")[1:])
            if fields["WARC-Type"] in ("response", "revisit"):
                uris.add(fields["WARC-Target-URI"])
    return uris


def test_a_sigkill_loses_no_record_of_a_settled_page(redis_server, nodes, tmp_path) -> None:
    site = wide_site(4, 100)
    warc = tmp_path / "warc"
    with LoopbackServer(site) as server:
        starts = [o + "/" for o in server.origins]
        every = {o + p for o in server.origins for p in ["/", *(f"/p{i}" for i in range(100))]}
        settings = {**FAST, "REDIS_URL": redis_server.url, "CRAWLER_WARC_DIR": warc}
        killed = nodes("n0", starts, **settings)
        assert server.recorder.wait_fetched(250, 120), killed.output()[-3000:]
        killed.kill()
        assert killed.wait(30) == -signal.SIGKILL
        resumed = nodes("n1", starts, **settings)
        assert resumed.wait(120) == 0, resumed.output()[-3000:]
    missing = every - response_uris(warc)
    assert not missing, f"{len(missing)} pages have no record in the archive"
