"""Items that wait for more of the site, inside the callback of the page they come from.

A post whose page shows only its day waits for the site's feeds; a comment dated ``06/01/2024``
waits for a page that tells day from month. The spider yields a :class:`Later` for them; the
spider middleware :class:`WaitingItems` passes the page's other output on, then waits, still
inside the page's callback, until the Later is :meth:`~Later.ready` (re-checked whenever
another callback ends, or :meth:`Waits.changed`) or ``CRAWLER_BLOG_WAIT`` seconds passed, and
yields its items. The page's lease is settled only then (crawler/node/middleware.py), so a node
killed meanwhile leaves the page leased and the resumed crawl reads it again: no item of an
acked page is ever only in memory. A page's unsettled lease also holds back the next batch of
its host (:mod:`crawler.node.leases`): what it waits for must come from pages read before or
with it (the feeds are asked for first), else it waits the whole ``CRAWLER_BLOG_WAIT``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import defer

from crawler.config import value

__all__ = ["Later", "Waits", "WaitingItems"]


class Later:
    """Items the page's callback gives once *ready* says so, or the wait ends (*items* reads
    what is known then; *gave_up* first, so that no page waits for the same thing again)."""

    def __init__(self, ready: Callable[[], bool], items: Callable[[], Iterable[Any]],
                 gave_up: Callable[[], None]) -> None:
        self.ready = ready
        self.items = items
        self.gave_up = gave_up


class Waits:
    """The callbacks waiting for a :class:`Later`; :meth:`changed` has them look again."""

    def __init__(self) -> None:
        self._pending: list[defer.Deferred[None]] = []

    def changed(self) -> None:
        pending, self._pending = self._pending, []
        for change in pending:
            if not change.called:  # not timed out
                change.callback(None)

    async def until(self, ready: Callable[[], bool], seconds: float) -> None:
        """Return once *ready()* or after *seconds*."""
        from twisted.internet import reactor  # the one Scrapy installed, not at import time

        deadline = time.monotonic() + seconds
        while not ready() and (left := deadline - time.monotonic()) > 0:
            change: defer.Deferred[None] = defer.Deferred()
            self._pending.append(change)
            change.addTimeout(left, reactor)
            try:
                await maybe_deferred_to_future(change)
            except defer.TimeoutError:
                return


class WaitingItems:
    """Spider middleware (next to the spider): a page's :class:`Later` outputs are waited for
    inside its callback; every page whose callback ends has the waiting ones look again."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.seconds = value(crawler.settings, "CRAWLER_BLOG_WAIT")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> WaitingItems:
        return cls(crawler)

    async def process_spider_output(self, response: Response,
                                    result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        waits: Waits = self.crawler.spider.waits  # type: ignore[union-attr]
        later: list[Later] = []
        async for output in result:
            if isinstance(output, Later):
                later.append(output)
            else:
                yield output
        waits.changed()  # this page may be what a waiting one waits for
        while later:
            each = later.pop(0)
            await waits.until(each.ready, self.seconds)
            if not each.ready():
                each.gave_up()
            for item in each.items():
                if isinstance(item, Later):  # known then, it waits for something else
                    later.append(item)
                else:
                    yield item
