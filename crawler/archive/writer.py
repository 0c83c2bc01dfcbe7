"""A node's gzipped WARC/1.1 files: ``<dir>/<crawl>-<node>-<timestamp>-<n>.warc.gz``.

*timestamp* is the start of the run (UTC), *n* counts the files of the run from 00001.
A file is written as ``<name>.open`` and renamed when it is closed, at
:setting:`CRAWLER_WARC_MAX_SIZE` or at the end of the crawl, so ``python -m crawler wacz``
never packs a file still being written. Each file starts with a warcinfo record; the
records of one fetch never straddle two files. Earlier files are never opened again.
"""

from __future__ import annotations

import io
import logging
import os
import pickle
import queue
import re
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warcio.warcwriter import WARCWriter

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

SUFFIX = ".warc.gz"
#: zlib level of each record's gzip member: 1 takes half the CPU of zlib's default (6)
#: for files 6-15% larger (forum pages, bench pages), and warcio's 9 several times more
GZIP_LEVEL = 1
OPEN = ".open"
#: batches sent to the compressor and not yet written, before :meth:`WarcFiles.write_batch`
#: waits (a crawl faster than the compressor is slowed down, not its memory filled)
QUEUED_BATCHES = 4

#: The compressor: batches of serialized records in (a pickled list per fetch, behind its
#: length), the same batches as gzip members out. Python alone, no import of the crawler.
_COMPRESSOR = """
import pickle, struct, sys, zlib
level, read, write = int(sys.argv[1]), sys.stdin.buffer.read, sys.stdout.buffer
while len(head := read(4)) == 4:
    batch = pickle.loads(read(struct.unpack("!I", head)[0]))
    out = pickle.dumps([[zlib.compress(r, level, 31) for r in fetch] for fetch in batch], 5)
    write.write(struct.pack("!I", len(out)) + out)
    write.flush()
"""


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "x"


class WarcFiles:
    """Rolling WARC files of one node in one run.

    Records come serialized (:mod:`crawler.archive.records`; warcio serializes the
    warcinfo record); each becomes a gzip member of its own at :data:`GZIP_LEVEL`
    (warcio's writer compresses at 9, which costs a crawl several times the CPU for a few %
    smaller files). With *compressor*, a child process (plain Python, no import of the
    crawler) compresses them and a thread writes them, so the crawl's thread only
    serializes: compression was a third of what the archive cost the bench's crawl. Not a
    thread of the crawl's process: its GIL hand-overs, one per record, cost more than the
    compression (0.85x the pages/s of the crawl without archive, against 0.99x with the
    compression in the crawl's thread; bench site, 10 hosts, 4 rounds). Without the child
    (it could not start, or it died), records are compressed in the caller's thread."""

    def __init__(self, directory: str | os.PathLike[str], crawl: str, node: str,
                 max_size: int, info: dict[str, Any],
                 on_open: Callable[[], None] | None = None, compressor: bool = False,
                 ) -> None:
        self.directory = Path(directory)
        self.stem = f"{_safe(crawl)}-{_safe(node)}-{time.strftime('%Y%m%d%H%M%S', time.gmtime())}"
        self.max_size = max_size
        self.info = info
        self.on_open = on_open
        self.closed: list[Path] = []  # the files this run finished
        self.error: OSError | None = None  # the first write error (then nothing is written)
        self._n = 0
        self._file: Any = None
        self._path: Path | None = None
        self._child: subprocess.Popen[bytes] | None = None
        self._broken = False  # the compressor died: records are compressed here again
        self._sent = self._written = 0  # batches handed to the compressor, and written
        self._done = threading.Condition()
        self._slots = threading.Semaphore(QUEUED_BATCHES)
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        if compressor:
            self._start_compressor()

    def _start_compressor(self) -> None:
        try:
            self._child = subprocess.Popen(  # noqa: S603 - this interpreter, our code
                [sys.executable, "-c", _COMPRESSOR, str(GZIP_LEVEL)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                start_new_session=True)  # a Ctrl-C stops the crawl gently, not it
        except OSError as exc:
            logger.warning("WARC: no compressor process (%s); records are compressed in "
                           "the crawl's thread", exc)
            return
        self._threads = [threading.Thread(target=target, name=name, daemon=True)
                         for target, name in ((self._send, "warc-send"),
                                              (self._receive, "warc-receive"))]
        for thread in self._threads:
            thread.start()

    def _send(self) -> None:
        """Thread: hands the batches to the compressor (a write that waits for it)."""
        assert self._child is not None and self._child.stdin is not None
        while (blob := self._outbox.get()) is not None:
            try:
                self._child.stdin.write(blob)
                self._child.stdin.flush()
            except OSError:
                break  # the compressor died: _receive says so
        try:
            self._child.stdin.close()
        except OSError:
            pass

    def _receive(self) -> None:
        """Thread: writes the compressed batches, in order."""
        assert self._child is not None and self._child.stdout is not None
        read = self._child.stdout.read
        while len(head := read(4)) == 4:
            blob = read(struct.unpack("!I", head)[0])
            self._write_members(pickle.loads(blob))  # noqa: S301 - our own child's
            with self._done:
                self._written += 1
                self._done.notify_all()
            self._slots.release()
        with self._done:
            lost = self._sent - self._written
            self._broken = True
            self._done.notify_all()
        if lost:
            logger.error("WARC: the compressor process ended (exit %s); %d batch(es) of "
                         "records lost, the next ones are compressed in the crawl's thread",
                         self._child.poll(), lost)
        for _ in range(QUEUED_BATCHES):
            self._slots.release()  # nobody waits for it any more

    def _open(self) -> None:
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
        buffer = io.BytesIO()
        writer = WARCWriter(buffer, gzip=False, warc_version="1.1")
        writer.write_record(writer.create_warcinfo_record(name, self.info))
        self._file.write(_member(buffer.getvalue()))
        if self.on_open is not None:
            self.on_open()

    def write(self, records: Iterable[bytes]) -> None:
        """Write the serialized records of one fetch (never split over two files), then
        roll over if the file is full."""
        self.write_batch([records])

    def write_batch(self, batch: Iterable[Iterable[bytes]]) -> None:
        """Write the serialized records of several fetches, in order, as :meth:`write`
        would one by one: compressed and written by the compressor process and a thread
        when there is one (the call waits only when :data:`QUEUED_BATCHES` are pending)."""
        fetches = [list(records) for records in batch]
        if not fetches or self.error is not None:
            return
        if self._child is not None and not self._broken:
            blob = pickle.dumps(fetches, 5)
            self._slots.acquire()
            with self._done:
                if not self._broken:
                    self._sent += 1
                    self._outbox.put(struct.pack("!I", len(blob)) + blob)
                    return
        self._write_members([[_member(raw) for raw in raws] for raws in fetches])

    def drain(self) -> None:
        """Wait until every batch handed to the compressor is written."""
        with self._done:
            while self._written < self._sent and not self._broken:
                self._done.wait(1.0)

    def _write_members(self, batch: list[list[bytes]]) -> None:
        if self.error is not None:
            return
        try:
            for members in batch:
                if self._file is None:
                    self._open()
                self._file.write(b"".join(members))
                if self._file.tell() >= self.max_size:
                    self._close_file()
        except OSError as exc:  # a full disk: said once, the crawl goes on
            self.error = exc
            logger.error("WARC: writing to %s failed; no more records are written: %s",
                         self.directory, exc)

    def close(self) -> None:
        """Wait for the compressor, and finish the current file (renamed to its final
        name)."""
        if self._child is not None:
            self._outbox.put(None)
            for thread in self._threads:
                thread.join()
            self._child.wait()
            self._child = None
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


def _member(raw: bytes) -> bytes:
    """*raw* as one gzip member, in one zlib call."""
    return zlib.compress(raw, GZIP_LEVEL, zlib.MAX_WBITS + 16)
