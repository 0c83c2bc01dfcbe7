"""Where the learned fallback keeps its per-host state during a crawl.

:class:`TemplateStore` is the seam for cluster state: today every crawler process keeps its own
learners in memory (:class:`MemoryTemplateStore`), one :class:`~crawler.learn.strategy.LearnedForum`
per host. A shared store (Redis, per host, ``Template.to_json()``) implements the same three
methods: ``load`` a template another node learned, ``save`` one this node learned, and
``learner`` for the host's page-by-page state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol
from weakref import WeakKeyDictionary

from crawler.learn.strategy import LearnedForum

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from crawler.learn.template import Template

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

    def load(self, host: str) -> Template | None:
        return self._templates.get(host)

    def save(self, host: str, template: Template) -> None:
        self._templates[host] = template

    def learner(self, host: str) -> LearnedForum:
        found = self._learners.get(host)
        if found is None:
            found = self._learners[host] = LearnedForum(host, self.load(host))
        return found


_STORES: WeakKeyDictionary[Crawler, MemoryTemplateStore] = WeakKeyDictionary()


def store_for(crawler: Crawler) -> MemoryTemplateStore:
    """The crawler's store: the spider builds a profile per page, the store outlives them."""
    store = _STORES.get(crawler)
    if store is None:
        store = _STORES[crawler] = MemoryTemplateStore()
    return store
