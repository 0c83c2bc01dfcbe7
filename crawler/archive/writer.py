"""A node's gzipped WARC/1.1 files: ``<dir>/<crawl>-<node>-<timestamp>-<n>.warc.gz``.

*timestamp* is the start of the run (UTC), *n* counts the files of the run from 00001.
A file is written as ``<name>.open`` and renamed when it is closed, at
:setting:`CRAWLER_WARC_MAX_SIZE` or at the end of the crawl, so ``python -m crawler wacz``
never packs a file still being written. Each file starts with a warcinfo record; the
records of one fetch never straddle two files. Earlier files are never opened again.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warcio.warcwriter import WARCWriter

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from warcio.recordloader import ArcWarcRecord

SUFFIX = ".warc.gz"
OPEN = ".open"


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "x"


class WarcFiles:
    """Rolling WARC files of one node in one run."""

    def __init__(self, directory: str | os.PathLike[str], crawl: str, node: str,
                 max_size: int, info: dict[str, Any],
                 on_open: Callable[[], None] | None = None) -> None:
        self.directory = Path(directory)
        self.stem = f"{_safe(crawl)}-{_safe(node)}-{time.strftime('%Y%m%d%H%M%S', time.gmtime())}"
        self.max_size = max_size
        self.info = info
        self.on_open = on_open
        self.closed: list[Path] = []  # the files this run finished
        self._n = 0
        self._file: Any = None
        self._path: Path | None = None
        self.writer: WARCWriter | None = None

    def _open(self) -> WARCWriter:
        self.directory.mkdir(parents=True, exist_ok=True)
        while True:
            self._n += 1
            name = f"{self.stem}-{self._n:05d}{SUFFIX}"
            path = self.directory / name
            if not path.exists():
                try:
                    self._file = open(path.with_name(name + OPEN), "xb")  # noqa: SIM115
                except FileExistsError:
                    continue
                break
        self._path = path
        self.writer = WARCWriter(self._file, gzip=True, warc_version="1.1")
        self.writer.write_record(self.writer.create_warcinfo_record(name, self.info))
        if self.on_open is not None:
            self.on_open()
        return self.writer

    def write(self, records: Iterable[ArcWarcRecord]) -> None:
        """Write the records of one fetch, then roll over if the file is full."""
        writer = self.writer or self._open()
        for record in records:
            writer.write_record(record)
        if self._file.tell() >= self.max_size:
            self.close()

    def close(self) -> None:
        """Finish the current file (renamed to its final name)."""
        if self._file is None:
            return
        self._file.close()
        assert self._path is not None
        os.replace(self._path.with_name(self._path.name + OPEN), self._path)
        self.closed.append(self._path)
        self._file = self.writer = self._path = None
