"""``python -m crawler wacz``: WACZ 1.1.1 of the two crawls of conftest.py, validated, and
replayed by pywb (in a virtualenv of its own: pywb pins redis 2.10, which the crawler
cannot use; skipped when pywb does not install)."""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from crawler.demo.fixture_server import route_key
from tests.archive.warcs import Record
from tests.helpers import forked
from tests.helpers.crawl import PROJECT_ROOT

PYWB = "pywb==2.10.0"
PYWB_VENV = PROJECT_ROOT / ".venv" / "pywb"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return forked.run("crawler", list(args), cwd=PROJECT_ROOT, timeout=120)


@pytest.fixture(scope="module")
def wacz(runs: dict[str, Any]) -> Path:
    out = runs["dir"].parent / "forum.wacz"
    proc = _cli("wacz", "--warc-dir", str(runs["dir"]), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"wrote {out}: 3 WARC files, ")  # one per run
    return out


def _threads(runs: dict[str, Any]) -> dict[str, str]:
    items = runs["first"].items + runs["again"].items
    return {i["url"]: i["title"] for i in items if i["item_type"] == "thread"}


def test_the_wacz_validates_and_holds_every_warc(wacz: Path, runs: dict[str, Any]) -> None:
    validate = Path(sys.executable).with_name("wacz")
    proc = subprocess.run([str(validate), "validate", "-f", str(wacz)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0 and "is valid" in proc.stdout, proc.stdout + proc.stderr
    with zipfile.ZipFile(wacz) as z:
        names = set(z.namelist())
        assert {"indexes/index.cdx.gz", "pages/pages.jsonl", "datapackage.json",
                "datapackage-digest.json"} <= names
        warcs = {*runs["first_files"], *runs["again_files"], *runs["still_files"]}
        assert {n for n in names if n.startswith("archive/")} == {f"archive/{n}" for n in warcs}
        package = json.loads(z.read("datapackage.json"))
        assert package["wacz_version"] == "1.1.1"
        for resource in package["resources"]:  # the digests, computed again
            data = z.read(resource["path"])
            assert resource["hash"] == "sha256:" + hashlib.sha256(data).hexdigest()
            assert resource["bytes"] == len(data)
        for name in warcs:  # stored, not compressed again
            assert z.getinfo(f"archive/{name}").compress_type == zipfile.ZIP_STORED
        index = gzip.decompress(z.read("indexes/index.cdx.gz")).decode().splitlines()
    assert any("viewtopic.php?" in line and '"mime": "warc/revisit"' not in line for line in index)


def test_pages_list_each_thread_first_page_with_its_title(wacz: Path,
                                                          runs: dict[str, Any]) -> None:
    with zipfile.ZipFile(wacz) as z:
        lines = [json.loads(x) for x in z.read("pages/pages.jsonl").decode().splitlines()]
    assert lines[0]["format"] == "json-pages-1.0"
    pages = {p["url"]: p for p in lines[1:]}
    assert len(pages) == len(lines) - 1
    threads = _threads(runs)
    assert {u: p["title"] for u, p in pages.items()} == threads
    first_dates = {r.uri: r.headers["WARC-Date"][:19] for r in runs["first_records"]
                   if r.type == "response"}
    for url, page in pages.items():
        assert "start=" not in url and page["ts"].endswith("Z")
        if url in first_dates:  # listed at its first capture
            assert page["ts"][:19] == first_dates[url]


def test_wacz_errors_are_one_line_with_status_2(tmp_path: Path, runs: dict[str, Any]) -> None:
    cases = [(["--warc-dir", str(tmp_path / "nope"), "-o", str(tmp_path / "a.wacz")],
              "is not a folder"),
             (["--warc-dir", str(tmp_path), "-o", str(tmp_path / "a.wacz")], "no WARC files"),
             (["--warc-dir", str(runs["dir"]), "-o", str(tmp_path / "a.zip")], "must end in .wacz"),
             (["--warc-dir", str(tmp_path / "busy"), "-o", str(tmp_path / "a.wacz")],
              "(1 still being written: wait until the crawl ends)")]
    (tmp_path / "busy").mkdir()
    writing = tmp_path / "busy" / "c-n-20261127000000-00001.warc.gz.open"
    writing.write_bytes(b"")
    with writing.open("rb") as held:  # as a live writer holds its file
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        for args, text in cases:
            proc = _cli("wacz", *args)
            assert proc.returncode == 2 and proc.stdout == ""
            assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
            assert text in proc.stderr
    assert not list(tmp_path.glob("*.wacz*"))


# -- replay ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pywb() -> Path:
    bin_dir = PYWB_VENV / "bin"
    if not (bin_dir / "wayback").exists():
        try:
            subprocess.run([sys.executable, "-m", "venv", str(PYWB_VENV)], check=True,
                           capture_output=True, timeout=120)
            subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", PYWB],
                           check=True, capture_output=True, timeout=300)
        except (subprocess.SubprocessError, OSError) as exc:
            pytest.skip(f"{PYWB} does not install here: {exc}")
    return bin_dir


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def wayback(pywb: Path, wacz: Path, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("pywb")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    for args in (["init", "forum"], ["add", "--unpack-wacz", "forum", str(wacz)]):
        subprocess.run([str(pywb / "wb-manager"), *args], cwd=root, env=env, check=True,
                       capture_output=True, timeout=60)
    port = _free_port()
    proc = subprocess.Popen([str(pywb / "wayback"), "-b", "127.0.0.1", "-p", str(port)],
                            cwd=root, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/forum"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(base + "/", timeout=2).close()
                break
            except urllib.error.HTTPError:
                break  # answering
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("pywb's wayback did not start")
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(10)


def _replay(base: str, record: Record) -> bytes:
    ts = "".join(c for c in record.headers["WARC-Date"][:19] if c.isdigit())
    with urllib.request.urlopen(f"{base}/{ts}id_/{record.uri}", timeout=10) as reply:
        body = reply.read()
    return gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body


def test_pywb_replays_every_thread_page_with_the_bytes_served(wayback: str,
                                                              runs: dict[str, Any]) -> None:
    site, origin = runs["site"], runs["origin"]
    pages = [r for r in runs["first_records"] if r.type == "response"
             and "viewtopic.php" in r.uri and r.status == 200]
    assert len(pages) >= 20 and any("start=" in r.uri for r in pages)
    for record in pages:
        served = site.versions[1][route_key(record.uri[len(origin):])]
        assert _replay(wayback, record) == served, record.uri


def test_pywb_replays_a_revisit_from_its_first_capture(wayback: str,
                                                     runs: dict[str, Any]) -> None:
    """An identical-payload revisit (robots.txt, a board page read again unchanged) replays
    with the payload of the capture it refers to. (A server-not-modified revisit replays as
    the 304 it was.)"""
    first = {r.uri: r for r in runs["first_records"] if r.type == "response"}
    revisits = [r for r in runs["again_records"] if r.type == "revisit" and r.status == 200]
    assert {"robots.txt", "viewforum.php"} <= {urlsplit(r.uri).path[1:] for r in revisits}
    for record in revisits:
        payload = first[record.headers["WARC-Refers-To-Target-URI"]].payload
        served = gzip.decompress(payload) if payload[:2] == b"\x1f\x8b" else payload
        assert _replay(wayback, record) == served, record.uri


def test_a_later_wacz_holds_the_new_files_and_requires_the_earlier(runs: dict[str, Any],
                                                                   tmp_path: Path) -> None:
    first_only = tmp_path / "first"
    first_only.mkdir()
    for name in runs["first_files"]:
        (first_only / name).write_bytes((runs["dir"] / name).read_bytes())
    earlier, later = tmp_path / "run1.wacz", tmp_path / "run2.wacz"
    assert _cli("wacz", "--warc-dir", str(first_only), "-o", str(earlier)).returncode == 0
    proc = _cli("wacz", "--warc-dir", str(runs["dir"]), "-o", str(later), "--after", str(earlier))
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(later) as z:
        archived = {n.removeprefix("archive/") for n in z.namelist() if n.startswith("archive/")}
        package = json.loads(z.read("datapackage.json"))
        digest = json.loads(z.read("datapackage-digest.json"))
        assert digest["hash"] == "sha256:" + hashlib.sha256(z.read("datapackage.json")).hexdigest()
    assert archived == {*runs["again_files"], *runs["still_files"]}
    assert package["relation"]["requires"] == [{
        "name": "run1.wacz", "hash": "sha256:" + hashlib.sha256(earlier.read_bytes()).hexdigest(),
        "bytes": earlier.stat().st_size}]
    validate = Path(sys.executable).with_name("wacz")
    check = subprocess.run([str(validate), "validate", "-f", str(later)], capture_output=True,
                           text=True, timeout=120, check=False)
    assert check.returncode == 0 and "is valid" in check.stdout, check.stdout
    again = _cli("wacz", "--warc-dir", str(first_only), "-o", str(tmp_path / "x.wacz"),
                 "--after", str(earlier))
    assert again.returncode == 2 and "beyond those of --after" in again.stderr
