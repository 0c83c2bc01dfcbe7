"""Where the learned fallback (:mod:`crawler.profiles.learned`) keeps its per-host state.

Every process keeps its learners in memory (:class:`MemoryTemplateStore`), one
:class:`~crawler.learn.strategy.LearnedForum` per host. Templates are cluster state:
:class:`ClusterTemplateStore` also keeps each in the crawl's Redis (per host, as
``Template.to_json()``, through :class:`crawler.frontier.cluster.Cluster`), so every node reads
a host with the same template, and a node that takes a host over from another one (a leave, a
death, a rebalance) reads it without learning it again. A template learned anew (the theme
changed) replaces the stored one.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol
from weakref import WeakKeyDictionary

from crawler.frontier.cluster import Cluster
from crawler.learn.strategy import LearnedForum
from crawler.learn.template import Template
from crawler.redis import FAILED

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from crawler.frontier.cluster import StringHash

logger = logging.getLogger(__name__)

__all__ = ["ClusterTemplateStore", "MemoryTemplateStore", "TemplateStore", "store_for"]


class TemplateStore(Protocol):
    def load(self, host: str) -> Template | None: ...

    def save(self, host: str, template: Template) -> None: ...

    def learner(self, host: str) -> LearnedForum: ...


class MemoryTemplateStore:
    """Templates and learners of one crawler process, by host."""

    def __init__(self) -> None:
        self._templates: dict[str, Template] = {}
        self._learners: dict[str, LearnedForum] = {}
        #: The learned fallback's idle hook, connected once per crawler (signals hold it weakly).
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


class ClusterTemplateStore(MemoryTemplateStore):
    """A :class:`MemoryTemplateStore` in front of the templates in the crawl's Redis."""

    def __init__(self, templates: StringHash, stats: StatsCollector) -> None:
        super().__init__()
        self.templates = templates
        self.stats = stats

    def load(self, host: str) -> Template | None:
        found = super().load(host)
        if found is not None:
            return found
        try:
            text = self.templates.get(host)
        except FAILED as exc:  # the scheduler reports outages; learning again is the fallback
            logger.warning("Cannot read the stored template of %(host)s: %(exc)s",
                           {"host": host, "exc": exc})
            return None
        if text is None:
            return None
        try:
            template = Template.from_json(text)
        except (ValueError, KeyError, TypeError) as exc:  # an older format: learn again
            logger.info(
                "Stored template of %(host)s not used (%(exc)s)", {"host": host, "exc": exc}
            )
            return None
        self.stats.inc_value("learn/templates_loaded")
        logger.info("Read %(host)s with the template stored in Redis", {"host": host})
        super().save(host, template)
        return template

    def save(self, host: str, template: Template) -> None:
        super().save(host, template)
        try:
            self.templates.put(host, template.to_json())
        except FAILED as exc:
            logger.warning(
                "Cannot store the template of %(host)s: %(exc)s", {"host": host, "exc": exc}
            )
            return
        self.stats.inc_value("learn/templates_stored")


_STORES: WeakKeyDictionary[Crawler, MemoryTemplateStore] = WeakKeyDictionary()


def store_for(crawler: Crawler) -> MemoryTemplateStore:
    """The crawler's store: the spider builds a profile per page, the store outlives them."""
    store = _STORES.get(crawler)
    if store is None:
        store = _STORES[crawler] = _new_store(crawler)
    return store


def _new_store(crawler: Crawler) -> MemoryTemplateStore:
    """Templates in the crawl's Redis when the crawl runs on the frontier; else in memory."""
    cluster = Cluster.of(crawler)
    if cluster is None:
        return MemoryTemplateStore()
    return ClusterTemplateStore(cluster.templates, crawler.stats)
