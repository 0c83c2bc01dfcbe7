"""A feed file that a killed run left, before a resumed crawl appends to it.

The barrier (:mod:`crawler.feeds`) makes everything up to a page's ack durable, but a run
killed with ``-9`` may leave more after it: part of a line, or a compressed stream without
its end (gzip is flushed with ``Z_SYNC_FLUSH``; bz2 and xz end a stream at each barrier).
Appended to as it is, the file would hold a broken line, or a gzip/bz2/xz stream that
``zcat`` stops at with "format violated", hiding everything the resumed run writes after it.
What comes after the last whole line is of pages that were not acked, so the resumed crawl
fetches them again: it is dropped, and an unended gzip member is written whole.
"""

from __future__ import annotations

import bz2
import gzip
import json
import logging
import lzma
import os
import tempfile
import zlib
from typing import TYPE_CHECKING, Any

from scrapy.extensions import postprocessing
from scrapy.utils.misc import load_object

if TYPE_CHECKING:
    from collections.abc import Callable

logger = logging.getLogger(__name__)

#: feed formats whose items are lines: what follows the last newline is a partial item
LINE_FORMATS = ("jsonlines", "jl", "csv")
_CHUNK = 1 << 20
_STREAMS: dict[type, Callable[[], Any]] = {
    postprocessing.GzipPlugin: lambda: zlib.decompressobj(wbits=31),
    postprocessing.Bz2Plugin: bz2.BZ2Decompressor,
    postprocessing.LZMAPlugin: lzma.LZMADecompressor,
}


def adopt_tail(path: str, uri: str, feed_options: dict[str, Any]) -> None:
    """Make the feed file at *path* (to be appended to) end where its last whole item ends."""
    if not os.path.isfile(path) or not os.path.getsize(path):
        return
    fd = os.open(path, os.O_RDWR)
    try:
        _adopt(fd, uri, feed_options)
    finally:
        os.close(fd)


def _adopt(fd: int, uri: str, feed_options: dict[str, Any]) -> None:
    size = os.fstat(fd).st_size
    plugins = feed_options.get("postprocessing") or []
    lines = str(feed_options.get("format", "")).lower() in LINE_FORMATS
    try:
        if not plugins:  # the plugin last in the list is the one that writes the file
            kept = _whole_lines(fd, size, feed_options) if lines else size
        elif stream := next((new for cls, new in _STREAMS.items()
                             if issubclass(load_object(plugins[-1]), cls)), None):
            kept = _ended_streams(fd, size, stream, lines)
        else:
            return
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
        logger.warning("%(uri)s: could not read what an earlier run left (%(exc)s); "
                       "appending after it", {"uri": uri, "exc": exc})
        return
    if kept != size:
        logger.warning("%(uri)s: an earlier run was killed writing it; what it left after its "
                       "last whole item was cut or, for gzip, its stream ended (those pages are "
                       "fetched again)", {"uri": uri})


def _whole_lines(fd: int, size: int, feed_options: dict[str, Any]) -> int:
    """Cut a partial last line; a last JSON line whole but for its newline (a file this
    crawler did not write) gets its newline instead."""
    end = _after_last_newline(fd, size, cut=False)
    if end < size and str(feed_options.get("format")).lower() != "csv":
        try:
            json.loads(os.pread(fd, size - end, end))
        except ValueError:
            pass
        else:
            os.pwrite(fd, b"\n", size)
            return size
    if end != size:
        os.ftruncate(fd, end)
    return end


def _after_last_newline(fd: int, size: int, *, cut: bool = True) -> int:
    end = size
    while end > 0:
        start = max(0, end - _CHUNK)
        block = os.pread(fd, end - start, start)
        if (at := block.rfind(b"\n")) >= 0:
            end = start + at + 1
            break
        end = start
    if cut and end != size:
        os.ftruncate(fd, end)
    return end


def _ended_streams(fd: int, size: int, new: Callable[[], Any], lines: bool) -> int:
    """Cut an unended last stream; a gzip one is written anew, whole, with its whole lines."""
    start, pos, stream = 0, 0, new()
    while pos < size:
        chunk = os.pread(fd, min(_CHUNK, size - pos), pos)
        while chunk:
            stream.decompress(chunk)
            if not stream.eof:
                pos, chunk = pos + len(chunk), b""
                continue
            pos += len(chunk) - len(stream.unused_data)
            start, chunk, stream = pos, stream.unused_data, new()
    if start == size:
        return size
    if new is not _STREAMS[postprocessing.GzipPlugin]:  # a bz2/xz stream ends at each barrier
        os.ftruncate(fd, start)
        return start
    with tempfile.TemporaryFile() as text:
        stream, pos = new(), start
        while pos < size:
            chunk = os.pread(fd, min(_CHUNK, size - pos), pos)
            text.write(stream.decompress(chunk))
            pos += len(chunk)
        text.flush()
        keep = _after_last_newline(text.fileno(), text.tell()) if lines else text.tell()
        text.seek(0)
        os.ftruncate(fd, start)
        with os.fdopen(os.dup(fd), "ab") as out, gzip.GzipFile(fileobj=out, mode="wb") as member:
            while keep > 0 and (block := text.read(min(_CHUNK, keep))):
                member.write(block)
                keep -= len(block)
        return os.fstat(fd).st_size
