"""The crawls the archive tests read: a phpBB forum served chunked and gzip, crawled twice
into one CRAWLER_WARC_DIR (the second run an incremental pass on the changed forum)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from tests.archive.chunked_server import REDIRECT, ChunkedGzipServer
from tests.archive.warcs import read_all
from tests.helpers.changing_forum import ChangingForum
from tests.helpers.crawl import run_crawl

#: Thread 102 is refused by robots.txt: never fetched, never archived.
ROBOTS = "User-agent: *\nDisallow: /viewtopic.php?t=102\n"
REFUSED = "/viewtopic.php?t=102"


def files_of(directory: Path) -> dict[str, str]:
    """WARC file name -> SHA-256 of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.glob("*.warc.gz"))}


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("warc")
    warc_dir = tmp / "warc"
    site = ChangingForum(threads=6)
    settings = {"CRAWLER_WARC_DIR": str(warc_dir)}
    with ChunkedGzipServer(site, site.start, robots=ROBOTS) as server:
        start = server.origin + REDIRECT + "?from=old&x=%C3%A9"
        first = run_crawl("phpbb", start, tmp / "first.jl", settings=settings)
        first_files = files_of(warc_dir)
        first_log, first_sent = list(server.log), dict(server.sent)
        site.version = 2
        again = run_crawl("phpbb", start, tmp / "again.jl", settings=settings)
        again_log = server.log[len(first_log):]
        again_files = {k: v for k, v in files_of(warc_dir).items() if k not in first_files}
        # and once more, nothing changed: the index comes back 304
        run_crawl("phpbb", start, tmp / "still.jl", settings=settings)
    still_files = [k for k in files_of(warc_dir) if k not in first_files and k not in again_files]
    return {"dir": warc_dir, "first": first, "again": again, "first_files": first_files,
            "again_files": again_files, "first_log": first_log, "again_log": again_log,
            "first_sent": first_sent, "origin": server.origin, "site": site,
            "first_records": read_all(warc_dir / n for n in first_files),
            "again_records": read_all(warc_dir / n for n in again_files),
            "still_files": still_files,
            "still_records": read_all(warc_dir / n for n in still_files)}
