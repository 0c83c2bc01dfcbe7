"""The node-local front of the cluster's duplicate filter."""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Self

from scrapy.dupefilters import BaseDupeFilter

from crawler.config import value

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

    from crawler.scheduler.frontier import Frontier

logger = logging.getLogger(__name__)


class BloomDupeFilter(BaseDupeFilter):
    """Fingerprints requests and remembers the most recent ones on this node.

    The authoritative seen-set is the Bloom filter in Redis, checked and set by
    the frontier atomically with queueing (see ``lua/push.lua``). This front
    cache (Mercator's URL-seen cache) drops the links every page repeats --
    navigation, board lists -- before they cost Redis anything.

    Settings: :setting:`CRAWLER_SEEN_CACHE_SIZE`, :setting:`DUPEFILTER_DEBUG`,
    :setting:`REQUEST_FINGERPRINTER_CLASS` (through ``crawler.request_fingerprinter``).
    """

    def __init__(self, crawler: Crawler, cache_size: int, debug: bool) -> None:
        self.crawler = crawler
        self.fingerprinter = crawler.request_fingerprinter
        self.cache_size = cache_size
        self.debug = debug
        self.logdupes = True
        self._recent: OrderedDict[str, None] = OrderedDict()
        self._filtered = 0  # added to the stats by update_stats (a stats call per link costs)
        # URLs the Bloom filter may have dropped by mistake: the sum, over every URL
        # it admitted, of its false-positive rate at that moment
        self.expected_false_positives = 0.0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        s = crawler.settings
        return cls(crawler, value(s, "CRAWLER_SEEN_CACHE_SIZE"), s.getbool("DUPEFILTER_DEBUG"))

    def fingerprint(self, request: Request) -> str:
        return self.fingerprinter.fingerprint(request).hex()

    def seen_recently(self, fingerprint: str) -> bool:
        """True if this node saw *fingerprint* lately; remembers it otherwise."""
        if fingerprint in self._recent:
            self._recent.move_to_end(fingerprint)
            return True
        self._recent[fingerprint] = None
        if len(self._recent) > self.cache_size:
            self._recent.popitem(last=False)
        return False

    def forget(self) -> None:
        """The cluster's Bloom filter was lost: links seen here must be pushed again."""
        self._recent.clear()

    def check(self, request: Request) -> str | None:
        """The fingerprint of *request*, or None if this node saw it lately."""
        fingerprint = self.fingerprint(request)
        if self.seen_recently(fingerprint):
            self.log(request)
            return None
        return fingerprint

    def admitted(self, count: int, false_positive_rate: float) -> None:
        """*count* new URLs passed the Bloom filter while it had this error rate."""
        self.expected_false_positives += count * false_positive_rate

    def close(self, reason: str) -> None:
        self._add_filtered()

    def request_seen(self, request: Request) -> bool:
        return self.seen_recently(self.fingerprint(request))

    def _add_filtered(self) -> None:
        if self._filtered:
            self.crawler.stats.inc_value("dupefilter/filtered", self._filtered)
            self._filtered = 0

    def update_stats(self, frontier: Frontier) -> None:
        """Local drops, and what the cluster's Bloom filter costs in lost URLs."""
        self._add_filtered()
        stats = self.crawler.stats
        stats.set_value("dupefilter/false_positive_rate", frontier.bloom.false_positive_rate())
        stats.set_value("dupefilter/expected_false_positives",
                        round(self.expected_false_positives, 3))
        stats.set_value("dupefilter/bloom_layers", len(frontier.bloom.layers))

    def log(self, request: Request, spider=None) -> None:
        self._filtered += 1
        if self.debug:
            logger.debug("Filtered duplicate request: %(request)s", {"request": request},
                         extra={"spider": self.crawler.spider})
        elif self.logdupes:
            logger.debug("Filtered duplicate request: %(request)s - no more duplicates will "
                         "be shown (see DUPEFILTER_DEBUG to show all duplicates)",
                         {"request": request}, extra={"spider": self.crawler.spider})
            self.logdupes = False
