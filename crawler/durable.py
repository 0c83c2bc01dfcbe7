"""A page is settled only once its items are written: the promise a lease makes covers them.

The node sends the acks of settled pages to Redis in batches (:mod:`crawler.node.exchange`).
Right before a batch of acks leaves, :meth:`ItemDurability.make_durable` writes out every
item scraped so far, in this order:

1. the ``-o``/``FEEDS`` files: Python's buffer flushed and the file fsynced (local files;
   other storages, S3 or FTP, upload at the end of the crawl and are not covered);
2. every output registered with :meth:`crawler.node.api.NodeAPI.add_ack_barrier` (the
   Redis item stream, :class:`crawler.ops.sink.RedisStreamSink`: its buffer written);
3. then the item digests of the incremental pass (:data:`items_durable`, which
   :class:`crawler.incremental.items.RevisitPipeline` waits for) and the rest of the revisit state
   (a thread's last known page, listing rows), so the state is never behind an ack.

Only if all of it succeeded do the acks go: a SIGKILL at any moment leaves every page whose
ack Redis holds with its items in the output, and every other page leased, so the crawl,
resumed, fetches it again.

A write error on a feed (a full disk, a quota) stops the crawl at once with one line
(reason ``feed_write_failed``, exit status 4): the file is cut back to its last durable
size (no partial line), and the acks of the pages whose items were not written are never
sent, so running the same command again fetches them again.
"""

from __future__ import annotations

import logging
import os
import stat
from typing import TYPE_CHECKING, Any

from scrapy import signals

from crawler.redis import FAILED

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler

    from crawler.node.revisit import Revisits

logger = logging.getLogger(__name__)

#: Sent once every item scraped so far is in every output (feed files fsynced, the Redis
#: stream written), right before the acks of their pages leave; a receiver that returns
#: ``False`` (the web archive, unwritable) holds them.
items_durable = object()

#: Stat: a line saying which items were not written (the crawl exits non-zero with it).
ITEMS_ERROR_STAT = "items/error"
#: Stat: items scraped that reached no output (a feed that failed, a stream spilled).
NOT_WRITTEN_STAT = "items/not_written"


class ItemDurability:
    """See the module docstring. Built by the node; :meth:`make_durable` is the hook the
    exchange calls before it sends acks (``False``: keep the acks)."""

    def __init__(self, crawler: Crawler, revisits: Revisits) -> None:
        self.crawler = crawler
        self.revisits = revisits
        self.failed = False
        self._feeds: Any = None  # Scrapy's FeedExporter, if any
        self._feed_item_scraped: Any = None
        self._sizes: dict[int, int] = {}  # id(slot file) -> its size when last durable
        self._outputs: list[Callable[[], bool]] = []  # True: what it holds is durable
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)

    def spider_opened(self) -> None:
        from scrapy.extensions.feedexport import FeedExporter  # noqa: PLC0415

        extensions = getattr(getattr(self.crawler, "extensions", None), "middlewares", ())
        self._feeds = next((e for e in extensions if isinstance(e, FeedExporter)), None)
        if self._feeds is not None:
            # its writes go through us: a write error stops the crawl in one line, not a
            # traceback per item
            self._feed_item_scraped = self._feeds.item_scraped
            self.crawler.signals.disconnect(self._feed_item_scraped, signal=signals.item_scraped)
            self.crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
            self._note_new_files()

    def add_output(self, durable: Callable[[], bool]) -> None:
        """An output that must hold the items before their pages are acked: *durable*
        writes what it buffers, and says whether it holds every item now."""
        self._outputs.append(durable)

    # -- feeds -------------------------------------------------------------------------

    def _files(self) -> list[tuple[Any, Any]]:
        """(slot, file) of the feeds written to local files (or stdout) and open."""
        from scrapy.extensions.feedexport import FileFeedStorage, StdoutFeedStorage  # noqa: PLC0415

        if self._feeds is None:
            return []
        return [(slot, slot.file) for slot in self._feeds.slots if slot.file is not None
                and not getattr(slot.file, "closed", False)  # a batch being stored
                and isinstance(slot.storage, (FileFeedStorage, StdoutFeedStorage))]

    def _note_new_files(self) -> None:
        for _, file in self._files():
            if id(file) not in self._sizes and (size := _size(file)) is not None:
                self._sizes[id(file)] = size

    def item_scraped(self, item: Any, spider: Any = None) -> None:
        if self.failed:
            self.crawler.stats.inc_value(NOT_WRITTEN_STAT)
            return
        try:
            self._feed_item_scraped(item, spider)
        except OSError as exc:
            self._fail(exc)
            return
        self._note_new_files()

    def _flush_feeds(self) -> bool:
        sizes = {}
        try:
            for _, file in self._files():
                file.flush()
                fd = _fileno(file)
                if fd is not None and id(file) in self._sizes \
                        and (size := os.fstat(fd).st_size) != self._sizes[id(file)]:
                    os.fsync(fd)  # a regular file with new items
                    sizes[id(file)] = size
        except OSError as exc:
            self._fail(exc)
            return False
        self._sizes.update(sizes)  # all or nothing: these sizes hold only settled pages' items
        return True

    def _fail(self, exc: OSError) -> None:
        """A feed cannot be written: cut every feed file back to its last durable size,
        stop writing to them, keep the acks, and stop the crawl."""
        if self.failed:
            return
        self.failed = True
        uris = []
        for slot, file in self._files():
            uris.append(slot.uri)
            fd = _fileno(file)
            size = self._sizes.get(id(file))
            try:
                if fd is not None and size is not None:
                    os.ftruncate(fd, size)  # frees space: never fails for lack of it
                raw = getattr(file, "raw", None)
                if raw is not None:
                    raw.close()  # the buffer is dropped, not written at close
            except OSError:
                pass
            self._feeds.slots.remove(slot)
        reason = exc.strerror or str(exc) or type(exc).__name__
        message = (f"cannot write the items to {', '.join(uris) or 'the feed'} ({reason}): "
                   "the crawl stopped; the pages of the items not written were not marked "
                   "done, so the same command fetches them again")
        self.crawler.stats.set_value(ITEMS_ERROR_STAT, message)
        self.crawler.stats.inc_value(NOT_WRITTEN_STAT)
        logger.error("Cannot write the items to %(uris)s (%(reason)s): stopping the crawl; "
                     "the pages of the items not written are not marked done, so running "
                     "the same command again fetches them again",
                     {"uris": ", ".join(uris) or "the feed", "reason": reason})
        self._close("feed_write_failed")

    def _close(self, reason: str) -> None:
        engine = getattr(self.crawler, "engine", None)
        if engine is None or not getattr(self.crawler, "crawling", False):
            return
        from scrapy.utils.defer import deferred_from_coro  # noqa: PLC0415
        from twisted.internet import reactor  # noqa: PLC0415

        reactor.callLater(0, lambda: deferred_from_coro(engine.close_spider_async(reason=reason)))

    # -- the hook ----------------------------------------------------------------------

    def make_durable(self) -> bool:
        """Write every item scraped so far to every output, then the revisit state:
        whether the acks may go now."""
        if self.failed or not self._flush_feeds():
            return False
        if not all(durable() for durable in self._outputs):
            return False
        held = self.crawler.signals.send_catch_log(items_durable)
        if any(result is False for _, result in held):  # an output that failed (the archive)
            return False
        try:
            self.revisits.flush()  # kept for the next try if Redis fails
        except FAILED:
            return False
        return True


def _fileno(file: Any) -> int | None:
    try:
        return file.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None


def _size(file: Any) -> int | None:
    """The size of *file* if it is a regular file (not stdout, a pipe)."""
    fd = _fileno(file)
    if fd is None:
        return None
    try:
        status = os.fstat(fd)
    except OSError:
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None
