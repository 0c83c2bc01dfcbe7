"""Incremental re-crawl as Scrapy components: conditional GET, changed-row refetch, new items.

Spiders opt in through request meta (the forum and blog spiders do):

- ``meta["revisit"] = True`` on a *listing* page (forum index, board, thread list; blog
  index, feed, sitemap). :class:`RevisitDownloaderMiddleware` keeps it for revisits with
  its validators, sends ``If-None-Match`` / ``If-Modified-Since`` when it comes back, and
  a ``304`` (or a ``200`` with the same body) is not parsed: stats
  ``revisit/not_modified``, ``revisit/unchanged``, ``revisit/changed``.
- ``meta["revisit_row"] = [key, digest]`` on a request a listing links to (a thread, an
  article), *digest* summing up what the listing says about it (reply count, last post;
  ``lastmod``). On a revisit pass :class:`RevisitSpiderMiddleware` lets a new key through,
  and a changed one is fetched again from its last known page (``dont_filter``); an
  unchanged one goes on to the frontier, whose Bloom filter drops it as seen. A change is
  settled only when its fetch succeeds: a row's request that failed (an error status or a
  download error) is kept as a revisit, due in the next pass (watch mode: after its
  interval), until it is read (a 200 whose callback ran).
- A listing request can carry a ``revisit_row`` too (a board on the forum index, with its
  row: topics, posts, last post). It is then not revisited on every pass, only when the
  listing linking to it says something new of it, as for a thread.
- ``meta["revisit_key"] = key`` on every page of that item: the last one fetched is its
  last known page.

:class:`RevisitPipeline` emits on a revisit pass only new items and edited ones (their
digest changed), the latter as dicts with a ``revision`` field (docs/items.md).

All state is kept by :class:`crawler.node.revisit.Revisits` (the frontier's Redis),
the node's revisit state (:func:`crawler.node.node.node_of`); without the frontier
scheduler these components do nothing.
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urlsplit

from itemadapter import ItemAdapter
from scrapy import Request, signals
from scrapy.exceptions import DropItem

from crawler.durable import items_durable
from crawler.frontier import codec
from crawler.frontier.keys import host_of
from crawler.node.api import node_of
from crawler.node.revisit import digest, next_interval

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from crawler.node.revisit import Revisits

logger = logging.getLogger(__name__)

#: Item fields that change without the item being edited (counters, fetch time).
VOLATILE = frozenset({"crawled_at", "reply_count", "view_count", "last_post_at",
                      "last_post_at_raw", "comment_count", "revision"})

#: Markup some engines write anew on every view: Discuz! gives each code block and image a
#: random id (``code_eoS``, ``aimg_Q6jZR``) and names it in the copy button's handler. Left
#: out of an item's digest, or every view of such a post would look like an edit.
_PER_VIEW = re.compile(r'\s(?:id|onclick)="[^"]*"')


def item_digest(item: dict[str, Any]) -> bytes:
    """What tells an edited item from the same one seen again: its fields but the
    :data:`VOLATILE` ones, its HTML without per-view markup."""
    data = {k: _PER_VIEW.sub("", v) if k == "body_html" and isinstance(v, str) else v
            for k, v in item.items() if k not in VOLATILE}
    return digest(json.dumps(data, sort_keys=True, ensure_ascii=False, default=str))


#: The meta of a listing request: revisited with conditional GET.
LISTING: dict[str, Any] = {"revisit": True}

#: Meta key of a listing request: the names of the meta keys its spider gave it, kept
#: with its revisits (a callback that reads ``response.meta["home"]`` finds it again).
SPIDER_META = "revisit_meta"
#: Meta key of a row's request that failed: kept as a revisit until it is read.
FAILED_ROW = "revisit_failed"
#: Meta keys set on the way out by other components, not by the spider.
_NOT_SPIDERS = frozenset({"revisit", "revisit_row", "revisit_key", "revisit_unchanged",
                          FAILED_ROW, SPIDER_META, "depth", "handle_httpstatus_list"})


def row_meta(key: str, said: str | None) -> dict[str, Any]:
    """The meta of a request a listing links to, from what the listing says of it (*said*:
    its row, dates, comment count): on a revisit it is fetched again when that changed."""
    if not said:
        return {}
    return {"revisit_row": [key, digest(said).hex()]}


#: A pending item digest: host, field, value, bucket (:meth:`Revisits.set`).
_Write = tuple[str, bytes, bytes, bytes]

#: Items whose id is their parent's plus their own (a post of a thread, a comment of an article).
_CHILDREN = ("post", "comment")


class _Component:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    @property
    def revisits(self) -> Revisits | None:
        node = node_of(self.crawler)
        return node.revisits if node is not None else None

    def _stored(self, request: Request, meta: dict[str, Any]) -> bytes:
        """*request* as kept for a revisit: plain, ``dont_filter``, with *meta* plus the
        meta its spider gave it (:data:`SPIDER_META`; the callback reads it when the
        revisit comes back, as on the first fetch). Without the spider's meta if that
        does not encode."""
        own = request.meta.get(SPIDER_META)
        if own:
            mine = {k: request.meta[k] for k in own if k in request.meta}
            try:
                return self._encode(request, {**mine, SPIDER_META: own, **meta})
            except codec.EncodeError:
                pass
        return self._encode(request, meta)

    def _encode(self, request: Request, meta: dict[str, Any]) -> bytes:
        plain = Request(request.url, callback=request.callback, errback=request.errback,
                        cb_kwargs=request.cb_kwargs, priority=request.priority,
                        dont_filter=True, meta=meta)
        return codec.encode(plain, self.crawler.spider, host_of(request))


def _own_meta(request: Request) -> None:
    """Note in a listing request the meta keys its spider gave it (:data:`SPIDER_META`)."""
    if request.meta.get("revisit") is True and SPIDER_META not in request.meta:
        own = [k for k in request.meta if k not in _NOT_SPIDERS and not k.startswith("_")]
        if own:
            request.meta[SPIDER_META] = own


class RevisitDownloaderMiddleware(_Component):
    """Conditional GET for listing pages, and their revisit schedule."""

    def process_request(self, request: Request, spider: Any = None) -> None:
        info = request.meta.get("revisit")
        if isinstance(info, dict):
            if info.get("etag"):
                request.headers.setdefault(b"If-None-Match", info["etag"])
            if info.get("modified"):
                request.headers.setdefault(b"If-Modified-Since", info["modified"])

    def process_response(self, request: Request, response: Response,
                         spider: Any = None) -> Response:
        revisits = self.revisits
        if revisits is None:
            return response
        if response.status != 200 and "revisit_row" in request.meta:
            self._read_again(request)
            return response
        if not request.meta.get("revisit"):
            if revisits.listed:  # a page this run took for a listing, now read as a thread
                fingerprint = self.crawler.request_fingerprinter.fingerprint(request).hex()
                if fingerprint in revisits.listed:
                    revisits.unschedule(host_of(request), fingerprint)
            return response
        if response.status not in (200, 304) or "revisit_row" in request.meta:
            # a board a listing links to: read again in full when its row there changes
            # (RevisitSpiderMiddleware), not on every pass; in full, because its later
            # pages can change when it does not, and only its parse leads to them
            return response
        info = request.meta["revisit"] if isinstance(request.meta["revisit"], dict) else {}
        again = "interval" in info  # a revisit, not the first fetch
        if response.status == 304:
            changed, body = False, info.get("digest")
            revisits.count("revisit/not_modified")
        else:
            body = digest(response.body).hex()
            changed = body != info.get("digest")
            if again:
                revisits.count("revisit/changed" if changed else "revisit/unchanged")
        if again:
            revisits.count("revisit/listings")
            interval = next_interval(info["interval"], changed, revisits.min_interval,
                                     revisits.max_interval)
            if not changed:  # nothing new to read: the spider skips it
                request.meta["revisit_unchanged"] = True
        else:
            interval = revisits.first_interval
        kept = {"digest": body, "interval": round(interval, 1)}
        for name, header in (("etag", b"ETag"), ("modified", b"Last-Modified")):
            # a 304 may leave out what did not change: keep the validators sent
            value = response.headers.get(header)
            value = value.decode("latin-1") if value else \
                info.get(name) if response.status == 304 else None
            if value:
                kept[name] = value
        meta = {"revisit": kept, "handle_httpstatus_list": [304]}
        try:
            payload = self._stored(request, meta)
        except codec.EncodeError:
            revisits.count("revisit/unencodable")
            return response
        fingerprint = self.crawler.request_fingerprinter.fingerprint(request).hex()
        revisits.schedule(host_of(request), fingerprint, payload,
                          revisits.now_ms(), interval)
        return response

    def process_exception(self, request: Request, exception: Exception,
                          spider: Any = None) -> None:
        if "revisit_row" in request.meta and self.revisits is not None:
            self._read_again(request)

    def _read_again(self, request: Request) -> None:
        """A row's request that failed (an error status, a download error; perhaps retried
        later in this run): kept as a revisit, due in the next pass, until it is read."""
        revisits = self.revisits
        request.meta[FAILED_ROW] = True
        try:
            payload = self._stored(request, {k: request.meta[k] for k in (
                "revisit_row", "revisit_key", FAILED_ROW) if k in request.meta})
        except codec.EncodeError:
            revisits.count("revisit/unencodable")
            return
        fingerprint = self.crawler.request_fingerprinter.fingerprint(request).hex()
        revisits.schedule(host_of(request), fingerprint, payload, revisits.now_ms(),
                          revisits.first_interval)
        revisits.count("revisit/rows/failed")


class RevisitSpiderMiddleware(_Component):
    """Skips unchanged listings, refetches changed items from their last known page, and
    records each item's last page."""

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any],
                                    spider: Any = None):
        revisits = self.revisits
        if revisits is None:
            async for out in result:
                yield out
            return
        if response.meta.get("revisit_unchanged"):
            return  # 304 or the same body: the callback never runs
        request = response.request
        result = _noting_own_meta(result)
        if (key := response.meta.get("revisit_key")) and response.status == 200:
            try:
                revisits.set(host_of(request), "l" + key,
                             self._stored(request, {"revisit_key": key}))
            except codec.EncodeError:
                revisits.count("revisit/unencodable")
        if not request.meta.get("revisit"):
            async for out in result:
                yield out
        else:
            outputs = [out async for out in result]
            for out in self._rows(revisits, outputs):
                yield out
        if response.meta.get(FAILED_ROW) and response.status == 200:
            # read at last (its callback ran through): no longer kept as a revisit
            fingerprint = self.crawler.request_fingerprinter.fingerprint(request).hex()
            revisits.unschedule(host_of(request), fingerprint)

    async def process_start(self, start: AsyncIterator[Any]):
        async for out in start:
            if isinstance(out, Request):
                _own_meta(out)
            yield out

    def _rows(self, revisits: Revisits, outputs: list[Any]) -> list[Any]:
        rows = [(i, out) for i, out in enumerate(outputs)
                if isinstance(out, Request) and "revisit_row" in out.meta]
        if not rows:
            return outputs
        if revisits.reading:
            by_host: dict[str, list[int]] = {}
            for n, (_, out) in enumerate(rows):
                by_host.setdefault(host_of(out), []).append(n)
            stored: list[tuple[bytes | None, bytes | None]] = [(None, None)] * len(rows)
            for host, ns in by_host.items():
                keys = [rows[n][1].meta["revisit_row"][0] for n in ns]
                values = revisits.get(host, [f"{p}{k}" for k in keys for p in "rl"])
                for j, n in enumerate(ns):
                    stored[n] = (values[2 * j], values[2 * j + 1])
            for n, (i, out) in enumerate(rows):
                outputs[i] = self._compare(revisits, out, *stored[n])
        for _, out in rows:
            key, row = out.meta["revisit_row"]
            revisits.set(host_of(out), "r" + key, bytes.fromhex(row))
        return outputs

    def _compare(self, revisits: Revisits, request: Request, row: bytes | None,
                 last: bytes | None) -> Request:
        key, now = request.meta["revisit_row"]
        if row is None:
            revisits.count("revisit/rows/new")
            return request
        if row.hex() == now:
            revisits.count("revisit/rows/unchanged")
            return request  # dropped by the Bloom filter, as seen
        revisits.count("revisit/rows/changed")
        if last is None:
            return request.replace(dont_filter=True)
        resume = codec.decode(last, self.crawler.spider, host_of(request))
        # what the listing says now (the row) replaces what it said then
        cb_kwargs = {**resume.cb_kwargs, **{k: v for k, v in request.cb_kwargs.items()
                                             if k in resume.cb_kwargs and k != "cursor"}}
        return resume.replace(cb_kwargs=cb_kwargs, meta={**resume.meta, **request.meta})


async def _noting_own_meta(result: AsyncIterator[Any]) -> AsyncIterator[Any]:
    async for out in result:
        if isinstance(out, Request):
            _own_meta(out)
        yield out


class RevisitPipeline(_Component):
    """On a revisit pass, drops items seen before unchanged (``items/dropped/unchanged``);
    an edited one is emitted as a dict with ``revision`` (1, 2, ...). Every item's digest
    is kept, so the next pass can tell.

    A digest is kept only once its item is written, so a crash never loses an item (at
    worst the next pass emits it again): it waits for Scrapy's ``item_scraped`` (after
    every pipeline and the feed exporter), then for the item to be durable in every
    output (:data:`crawler.durable.items_durable`: the feed files fsynced, the Redis
    item stream written), which comes right before the acks of its page. Then it joins
    the revisit state, written before those acks.
    """

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self._unscraped: dict[int, _Write] = {}  # id(item) -> its digest, until scraped
        self._unwritten: list[_Write] = []  # scraped, until every output has them

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        pipeline = cls(crawler)
        connect = crawler.signals.connect
        connect(pipeline.item_scraped, signal=signals.item_scraped)
        connect(pipeline.item_lost, signal=signals.item_dropped)
        connect(pipeline.item_lost, signal=signals.item_error)
        connect(pipeline.items_durable, signal=items_durable)
        return pipeline

    def open_spider(self) -> None:
        """Nothing to open: the state is the node's (see :attr:`revisits`)."""

    def process_item(self, item: Any) -> Any:
        revisits = self.revisits
        if revisits is None or not hasattr(item, "key"):
            return item
        adapter = ItemAdapter(item)
        now = item_digest(adapter.asdict())
        host = (urlsplit(adapter.get("url") or adapter.get("article_url") or "").netloc
                or "-").lower()
        key = item.key()
        field = digest("\x1f".join(key))
        # one small hash per thread or article (its items are read together)
        bucket = digest("\x1f".join(key[1:-1] if key[0] in _CHILDREN else key[1:]))
        revision = 0
        if revisits.reading:
            (stored,) = revisits.get(host, [field], bucket)
            if stored is None:
                revisits.count("revisit/items/new")
            elif stored[:8] == now:
                revisits.count("items/dropped/unchanged")
                raise DropItem("unchanged", log_level="DEBUG")
            else:
                revision = int(stored[8:] or 0) + 1
                revisits.count("revisit/items/edited")
        out = {**adapter.asdict(), "revision": revision} if revision else item
        self._unscraped[id(out)] = \
            (host, field, now + (str(revision).encode() if revision else b""), bucket)
        return out

    def item_scraped(self, item: Any) -> None:
        write = self._unscraped.pop(id(item), None)
        if write is not None:
            self._unwritten.append(write)  # in the outputs' buffers, not yet durable

    def item_lost(self, item: Any) -> None:
        self._unscraped.pop(id(item), None)  # not output: the next pass emits it again

    def items_durable(self) -> None:
        # every scraped item is in every output now
        writes, self._unwritten = self._unwritten, []
        if (revisits := self.revisits) is not None:
            for write in writes:
                revisits.set(*write)
