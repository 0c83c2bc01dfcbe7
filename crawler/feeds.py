"""Feeds (``-o``, :setting:`FEEDS`) that hold every item of a page before the page is acked.

Built on two seams Scrapy documents, not on :class:`~scrapy.extensions.feedexport.FeedExporter`'s
internals:

- **feed storages** (:setting:`FEED_STORAGES`: ``file``, the default, and ``stdout``):
  :meth:`DurableFileFeedStorage.open` hands the exporter a :class:`FeedFile`, which
  remembers how much of it is durable;
- **post-processing plugins** (the ``postprocessing`` feed option): :class:`GzipPlugin`
  flushes its compressor with ``Z_SYNC_FLUSH`` (what is written is readable after a kill),
  :class:`Bz2Plugin` and :class:`LZMAPlugin` end a stream (their formats read concatenated
  streams as one). The add-on puts them in place of Scrapy's three plugins, which they
  extend; another plugin cannot be flushed, and the crawl says so when it starts.

Every feed file open in a crawl, batches (``batch_item_count``) and several URIs included,
is in its :class:`FeedFiles`, one of the node's ack barriers
(:meth:`crawler.node.api.NodeAPI.add_ack_barrier`): before a batch of acks leaves, each
plugin chain is flushed, each file flushed and fsynced (a regular file with new bytes). A
batch's file is fsynced when Scrapy closes it. Remote storages (S3, GCS, FTP) upload at the
end of the crawl and are not covered.

A write error (a full disk, a quota) stops the crawl at once with one line (reason
``feed_write_failed``, exit status 4): every feed file is cut back to its last durable size
(no partial line), and the acks of the pages whose items were not written are never sent,
so running the same command again fetches them again.
"""

from __future__ import annotations

import io
import logging
import os
import stat
import weakref
from typing import TYPE_CHECKING, Any, BinaryIO, Self

from scrapy.extensions import postprocessing
from scrapy.extensions.feedexport import FileFeedStorage, StdoutFeedStorage
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import load_object

from crawler.durable import ITEMS_ERROR_STAT, NOT_WRITTEN_STAT
from crawler.feed_tail import adopt_tail
from crawler.node.api import node_of

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)


class FeedFiles:
    """The feed files open in one crawl: an ack barrier (:meth:`sync`), and what a write
    error does (:meth:`fail`)."""

    _of: weakref.WeakKeyDictionary[Crawler, FeedFiles] = weakref.WeakKeyDictionary()

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.files: list[FeedFile] = []
        self.failed = False
        self._barrier = False  # registered with the node

    @classmethod
    def of(cls, crawler: Crawler) -> Self:
        if crawler not in cls._of:
            cls._of[crawler] = cls(crawler)
        return cls._of[crawler]

    def opened(self, file: FeedFile) -> None:
        self.files.append(file)
        if not self._barrier and (node := node_of(self.crawler)) is not None:
            self._barrier = True
            node.add_ack_barrier(self.sync)

    def closed(self, file: FeedFile) -> None:
        if file in self.files:
            self.files.remove(file)

    def sync(self) -> bool:
        """Write what every feed holds to its file and fsync it: whether the acks may go."""
        if self.failed:
            return False
        try:
            sizes = [(file, file.sync()) for file in self.files]
        except OSError as exc:
            self.fail(exc)
            return False
        for file, size in sizes:  # all or nothing: these sizes hold only settled pages' items
            file.durable_size = size
        return True

    def fail(self, exc: OSError) -> None:
        """A feed cannot be written: cut every feed file back to its last durable size,
        write nothing more to them, keep the acks, and stop the crawl."""
        if self.failed:
            return
        self.failed = True
        uris = [file.uri for file in self.files]
        for file in list(self.files):
            file.cut_back()
        reason = exc.strerror or str(exc) or type(exc).__name__
        where = ", ".join(uris) or "the feed"
        message = (f"cannot write the items to {where} ({reason}): the crawl stopped; the "
                   "pages of the items not written were not marked done, so the same "
                   "command fetches them again")
        self.crawler.stats.set_value(ITEMS_ERROR_STAT, message)
        self.crawler.stats.inc_value(NOT_WRITTEN_STAT)
        logger.error("Cannot write the items to %(uris)s (%(reason)s): stopping the crawl; "
                     "the pages of the items not written are not marked done, so running "
                     "the same command again fetches them again",
                     {"uris": where, "reason": reason})
        engine = self.crawler.engine
        if engine is not None and self.crawler.crawling:
            from twisted.internet import reactor  # noqa: PLC0415 - the running one

            reactor.callLater(0, lambda: deferred_from_coro(
                engine.close_spider_async(reason="feed_write_failed")))


class FeedFile(io.IOBase):
    """What a feed's exporter (or its last plugin) writes to: a storage's file, and how
    much of it is durable. A file-like object, as exporters need (see Scrapy's
    ``PostProcessingManager``)."""

    def __init__(self, raw: BinaryIO, uri: str, feeds: FeedFiles, *, owned: bool = True) -> None:
        self.raw = raw
        self.uri = uri
        self.feeds = feeds
        self.owned = owned  # closed with the feed (not stdout)
        self.upstream: Any = None  # the plugin that writes into this file, if any
        self.durable_size = _regular_size(raw)  # None: not a regular file (stdout, a pipe)
        feeds.opened(self)

    def feeds_from(self, plugin: Any) -> None:
        self.upstream = plugin

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:
        if self.feeds.failed:  # the crawl is stopping: nothing more is written
            self.feeds.crawler.stats.inc_value(NOT_WRITTEN_STAT)
            return len(data)
        try:
            return self.raw.write(data)
        except OSError as exc:  # one line and a stop, not a traceback per item
            self.feeds.fail(exc)
            return len(data)

    def tell(self) -> int:
        return self.raw.tell()

    def fileno(self) -> int:
        return self.raw.fileno()

    def flush(self) -> None:
        if self.feeds.failed or self.raw.closed:
            return
        try:
            self.raw.flush()
        except OSError as exc:
            self.feeds.fail(exc)

    def sync(self) -> int | None:
        """Flush the plugins and the file, fsync it: its size now (raises OSError)."""
        if self.upstream is not None:
            self.upstream.flush()
        self.raw.flush()
        if self.durable_size is None:
            return None
        fd = self.raw.fileno()
        if (size := os.fstat(fd).st_size) != self.durable_size:
            os.fsync(fd)
        return size

    def cut_back(self) -> None:
        """Drop what is not durable (a write failed): the file ends at its last durable size."""
        self.feeds.closed(self)
        try:
            if self.durable_size is not None:
                os.ftruncate(self.raw.fileno(), self.durable_size)  # frees space, never fails
            if (raw := getattr(self.raw, "raw", None)) is not None and self.owned:
                raw.close()  # the buffer is dropped, not written at close
        except OSError:
            pass

    def close(self) -> None:
        """Scrapy stores the feed (its end, or a batch's): flushed and fsynced first."""
        if self.closed:
            return
        try:
            if not self.feeds.failed:
                self.durable_size = self.sync()
        except OSError as exc:
            self.feeds.fail(exc)
        finally:
            self.feeds.closed(self)
            if self.owned and not self.raw.closed:
                try:
                    self.raw.close()
                except (OSError, ValueError):  # its buffer could not be written: it failed
                    pass
            super().close()


class _DurableStorage:
    """What both durable storages add to Scrapy's: the crawl whose :class:`FeedFiles` their
    files join, and the URI they are named by."""

    uri: str
    crawler: Crawler | None

    def _remember(self, uri: str, crawler: Crawler | None,
                  feed_options: dict[str, Any] | None) -> None:
        self.uri = uri
        self.crawler = crawler
        _say_unflushable(uri, feed_options)

    @classmethod
    def from_crawler(cls, crawler: Crawler, uri: str, *,
                     feed_options: dict[str, Any] | None = None) -> Self:
        return cls(uri, feed_options=feed_options, crawler=crawler)  # type: ignore[call-arg]

    def _feeds(self, spider: Spider) -> FeedFiles:
        return FeedFiles.of(self.crawler or spider.crawler)


class DurableFileFeedStorage(_DurableStorage, FileFeedStorage):
    """Scrapy's file storage, whose file is a :class:`FeedFile`."""

    def __init__(self, uri: str, *, feed_options: dict[str, Any] | None = None,
                 crawler: Crawler | None = None) -> None:
        super().__init__(uri, feed_options=feed_options)
        self._remember(uri, crawler, feed_options)
        self.feed_options = feed_options or {}

    def open(self, spider: Spider) -> Any:
        raw = super().open(spider)
        if "a" in self.write_mode:  # a resumed crawl appends: not after a killed run's tail
            adopt_tail(raw.name, self.uri, self.feed_options)
        return FeedFile(raw, self.uri, self._feeds(spider))


class DurableStdoutFeedStorage(_DurableStorage, StdoutFeedStorage):
    """Scrapy's stdout storage, flushed before acks (stdout is never closed)."""

    def __init__(self, uri: str, _stdout: BinaryIO | None = None, *,
                 feed_options: dict[str, Any] | None = None,
                 crawler: Crawler | None = None) -> None:
        super().__init__(uri, _stdout, feed_options=feed_options)
        self._remember(uri, crawler, feed_options)

    def open(self, spider: Spider) -> Any:
        return FeedFile(super().open(spider), self.uri, self._feeds(spider), owned=False)

    def store(self, file: Any) -> None:
        file.close()  # flushed, and out of the barrier (stdout itself stays open)


class _Flushed:
    """A plugin the barrier flushes: it tells the file (or plugin) it writes into."""

    upstream: Any = None

    def _link(self, file: Any) -> None:
        if hasattr(file, "feeds_from"):
            file.feeds_from(self)

    def feeds_from(self, plugin: Any) -> None:
        self.upstream = plugin

    def _flush_upstream(self) -> None:
        if self.upstream is not None:
            self.upstream.flush()


class GzipPlugin(_Flushed, postprocessing.GzipPlugin):
    """Scrapy's gzip plugin, flushed with ``Z_SYNC_FLUSH``: every byte written so far
    decompresses, the stream's end not written yet."""

    def __init__(self, file: BinaryIO, feed_options: dict[str, Any]) -> None:
        super().__init__(file, feed_options)
        self._link(file)

    def flush(self) -> None:
        self._flush_upstream()
        if not self.gzipfile.closed:  # (closed: the feed's end written)
            self.gzipfile.flush()  # zlib.Z_SYNC_FLUSH, then the file's flush


class _Restarted(_Flushed):
    """A compressor with no sync flush: flushing ends its stream, the next write starts
    another (bzip2 and xz read concatenated streams as one)."""

    def __init__(self, file: BinaryIO, feed_options: dict[str, Any]) -> None:
        super().__init__(file, feed_options)  # type: ignore[call-arg]
        self._file, self._options = file, feed_options
        self._pending = self._ended = False
        self._link(file)

    def write(self, data: bytes) -> int:
        self._pending = True
        return super().write(data)  # type: ignore[misc]

    def flush(self) -> None:
        self._flush_upstream()
        if self._pending and not self._ended:
            super().close()  # type: ignore[misc]
            self._pending = False
            super().__init__(self._file, self._options)  # type: ignore[call-arg]

    def close(self) -> None:
        self._ended = True  # the feed's end: no stream after it
        super().close()  # type: ignore[misc]


class Bz2Plugin(_Restarted, postprocessing.Bz2Plugin):
    """Scrapy's bz2 plugin, a stream ended at each flush."""


class LZMAPlugin(_Restarted, postprocessing.LZMAPlugin):
    """Scrapy's lzma plugin, a stream ended at each flush."""


#: Scrapy's plugins and the durable ones the add-on puts in their place
DURABLE_PLUGINS = {postprocessing.GzipPlugin: GzipPlugin, postprocessing.Bz2Plugin: Bz2Plugin,
                   postprocessing.LZMAPlugin: LZMAPlugin}
STORAGES = {"": f"{__name__}.DurableFileFeedStorage", "file": f"{__name__}.DurableFileFeedStorage",
            "stdout": f"{__name__}.DurableStdoutFeedStorage"}


def use_durable_feeds(settings: BaseSettings) -> None:
    """For the add-on: the durable storages, and Scrapy's plugins swapped for theirs."""
    # a project's own storage for a scheme wins; the merge keeps the priority it was set at
    priority = max(settings.getpriority("FEED_STORAGES") or 0, SETTINGS_PRIORITIES["addon"])
    settings.set("FEED_STORAGES", {**STORAGES, **settings.getdict("FEED_STORAGES")}, priority)
    feeds = settings.getdict("FEEDS")
    if not feeds:
        return
    swapped = {uri: {**options, "postprocessing": [_durable(p) for p in plugins]}
               if (plugins := (options or {}).get("postprocessing")) else options
               for uri, options in feeds.items()}
    settings.set("FEEDS", swapped, settings.getpriority("FEEDS") or 0)


def _durable(plugin: Any) -> Any:
    return DURABLE_PLUGINS.get(load_object(plugin), plugin)


_UNFLUSHABLE_SAID: set[Any] = set()  # once per plugin, not per batch


def _say_unflushable(uri: str, feed_options: dict[str, Any] | None) -> None:
    for plugin in (feed_options or {}).get("postprocessing") or ():
        if not issubclass(load_object(plugin), _Flushed) and plugin not in _UNFLUSHABLE_SAID:
            _UNFLUSHABLE_SAID.add(plugin)
            logger.warning("Feed %(uri)s: the post-processing plugin %(plugin)s cannot be "
                           "flushed before pages are acked: items it holds when the crawl "
                           "is killed are lost (crawler.feeds has durable gzip, bz2 and "
                           "lzma plugins)", {"uri": uri, "plugin": plugin})


def _regular_size(file: Any) -> int | None:
    """The size of *file* if it is a regular file (not stdout, a pipe)."""
    try:
        status = os.fstat(file.fileno())
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None
