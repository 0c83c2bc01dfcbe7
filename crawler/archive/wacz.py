"""``python -m crawler wacz --warc-dir DIR -o FILE.wacz``: a crawl's WARC files as WACZ 1.1.1.

py-wacz (``wacz create``) does the packaging: ``archive/`` (the WARC files, stored),
``indexes/index.cdx.gz`` with ``indexes/index.idx`` (compressed CDXJ by cdxj-indexer,
which pywb and ReplayWeb.page read), ``datapackage.json`` with a SHA-256 per file and
``datapackage-digest.json``. Written here, because py-wacz's own detection lists every
HTML response (or none without ``--detect-pages``): ``pages/pages.jsonl``, one line per
thread (or article) first page, titled with the thread's title. The crawl notes those in
its WARC files as ``metadata`` records
(:meth:`crawler.archive.middleware.WarcMiddleware.item_scraped`);
a page is listed at its first capture. WARC files of every node in DIR are packed, in
name order (``*.warc.gz``; files still being written, ``*.open``, are not, and are named;
a killed run's ``.open`` files are closed first and packed). A damaged or cut file stops it
with one line naming the file and the offset. With
``--after EARLIER.wacz`` (a WACZ made from the same folder before), only the files it does not
hold are packed, and ``datapackage.json`` gets ``relation.requires`` naming it when revisits
of the new files refer to captures in it: written here too (py-wacz has no such option).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

from crawler.archive.writer import close_abandoned, whole_members

#: WACZ ``ts`` of a page: the WARC-Date as ISO 8601 (seconds, UTC).
_DATE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)")


class WaczError(Exception):
    """A one-line reason the WACZ could not be written."""


@dataclass(frozen=True)
class Packed:
    path: Path
    warcs: int
    pages: int
    captures: int


def find_warcs(directory: Path) -> list[Path]:
    """The WARC files of *directory*: a killed run's ``.open`` files closed first (and
    said), a file still being written named as left out."""
    if not directory.is_dir():
        raise WaczError(f"--warc-dir {str(directory)!r} is not a folder")
    if closed := close_abandoned(directory):
        say(f"closed {len(closed)} WARC file(s) a killed run left open: "
            + ", ".join(p.name for p in closed))
    warcs = sorted(p for p in directory.glob("*.warc.gz") if p.is_file())
    open_ = sorted(p.name for p in directory.glob("*.warc.gz.open"))
    if not warcs:
        raise WaczError(f"no WARC files (*.warc.gz) in {directory}" + (
            f" ({len(open_)} still being written: wait until the crawl ends)" if open_ else ""))
    if open_:
        say(f"left out {len(open_)} WARC file(s) still being written by a crawl: "
            + ", ".join(open_))
    for path in warcs:
        check(path)
    return warcs


def check(path: Path) -> None:
    """:class:`WaczError` naming *path* and the offset where it is damaged or cut."""
    with path.open("rb") as file:
        whole = whole_members(file)
        size = os.fstat(file.fileno()).st_size
    if whole < size:
        raise WaczError(f"{path}: damaged or cut at offset {whole} (of {size} bytes): not a "
                        "whole gzip record there; move the file aside, or cut it there")


def say(line: str) -> None:
    print(f"wacz: {line}", file=sys.stderr)


@dataclass
class Scan:
    """What ``wacz`` reads from the WARC files it packs."""

    pages: list[dict[str, str]]  # pages.jsonl entries: url, ts, title
    captures: int  # response and revisit records
    outside: int  # revisits whose original capture is in none of these files


def scan(warcs: list[Path]) -> Scan:
    """The first page of each thread noted in the WARC files, at its first capture with
    status 200; the captures; the revisits that refer to captures elsewhere."""
    captured: dict[str, str] = {}  # url -> WARC-Date of its first 200 (response or revisit)
    notes: list[tuple[str, dict[str, str]]] = []
    full: set[tuple[str, str]] = set()  # (url, date) of every response record
    refers: list[tuple[str, str]] = []
    captures = 0
    for path in warcs:
        with path.open("rb") as f:
            records = ArchiveIterator(f)
            try:
                captures += read_warc(records, captured, notes, full, refers)
            except (ArchiveLoadFailed, ValueError, KeyError) as exc:
                raise WaczError(f"{path}: not a WARC record at offset "
                                f"{records.get_record_offset()}: "
                                f"{' '.join(str(exc).split())[:200]}") from None
    pages, listed = [], set()
    for uri, fields in notes:
        # the thread's own URL (its first page) when archived, else the page it came from
        url = fields.get("item-url") if fields.get("item-url") in captured else uri
        if url in listed or url not in captured:
            continue
        listed.add(url)
        match = _DATE.match(captured[url])
        ts = match.group(1) + "Z" if match else captured[url]
        pages.append({"id": f"p{len(pages) + 1}", "url": url, "ts": ts,
                      "title": fields["title"]})
    return Scan(pages, captures, sum(1 for r in refers if r not in full))


def read_warc(records: ArchiveIterator, captured: dict[str, str],
              notes: list[tuple[str, dict[str, str]]], full: set[tuple[str, str]],
              refers: list[tuple[str, str]]) -> int:
    """Note what :func:`scan` needs of one WARC file's *records*; its captures."""
    captures = 0
    for record in records:
        kind, uri = record.rec_type, record.rec_headers.get_header("WARC-Target-URI")
        if kind in ("response", "revisit"):
            captures += 1
            headers = record.rec_headers
            if kind == "response":
                full.add((uri, headers.get_header("WARC-Date")))
            elif headers.get_header("WARC-Refers-To-Date"):
                refers.append((headers.get_header("WARC-Refers-To-Target-URI"),
                               headers.get_header("WARC-Refers-To-Date")))
            status = record.http_headers.get_statuscode() if record.http_headers else ""
            if status in ("200", "304"):
                captured.setdefault(uri, record.rec_headers.get_header("WARC-Date"))
        elif kind == "metadata" and record.content_type == "application/warc-fields":
            text = record.content_stream().read().decode("utf-8", "replace")
            fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
            if fields.get("title"):
                notes.append((uri, fields))
    return captures


def _packed(earlier: Path) -> tuple[set[str], dict[str, object]]:
    """The WARC file names in the WACZ *earlier*, and how a later one names it."""
    try:
        with zipfile.ZipFile(earlier) as z:
            names = {n.removeprefix("archive/") for n in z.namelist() if n.startswith("archive/")}
    except OSError as exc:
        raise WaczError(f"--after {str(earlier)!r}: {exc.strerror or exc}") from None
    except zipfile.BadZipFile as exc:
        raise WaczError(f"--after {str(earlier)!r}: not a WACZ ({exc})") from None
    digest = hashlib.sha256()
    with earlier.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return names, {"name": earlier.name, "hash": "sha256:" + digest.hexdigest(),
                   "bytes": earlier.stat().st_size}


def _require(path: Path, requires: list[dict[str, object]]) -> None:
    """Add ``relation.requires`` to the ``datapackage.json`` of the WACZ at *path* (and
    its digest to ``datapackage-digest.json``): the zip is written anew, members as they were."""
    rewritten = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(rewritten, "w") as out:
        package = json.loads(src.read("datapackage.json"))
        package["relation"] = {"requires": requires}
        text = json.dumps(package, indent=2).encode()
        digest = json.loads(src.read("datapackage-digest.json"))
        digest["hash"] = "sha256:" + hashlib.sha256(text).hexdigest()
        for info in src.infolist():
            if info.filename == "datapackage.json":
                out.writestr(info, text)
            elif info.filename == "datapackage-digest.json":
                out.writestr(info, json.dumps(digest, indent=2).encode())
            else:
                with src.open(info) as member, out.open(info, "w") as copy:
                    shutil.copyfileobj(member, copy, 1 << 20)
    rewritten.replace(path)


def pack(directory: Path, output: Path, after: list[Path] | None = None) -> Packed:
    """Write *output* from the WARC files of *directory* (:class:`WaczError` on bad input).
    With *after* (earlier WACZ files of the same folder), only the WARC files none of them
    holds; when revisits refer to captures in those, ``datapackage.json`` names them under
    ``relation.requires`` (name, SHA-256, bytes)."""
    if output.suffix != ".wacz":
        raise WaczError(f"-o {str(output)!r} must end in .wacz")
    if not output.parent.is_dir():
        raise WaczError(f"-o {str(output)!r}: no folder {str(output.parent)!r}")
    warcs = find_warcs(directory)
    requires = []
    for earlier in after or []:
        names, named = _packed(earlier)
        warcs = [w for w in warcs if w.name not in names]
        requires.append(named)
    if not warcs:
        raise WaczError(f"no WARC files in {directory} beyond those of --after")
    found = scan(warcs)
    pages, captures = found.pages, found.captures
    with tempfile.TemporaryDirectory(prefix="wacz-") as tmp:
        listing = Path(tmp) / "pages.jsonl"
        head = {"format": "json-pages-1.0", "id": "pages", "title": "Threads"}
        listing.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n"
                                   for line in [head, *pages]), encoding="utf-8")
        partial = output.with_name(output.name + ".partial")
        said = io.StringIO()
        with contextlib.redirect_stdout(said):
            status, reason = _create(["create", "-o", str(partial), "--pages", str(listing),
                                      "--copy-pages", *map(str, warcs)])
        if reason is not None:
            partial.unlink(missing_ok=True)
            raise WaczError(f"{output}: {reason}")
        if status:
            partial.unlink(missing_ok=True)
            last = said.getvalue().strip().splitlines()[-1:] or ["failed"]
            raise WaczError(f"wacz create: {last[0]}")
        if requires and found.outside:
            _require(partial, requires)
        partial.replace(output)
    return Packed(output, len(warcs), len(pages), captures)


def _create(args: list[str]) -> tuple[int, str | None]:
    """py-wacz's ``create``: (its status, None), or (1, why) on an ``OSError`` (a full disk).
    Then the zip file it left open goes quietly: its ``__del__`` would write to the full disk
    again and print a traceback."""
    from wacz.main import main as wacz_main  # noqa: PLC0415 - slow import (frictionless)

    hook = sys.unraisablehook
    try:
        return wacz_main(args), None
    except OSError as exc:
        sys.unraisablehook = lambda _: None  # until the zip file, held by exc, is gone
        return 1, exc.strerror or str(exc)
    finally:
        gc.collect()
        sys.unraisablehook = hook


def main(directory: Path, output: Path, after: list[Path] | None = None) -> int:
    """The ``wacz`` subcommand: 0 written, 2 bad input (one ``error:`` line)."""
    try:
        packed = pack(directory, output, after)
    except (WaczError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {packed.path}: {packed.warcs} WARC files, {packed.captures} captures, "
          f"{packed.pages} thread pages in pages/pages.jsonl")
    return 0
