"""Items on a revisit: only new and edited ones are emitted; each item's digest is kept
once the item is written."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urlsplit

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.exceptions import DropItem

from crawler.durable import items_durable
from crawler.incremental.component import Component
from crawler.node.revisit import digest

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

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


#: A pending item digest: host, field, value, bucket (:meth:`Revisits.set`).
_Write = tuple[str, bytes, bytes, bytes]

#: Items whose id is their parent's plus their own (a post of a thread, a comment of an article).
_CHILDREN = ("post", "comment")


class RevisitPipeline(Component):
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
