"""A node's gzipped WARC/1.1 files: ``<dir>/<crawl>-<node>-<timestamp>-<n>.warc.gz``.

*timestamp* is the start of the run (UTC), *n* counts the files of the run from 00001.
A file is written as ``<name>.open`` and renamed when it is closed, at
:setting:`CRAWLER_WARC_MAX_SIZE` or at the end of the crawl, so ``python -m crawler wacz``
never packs a file still being written. Each file starts with a warcinfo record; the
records of one fetch never straddle two files. Earlier files are never opened again.

The writer holds an exclusive ``flock`` on the file it writes. A ``.open`` file nobody
holds was left by a killed run: :func:`close_abandoned` (a resumed crawl, ``wacz``) cuts it
after its last whole record and gives it its final name.
"""

from __future__ import annotations

import fcntl
import io
import logging
import os
import re
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from isal import isal_zlib
from warcio.warcwriter import WARCWriter

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

SUFFIX = ".warc.gz"
#: ISA-L level of each record's gzip member. On the bench's 11 KB pages: 28 µs a page
#: and 30% of its size, where zlib takes 84 µs at level 1 (31%) and 200 µs at its default
#: 6 (28%), and warcio's writer compresses at 9
GZIP_LEVEL = 1
OPEN = ".open"
WRITE_BUFFER = 256 * 1024


def safe_name(text: str) -> str:
    """*text* as a part of a file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "x"


class WarcFiles:
    """Rolling WARC files of one node in one run.

    Records come serialized (:mod:`crawler.archive.records`; warcio serializes the
    warcinfo record), or already made into gzip members (:func:`member`: the middleware
    compresses a fetch's records as it comes); each record is a gzip member of its own
    (replay tools seek to a record's offset) at :data:`GZIP_LEVEL`, in the caller's
    thread: a worker thread for the
    compression cost the bench's crawl more than it saved (its GIL hand-overs; bench site,
    10 hosts, 4 rounds: 0.85x the pages/s of the crawl without archive with the thread,
    0.99x without)."""

    def __init__(self, directory: str | os.PathLike[str], crawl: str, node: str,
                 max_size: int, info: dict[str, Any],
                 on_open: Callable[[], None] | None = None) -> None:
        self.directory = Path(directory)
        started = time.strftime("%Y%m%d%H%M%S", time.gmtime())
        self.stem = f"{safe_name(crawl)}-{safe_name(node)}-{started}"
        self.max_size = max_size
        self.info = info
        self.on_open = on_open
        self.closed: list[Path] = []  # the files this run finished
        self.error: OSError | None = None  # the first write error (then nothing is written)
        self._n = 0
        self._file: Any = None
        self._path: Path | None = None

    def _open(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        while True:
            self._n += 1
            name = f"{self.stem}-{self._n:05d}{SUFFIX}"
            path = self.directory / name
            if not path.exists():
                try:
                    # one write a batch, not one every 8 KB (the ack barrier flushes it)
                    self._file = open(path.with_name(name + OPEN), "xb",  # noqa: SIM115
                                      buffering=WRITE_BUFFER)
                except FileExistsError:
                    continue
                fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # ours
                break
        self._path = path
        buffer = io.BytesIO()
        writer = WARCWriter(buffer, gzip=False, warc_version="1.1")
        writer.write_record(writer.create_warcinfo_record(name, self.info))
        self._file.write(member(buffer.getvalue()))
        if self.on_open is not None:
            self.on_open()

    def write(self, records: Iterable[bytes]) -> None:
        """Write the serialized records of one fetch (never split over two files), then
        roll over if the file is full."""
        self.write_batch([records])

    def write_batch(self, batch: Iterable[Iterable[bytes]]) -> None:
        """Write the serialized records of several fetches, in order, as :meth:`write`
        would one by one."""
        self.write_members(b"".join(member(raw) for raw in raws) for raws in batch)

    def write_members(self, batch: Iterable[bytes]) -> None:
        """Write the records of several fetches, in order: each fetch's records already
        made into gzip members (:func:`member`) and joined."""
        if self.error is not None:
            return
        try:
            for members in batch:
                if self._file is None:
                    self._open()
                self._file.write(members)
                if self._file.tell() >= self.max_size:
                    self._close_file()
        except OSError as exc:  # a full disk: said once, the crawl goes on
            self.error = exc
            logger.error("WARC: writing to %s failed; no more records are written: %s",
                         self.directory, exc)

    def flush_to_os(self) -> None:
        """What was written, out of Python's buffer (a SIGKILL then loses none of it)."""
        if self._file is not None and self.error is None:
            try:
                self._file.flush()
            except OSError as exc:
                self.error = exc
                logger.error("WARC: writing to %s failed; no more records are written: %s",
                             self.directory, exc)

    def close(self) -> None:
        """Finish the current file (renamed to its final name)."""
        try:
            self._close_file()
        except OSError as exc:
            self.error = self.error or exc

    def _close_file(self) -> None:
        if self._file is None:
            return
        self._file.close()
        assert self._path is not None
        os.replace(self._path.with_name(self._path.name + OPEN), self._path)
        self.closed.append(self._path)
        self._file = self._path = None


def member(raw: bytes) -> bytes:
    """*raw* as one gzip member, in one call."""
    return isal_zlib.compress(raw, GZIP_LEVEL, isal_zlib.MAX_WBITS + 16)


def close_abandoned(directory: str | os.PathLike[str], prefix: str = "") -> list[Path]:
    """Close the ``.open`` files in *directory* (whose names start with *prefix*) that no
    writer holds, left by a killed run: each cut after its last whole record (a record cut
    by the kill is dropped) and renamed to its final name. Their final paths."""
    closed = []
    for path in sorted(Path(directory).glob(f"{prefix}*{SUFFIX}{OPEN}")):
        try:
            with path.open("r+b") as file:
                try:
                    fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # a live writer's
                whole = whole_members(file)
                if whole < os.fstat(file.fileno()).st_size:
                    file.truncate(whole)
                final = path.with_name(path.name[:-len(OPEN)])
                if whole:
                    os.replace(path, final)
                    closed.append(final)
                else:
                    path.unlink()  # not even its warcinfo record
        except OSError as exc:
            logger.warning("WARC: %s, left open by a killed run, could not be closed: %s",
                           path, exc)
    return closed


def whole_members(file: Any) -> int:
    """The length of *file*'s leading whole gzip members (where a cut member starts)."""
    file.seek(0)
    offset, data = 0, b""
    inflate = zlib.decompressobj(zlib.MAX_WBITS | 16)
    start = 0  # offset of the member being read
    while True:
        chunk = file.read(1 << 20)
        if not chunk:
            return start
        data = chunk
        while data:
            try:
                inflate.decompress(data)
            except zlib.error:
                return start
            if not inflate.eof:
                offset += len(data)
                break
            used = len(data) - len(inflate.unused_data)
            offset += used
            start = offset
            data = inflate.unused_data
            inflate = zlib.decompressobj(zlib.MAX_WBITS | 16)


def mount_point(path: str | os.PathLike[str]) -> str:
    """The mount point of the file system *path* is on (the disk to name in an error)."""
    current = Path(os.path.abspath(path))
    while not current.exists() or not os.path.ismount(current):
        if current.parent == current:
            break
        current = current.parent
    return str(current)
