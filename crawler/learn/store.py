"""Where the learned fallback keeps its per-host state during a crawl.

:class:`TemplateStore` is the seam for cluster state: today every crawler process keeps its own
learners in memory (:class:`MemoryTemplateStore`), one :class:`~crawler.learn.strategy.LearnedForum`
per host. A shared store (Redis, per host, ``Template.to_json()``) implements the same three
methods: ``load`` a template another node learned, ``save`` one this node learned, and
``learner`` for the host's page-by-page state.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.exceptions import DontCloseSpider

from crawler.learn.strategy import LearnedForum

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

    from crawler.learn.template import Template

logger = logging.getLogger(__name__)

__all__ = ["MemoryTemplateStore", "TemplateStore", "store_for"]


class TemplateStore(Protocol):
    def load(self, host: str) -> Template | None: ...

    def save(self, host: str, template: Template) -> None: ...

    def learner(self, host: str) -> LearnedForum: ...


class MemoryTemplateStore:
    """Templates and learners of one crawler process, by host."""

    def __init__(self) -> None:
        self._templates: dict[str, Template] = {}
        self._learners: dict[str, LearnedForum] = {}
        self.idle: object | None = None

    def load(self, host: str) -> Template | None:
        return self._templates.get(host)

    def save(self, host: str, template: Template) -> None:
        self._templates[host] = template

    def learner(self, host: str) -> LearnedForum:
        found = self._learners.get(host)
        if found is None:
            found = self._learners[host] = LearnedForum(host, self.load(host))
        return found


    def learners(self) -> list[LearnedForum]:
        return list(self._learners.values())

    def learning(self) -> list[LearnedForum]:
        """Hosts still learning (no template yet, not given up)."""
        return [x for x in self._learners.values() if x.template is None and x.failure is None]


_STORES: WeakKeyDictionary[Crawler, MemoryTemplateStore] = WeakKeyDictionary()


def store_for(crawler: Crawler) -> MemoryTemplateStore:
    """The crawler's store: the spider builds a profile per page, the store outlives them.

    The first call connects ``spider_idle``: a small site can run out of pages before the
    learner saw enough, so the learner is then told to finish with what it has."""
    store = _STORES.get(crawler)
    if store is None:
        store = _STORES[crawler] = MemoryTemplateStore()
        store.idle = _IdleFlush(crawler, store)  # signals hold receivers weakly
        crawler.signals.connect(store.idle.on_idle, signal=signals.spider_idle)
    return store


class _IdleFlush:
    def __init__(self, crawler: Crawler, store: MemoryTemplateStore) -> None:
        self.crawler = crawler
        self.store = store

    def on_idle(self, spider: Spider) -> None:
        from crawler.profiles.learned import finish_learning  # the profile module imports this one

        requests = []
        logger.debug("Idle: %(n)d hosts still learning", {"n": len(self.store.learning())})
        for learner in self.store.learning():
            requests += finish_learning(self.crawler, spider, self.store, learner)
        for request in requests:
            self.crawler.engine.crawl(request)
        if requests:
            raise DontCloseSpider
