"""The archive under kills, full disks and damaged files (issue 39, items 9, 10, 11, 13):
real node processes SIGKILLed, a real tmpfs that fills up, WARC files cut and damaged, read
back by hand (tests/archive/warcs.py) and by ``python -m crawler wacz``."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from crawler.demo.server import LoopbackServer
from tests.archive.test_kill import response_uris
from tests.attachments.test_store import _can_mount_tmpfs
from tests.archive.warcs import read_all
from tests.faults.test_items_durable import FAST, wide_site
from tests.helpers import ROOT, forked

pytestmark = pytest.mark.slow


def wacz(*args: str) -> subprocess.CompletedProcess[str]:
    return forked.run("crawler", ["wacz", *args], timeout=120)


def killed_run(nodes, redis_server, server, warc: Path, fetched: int):
    starts = [o + "/" for o in server.origins]
    settings = {**FAST, "REDIS_URL": redis_server.url, "CRAWLER_WARC_DIR": warc}
    killed = nodes("n0", starts, **settings)
    assert server.recorder.wait_fetched(fetched, 120), killed.output()[-3000:]
    killed.kill()
    assert killed.wait(30) == -signal.SIGKILL
    left = list(warc.glob("*.warc.gz.open"))
    assert left, "the killed run left its file open"
    return starts, settings, left


def test_a_resumed_crawl_closes_what_its_killed_run_left_open(redis_server, nodes, tmp_path):
    warc = tmp_path / "warc"
    with LoopbackServer(wide_site(4, 60)) as server:
        starts, settings, left = killed_run(nodes, redis_server, server, warc, 120)
        every = {o + p for o in server.origins for p in ["/", *(f"/p{i}" for i in range(60))]}
        resumed = nodes("n1", starts, **settings)
        assert resumed.wait(120) == 0, resumed.output()[-3000:]
    assert not list(warc.glob("*.open")), "a file left open"
    assert all(p.with_name(p.name.removesuffix(".open")).exists() for p in left)
    assert "file(s) a killed run left open closed" in resumed.output()
    assert every <= response_uris(warc)
    records = read_all(warc.glob("*.warc.gz"))  # every record whole, every file closed
    full = {(r.uri, r.headers["WARC-Date"]) for r in records if r.type == "response"}
    refers = [(r.headers["WARC-Refers-To-Target-URI"], r.headers["WARC-Refers-To-Date"])
              for r in records if r.type == "revisit" and "WARC-Refers-To-Date" in r.headers]
    assert [r for r in refers if r not in full] == [], "revisits of captures nowhere"


def test_wacz_packs_a_killed_runs_file_and_names_one_being_written(redis_server, nodes,
                                                                   tmp_path):
    warc = tmp_path / "warc"
    with LoopbackServer(wide_site(2, 60)) as server:
        _, _, left = killed_run(nodes, redis_server, server, warc, 40)
    busy = warc / "follow-n9-20261129000000-00001.warc.gz.open"  # a live node's, held
    busy.write_bytes(left[0].read_bytes())
    import fcntl

    with busy.open("rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        proc = wacz("--warc-dir", str(warc), "-o", str(tmp_path / "out.wacz"))
    assert proc.returncode == 0, proc.stderr
    assert f"closed 1 WARC file(s) a killed run left open: {left[0].name[:-5]}" in proc.stderr
    assert f"left out 1 WARC file(s) still being written by a crawl: {busy.name}" in proc.stderr
    with zipfile.ZipFile(tmp_path / "out.wacz") as z:
        assert f"archive/{left[0].name[:-5]}" in z.namelist()


#: A node's archive, two batches written, then SIGKILL: what the digest index holds then
KILL_AFTER_TWO_BATCHES = textwrap.dedent('''
    import os, signal, sys
    from scrapy import Request, Spider
    from scrapy.http import HtmlResponse
    from scrapy.utils.test import get_crawler
    from crawler.archive.middleware import WarcMiddleware

    crawler = get_crawler(Spider, {"REDIS_URL": sys.argv[1], "CRAWLER_WARC_DIR": sys.argv[2],
                                   "CRAWLER_CRAWL_ID": "k", "CRAWLER_NODE_ID": "n",
                                   "SCHEDULER": "crawler.scheduler.Scheduler"})
    archive = WarcMiddleware.from_crawler(crawler)
    for batch in range(2):
        for i in range(2):  # (small: Python's buffer holds both batches)
            request = Request(f"http://forum.example/t{batch}-{i}")
            archive.process_request(request)
            body = f"<html><body>page {batch}-{i} {os.urandom(8).hex()}</body></html>".encode()
            archive.process_response(request, HtmlResponse(request.url, body=body,
                                                           request=request))
        archive.flush()  # the batch's records written; the last batch's digests indexed
    os.kill(os.getpid(), signal.SIGKILL)
''')


def test_no_digest_is_indexed_before_its_record_is_in_the_file(redis_server, tmp_path):
    warc = tmp_path / "warc"
    proc = subprocess.run([sys.executable, "-c", KILL_AFTER_TWO_BATCHES, redis_server.url,
                           str(warc)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]
    indexed = {k.decode(): v.decode().split(" ", 1)[1] for k, v in
               redis_server.client().hgetall("crawler:{k}:warc:digests").items()}
    assert indexed, "the first batch is indexed"
    written = set()
    for path in warc.iterdir():  # the killed file: its records as far as they reached it
        for record in read_all([path]):
            if record.type == "response":
                written.add((record.uri, record.headers["WARC-Date"]))
    assert [u for u, date in indexed.items() if (u, date) not in written] == []


def _mount(folder: Path, size: str) -> None:
    folder.mkdir(exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                   check=True)


def _can_mount(tmp_path) -> bool:
    probe = tmp_path / "probe"
    try:
        _mount(probe, "64k")
    except (subprocess.CalledProcessError, OSError):
        return False
    subprocess.run(["umount", str(probe)], check=False)
    return True


def test_a_full_disk_stops_the_archive_in_one_line_and_claims_only_what_was_written(tmp_path):
    if not _can_mount(tmp_path):
        pytest.skip("needs mount -t tmpfs (root)")
    disk = tmp_path / "disk"
    _mount(disk, "48k")
    try:
        with LoopbackServer(wide_site(1, 400)) as server:
            start = server.origins[0] + "/"
            every = {start[:-1] + p for p in ["/", *(f"/p{i}" for i in range(400))]}
            stats_file = tmp_path / "stats.json"
            command = ["crawl", "follow", "-a", f"start_urls={start}",
                       "-o", f"{tmp_path / 'items.jl'}:jsonlines"]
            for key, value in {**FAST, "CRAWLER_ALLOW_PRIVATE_ADDRESSES": True,
                               "CRAWLER_STATE_DIR": tmp_path / "state",
                               "CRAWLER_STATS_FILE": stats_file,
                               "CRAWLER_WARC_DIR": disk}.items():
                command += ["-s", f"{key}={value}"]
            full = forked.run("scrapy", command, timeout=180)  # only waited for: forked
            assert full.returncode == 4, full.stderr[-3000:]
            last = full.stderr.strip().splitlines()[-1]
            assert last.startswith(f"error: cannot write the web archive to {disk} (on the "
                                   f"disk mounted at {disk}: No space left on device)"), last
            assert "Traceback" not in full.stderr, full.stderr[-3000:]
            stats = json.loads(stats_file.read_text())
            (kept,) = disk.glob("*.open")
            archived = read_all_whole(kept, tmp_path / "cut.warc.gz")
            responses = [r for r in archived if r.type == "response"]
            assert stats.get("warc/responses", 0) <= len(responses) < 400
            # room again: the same command archives every page the first run could not
            subprocess.run(["umount", str(disk)], check=True)
            _mount(disk, "16m")
            again = forked.run("scrapy", command, timeout=180)
            assert again.returncode == 0, again.stderr[-3000:]
            missing = every - response_uris(disk) - {r.uri for r in responses}
            assert not missing, f"{len(missing)} pages in no record"
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def read_all_whole(path: Path, cut: Path):
    """The whole records of a file cut by a full disk (copied to *cut*)."""
    from crawler.archive.writer import whole_members

    with path.open("rb") as file:
        whole = whole_members(file)
    cut.write_bytes(path.read_bytes()[:whole])
    return read_all([cut])


def test_wacz_names_the_file_and_offset_of_a_damaged_or_cut_warc(tmp_path):
    from crawler.archive.records import Fetch, fetch_records, warc_date
    from crawler.archive.writer import WarcFiles

    warc = tmp_path / "warc"
    files = WarcFiles(warc, "c", "n", 10**9, {"software": "test"})
    for i in range(20):
        body = f"<html>{i}</html>".encode() * 50
        fetch = Fetch(uri=f"http://x/{i}", date=warc_date(0), ip=None,
                      request_block=b"GET / HTTP/1.1\r\n\r\n", request_body=b"",
                      response_block=b"HTTP/1.1 200 OK\r\n\r\n", body=body, status=200,
                      truncated=False)
        files.write(fetch_records(fetch, fetch.digest, None)[0])
    files.close()
    (path,) = files.closed
    data = path.read_bytes()
    for name, damaged in (("cut", data[:len(data) * 2 // 3]),
                          ("damaged", data[:len(data) // 2] + b"\x00" * 64
                           + data[len(data) // 2 + 64:])):
        path.write_bytes(damaged)
        proc = wacz("--warc-dir", str(warc), "-o", str(tmp_path / f"{name}.wacz"))
        assert proc.returncode == 2, (name, proc.stderr)
        assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
        assert proc.stderr.startswith(f"error: {path}: damaged or cut at offset "), proc.stderr
        offset = int(proc.stderr.split("at offset ")[1].split()[0])
        assert 0 < offset < len(damaged)
        assert not (tmp_path / f"{name}.wacz").exists()


def _small_warc(folder: Path, n: int = 200) -> None:
    from crawler.archive.records import Fetch, fetch_records, warc_date
    from crawler.archive.writer import WarcFiles

    files = WarcFiles(folder, "c", "n", 10**9, {"software": "test"})
    for i in range(n):
        body = bytes(range(256)) * 8 + str(i).encode()  # hardly compressible: 2 KB a record
        fetch = Fetch(uri=f"http://x/{i}", date=warc_date(0), ip=None,
                      request_block=b"GET / HTTP/1.1\r\n\r\n", request_body=b"",
                      response_block=b"HTTP/1.1 200 OK\r\n\r\n", body=body, status=200,
                      truncated=False)
        files.write(fetch_records(fetch, fetch.digest, None)[0])
    files.close()


def test_wacz_on_a_full_disk_or_a_missing_earlier_wacz_says_so_in_one_line(tmp_path):
    warc, disk = tmp_path / "warc", tmp_path / "disk"
    _small_warc(warc)
    disk.mkdir()
    missing = tmp_path / "earlier.wacz"
    proc = wacz("--warc-dir", str(warc), "-o", str(tmp_path / "x.wacz"), "--after", str(missing))
    assert (proc.returncode, proc.stderr) == (
        2, f"error: --after {str(missing)!r}: No such file or directory\n")
    if not _can_mount_tmpfs():
        pytest.skip("needs unshare -rm (user and mount namespaces) for a real small disk")
    out = disk / "x.wacz"
    proc = subprocess.run(  # a real 64 KiB disk, which the ~400 KB package fills
        ["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {disk} && "
         f"{sys.executable} -m crawler wacz --warc-dir {warc} -o {out}; echo rc=$?; ls -A {disk}"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.stderr == f"error: {out}: No space left on device\n", proc.stderr
    assert proc.stdout == "rc=2\n", "exit 2, and no partial package left: " + proc.stdout
