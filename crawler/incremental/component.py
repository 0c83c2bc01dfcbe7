"""What the revisit components share: the node's revisit state, and requests as kept for
revisits (encoded, with the meta their spider gave them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

from scrapy import Request

from crawler.frontier import codec
from crawler.frontier.keys import host_of
from crawler.incremental import NOT_SPIDERS, SPIDER_META
from crawler.node.api import node_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from crawler.node.revisit import Revisits


class Component:
    """A revisit component: built from the crawler, reads the node's :attr:`revisits`."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    @property
    def revisits(self) -> Revisits | None:
        node = node_of(self.crawler)
        return node.revisits if node is not None else None

    def fingerprint(self, request: Request) -> str:
        return self.crawler.request_fingerprinter.fingerprint(request).hex()

    def stored(self, request: Request, meta: dict[str, Any]) -> bytes:
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


def own_meta(request: Request) -> None:
    """Note in a listing request the meta keys its spider gave it (:data:`SPIDER_META`)."""
    if request.meta.get("revisit") is True and SPIDER_META not in request.meta:
        own = [k for k in request.meta if k not in NOT_SPIDERS and not k.startswith("_")]
        if own:
            request.meta[SPIDER_META] = own
