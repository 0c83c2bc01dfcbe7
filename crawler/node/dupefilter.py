"""The node-local front of the cluster's duplicate filter."""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Self

from scrapy.dupefilters import BaseDupeFilter, RFPDupeFilter
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy.utils.request import RequestFingerprinter

from crawler.config import value

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

    from crawler.frontier.bloom import BloomFilter
    from crawler.frontier.frontier import Frontier

logger = logging.getLogger(__name__)


class BloomDupeFilter(BaseDupeFilter):
    """Fingerprints requests and remembers the most recent ones on this node.

    The authoritative seen-set is the Bloom filter in Redis, checked and set by
    the frontier atomically with queueing (see ``lua/refill.lua``). This front
    cache (Mercator's URL-seen cache) drops the links every page repeats --
    navigation, board lists -- before they cost Redis anything. With Scrapy's
    default fingerprinter a plain GET's fingerprint is a function of its URL, so the
    cache also keeps the exact URL strings it admitted: a repeated link is then
    dropped before it is canonicalised and hashed (the largest per-link cost).

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
        self._recent_urls: OrderedDict[str, None] = OrderedDict()
        # only the default fingerprinter is known to read nothing but method, URL and body
        self._url_keyed = type(self.fingerprinter) is RequestFingerprinter
        self._filtered = 0  # added to the stats by update_stats (a stats call per link costs)
        # URLs the Bloom filter may have dropped by mistake: the sum, over every URL
        # it admitted, of its false-positive rate at that moment
        self.expected_false_positives = 0.0
        self._rate_memo: tuple[int, int, float] | None = None  # (layers, URLs, rate)

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
        self._recent_urls.clear()

    def _keyed_by_url(self, request: Request) -> bool:
        return (self._url_keyed and request.method == "GET" and not request.body
                and not request.meta.get("verbatim_url"))

    def seen_url(self, request: Request) -> bool:
        """True if this exact URL passed :meth:`check` lately and stands for its
        fingerprint; the cheap test to run before anything else on a link."""
        url = request.url
        if url in self._recent_urls and self._keyed_by_url(request):
            self._recent_urls.move_to_end(url)
            self.log(request)
            return True
        return False

    def check(self, request: Request, url: str | None = None) -> str | None:
        """The fingerprint of *request*, or None if this node saw it lately.

        *url*: the URL the request was discovered under, if it was rewritten since
        (session ids stripped); it is what :meth:`seen_url` will be asked.
        """
        if self._keyed_by_url(request):
            self._recent_urls[url or request.url] = None
            if len(self._recent_urls) > self.cache_size:
                self._recent_urls.popitem(last=False)
        fingerprint = self.fingerprint(request)
        if self.seen_recently(fingerprint):
            self.log(request)
            return None
        return fingerprint

    def admitted(self, count: int, bloom: BloomFilter) -> None:
        """*count* new URLs passed the Bloom filter *bloom*, filled as it is now."""
        if count:
            self.expected_false_positives += count * self._false_positive_rate(bloom)

    def _false_positive_rate(self, bloom: BloomFilter) -> float:
        # The rate is a series over the block loads: recounted once the filter has
        # grown by 1/256 (or a layer), not at every flush. The rate is smooth in the
        # fill, and this sum is an estimate anyway.
        fill = (len(bloom.layers), sum(bloom.counts))
        memo = self._rate_memo
        if memo is None or memo[0] != fill[0] or fill[1] > memo[1] + memo[1] // 256:
            self._rate_memo = memo = (*fill, bloom.false_positive_rate())
        return memo[2]

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


class LocalDupeFilter:
    """Another :setting:`DUPEFILTER_CLASS` (any ``BaseDupeFilter``), used as Scrapy's
    scheduler uses it: ``request_seen`` decides, ``log`` counts, ``open``/``close``.

    It is node-local: each node keeps its own seen-set, and the cluster's Bloom filter
    is not consulted (a request it lets through is queued as dont_filter).
    """

    def __init__(self, dupefilter: BaseDupeFilter, crawler: Crawler) -> None:
        self.dupefilter = dupefilter
        self.crawler = crawler

    def open(self) -> None:
        self.dupefilter.open()

    def close(self, reason: str) -> None:
        self.dupefilter.close(reason)

    def check(self, request: Request, url: str | None = None) -> str | None:
        """None if the filter saw *request*; '' (no fingerprint for Redis) if not."""
        if self.dupefilter.request_seen(request):
            self.dupefilter.log(request, self.crawler.spider)
            return None
        return ""

    def seen_url(self, request: Request) -> bool:
        return False  # no cache in front: request_seen() is the whole test

    def forget(self) -> None:
        """Nothing to forget: the filter's seen-set is this node's own."""

    def admitted(self, count: int, bloom: BloomFilter) -> None:
        """Nothing to estimate: the Bloom filter is not used."""

    def update_stats(self, frontier: Frontier) -> None:
        """The filter counts its own drops (``log``)."""


def dupefilter_class(settings: BaseSettings) -> type[BaseDupeFilter]:
    """:setting:`DUPEFILTER_CLASS`, loaded as Scrapy's scheduler loads it.

    Scrapy's default (``RFPDupeFilter``) stands for :class:`BloomDupeFilter`, the
    cluster-wide filter; any other ``BaseDupeFilter`` is used node-locally
    (:class:`LocalDupeFilter`). Anything else: a ``ValueError`` in one line.
    """
    name = settings["DUPEFILTER_CLASS"]
    try:
        cls = load_object(name)
    except (ImportError, NameError, AttributeError, ValueError) as exc:
        raise ValueError(f"DUPEFILTER_CLASS ({name!r}) cannot be loaded: {exc}") from None
    if cls is RFPDupeFilter:
        return BloomDupeFilter
    if not (isinstance(cls, type) and issubclass(cls, BaseDupeFilter)):
        raise ValueError(f"DUPEFILTER_CLASS ({name!r}) must be a scrapy.dupefilters."
                         f"BaseDupeFilter (crawler.scheduler.BloomDupeFilter, the default, keeps "
                         f"the crawl's seen URLs in Redis for every node)")
    return cls


def build_dupefilter(cls: type[BaseDupeFilter], crawler: Crawler
                     ) -> BloomDupeFilter | LocalDupeFilter:
    """The node's filter: a :class:`BloomDupeFilter`, or another one wrapped."""
    dupefilter = build_from_crawler(cls, crawler)
    if isinstance(dupefilter, BloomDupeFilter):
        return dupefilter
    return LocalDupeFilter(dupefilter, crawler)
