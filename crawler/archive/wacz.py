"""``python -m crawler wacz --warc-dir DIR -o FILE.wacz``: a crawl's WARC files as WACZ 1.1.1.

py-wacz (``wacz create``) does the packaging: ``archive/`` (the WARC files, stored),
``indexes/index.cdx.gz`` with ``indexes/index.idx`` (compressed CDXJ by cdxj-indexer,
which pywb and ReplayWeb.page read), ``datapackage.json`` with a SHA-256 per file and
``datapackage-digest.json``. Written here, because py-wacz's own detection lists every
HTML response (or none without ``--detect-pages``): ``pages/pages.jsonl``, one line per
thread (or article) first page, titled with the thread's title. The crawl notes those in
its WARC files as ``metadata`` records (:class:`crawler.archive.middleware.ThreadPages`);
a page is listed at its first capture. WARC files of every node in DIR are packed, in
name order (``*.warc.gz``; files still being written, ``*.open``, are not).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

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
    if not directory.is_dir():
        raise WaczError(f"--warc-dir {str(directory)!r} is not a folder")
    warcs = sorted(p for p in directory.glob("*.warc.gz") if p.is_file())
    if not warcs:
        open_ = list(directory.glob("*.warc.gz.open"))
        raise WaczError(f"no WARC files (*.warc.gz) in {directory}" + (
            f" ({len(open_)} still being written: wait until the crawl ends)" if open_ else ""))
    return warcs


def thread_pages(warcs: list[Path]) -> tuple[list[dict[str, str]], int]:
    """The ``pages.jsonl`` entries (url, ts, title) and the number of captures: the first
    page of each thread noted in the WARC files, at its first capture with status 200."""
    captured: dict[str, str] = {}  # url -> WARC-Date of its first 200 (response or revisit)
    notes: list[tuple[str, dict[str, str]]] = []
    captures = 0
    for path in warcs:
        with path.open("rb") as f:
            for record in ArchiveIterator(f):
                kind, uri = record.rec_type, record.rec_headers.get_header("WARC-Target-URI")
                if kind in ("response", "revisit"):
                    captures += 1
                    status = record.http_headers.get_statuscode() if record.http_headers else ""
                    if status in ("200", "304"):
                        captured.setdefault(uri, record.rec_headers.get_header("WARC-Date"))
                elif kind == "metadata" and record.content_type == "application/warc-fields":
                    text = record.content_stream().read().decode("utf-8", "replace")
                    fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
                    if fields.get("title"):
                        notes.append((uri, fields))
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
    return pages, captures


def pack(directory: Path, output: Path) -> Packed:
    """Write *output* from the WARC files of *directory* (:class:`WaczError` on bad input)."""
    if output.suffix != ".wacz":
        raise WaczError(f"-o {str(output)!r} must end in .wacz")
    if not output.parent.is_dir():
        raise WaczError(f"-o {str(output)!r}: no folder {str(output.parent)!r}")
    warcs = find_warcs(directory)
    pages, captures = thread_pages(warcs)
    from wacz.main import main as wacz_main  # noqa: PLC0415 - slow import (frictionless)

    with tempfile.TemporaryDirectory(prefix="wacz-") as tmp:
        listing = Path(tmp) / "pages.jsonl"
        head = {"format": "json-pages-1.0", "id": "pages", "title": "Threads"}
        listing.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n"
                                   for line in [head, *pages]), encoding="utf-8")
        partial = output.with_name(output.name + ".partial")
        said = io.StringIO()
        with contextlib.redirect_stdout(said):
            status = wacz_main(["create", "-o", str(partial), "--pages", str(listing),
                                "--copy-pages", *map(str, warcs)])
        if status:
            partial.unlink(missing_ok=True)
            last = said.getvalue().strip().splitlines()[-1:] or ["failed"]
            raise WaczError(f"wacz create: {last[0]}")
        partial.replace(output)
    return Packed(output, len(warcs), len(pages), captures)


def main(directory: Path, output: Path) -> int:
    """The ``wacz`` subcommand: 0 written, 2 bad input (one ``error:`` line)."""
    import sys  # noqa: PLC0415

    try:
        packed = pack(directory, output)
    except (WaczError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {packed.path}: {packed.warcs} WARC files, {packed.captures} captures, "
          f"{packed.pages} thread pages in pages/pages.jsonl")
    return 0
