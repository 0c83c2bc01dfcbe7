"""Item pipelines: validate, drop duplicates, normalize dates, clean text.

All use the spider-less Scrapy 2.19 signatures (``process_item(self, item)``) and read items
through :class:`~itemadapter.ItemAdapter`. Output is left to Scrapy's feed exports
(``-O out.jl`` / the ``FEEDS`` setting); there is no writer here.

Settings read:

* ``CRAWLER_TIMEZONE``: IANA zone for dates without an offset on every site (unset = the engine
  profile's default, else UTC);
* ``CRAWLER_SITE_TIMEZONES``: ``{host: zone}`` overrides per site.

The forum spiders' ``-a timezone=`` argument sits between the two.

Stats: ``items/invalid/<type>``, ``items/dropped/<reason>``, ``items/dates/unparsed``.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Self

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.exceptions import DropItem

from crawler import config
from crawler.dates import normalize_date
from crawler.items import REQUIRED
from crawler.profiles import get_profile
from crawler.profiles._utils import html_to_text

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

__all__ = ["DedupPipeline", "NormalizeDatesPipeline", "TextCleanupPipeline", "ValidatePipeline"]

#: raw field -> normalized field, for every item type that has them.
DATE_FIELDS = {
    "created_raw": "created",
    "last_post_at_raw": "last_post_at",
    "published_raw": "published",
    "updated_raw": "updated",
}


def _item_url(adapter: ItemAdapter) -> str | None:
    return adapter.get("url") or adapter.get("article_url")


class ValidatePipeline:
    """Drop items whose required fields (:data:`crawler.items.REQUIRED`) are empty.

    Each reason (item type and the fields it misses) is logged once, at WARNING, with the first
    URL it happened at; every drop is counted (``items/invalid/<type>`` and
    ``items/invalid/<type>/<fields>``). A broken selector makes every item of a site invalid:
    that is one line, not one per item. The close of the crawl sums the reasons up.
    """

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats
        self.reasons: dict[str, int] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        pipeline = cls(crawler.stats)
        crawler.signals.connect(pipeline.close_spider, signal=signals.spider_closed)
        return pipeline

    def process_item(self, item: Any) -> Any:
        required = REQUIRED.get(type(item), ())
        adapter = ItemAdapter(item)
        missing = [name for name in required if adapter.get(name) in (None, "", [])]
        if not missing:
            return item
        kind = type(item).__name__.lower()
        reason = f"{kind}/{'+'.join(missing)}"
        self.stats.inc_value(f"items/invalid/{kind}")
        self.stats.inc_value(f"items/invalid/{reason}")
        self.stats.inc_value("items/dropped/invalid")
        if reason not in self.reasons:
            logger.warning(
                "Invalid %(kind)s from %(url)s: missing %(missing)s (further %(kind)s items"
                " missing this are counted in items/invalid/%(reason)s, not logged)",
                {
                    "kind": kind,
                    "url": _item_url(adapter),
                    "missing": ", ".join(missing),
                    "reason": reason,
                },
            )
        self.reasons[reason] = self.reasons.get(reason, 0) + 1
        raise DropItem(f"invalid: missing {', '.join(missing)}", log_level="DEBUG")

    def close_spider(self, spider: Any = None) -> None:
        if self.reasons:
            logger.info(
                "Invalid items dropped: %(summary)s",
                {
                    "summary": ", ".join(
                        f"{n} {reason}" for reason, n in sorted(self.reasons.items())
                    )
                },
            )


class DedupPipeline:
    """Drop an item whose stable id (``item.key()``) was already seen by this process.

    The seen-set lives in memory as 64-bit digests of the ids (a collision among a billion
    items has a probability of about 3%; among ten million, 3e-6). Across a cluster the
    scheduler's URL dedup keeps repeats rare.
    """

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats
        self.seen: set[int] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler.stats)

    def process_item(self, item: Any) -> Any:
        if not hasattr(item, "key"):
            return item
        key = _digest(item.key())
        if key in self.seen:
            self.stats.inc_value("items/dropped/duplicate")
            raise DropItem("duplicate", log_level="DEBUG")
        self.seen.add(key)
        return item


def _digest(key: tuple[str, ...]) -> int:
    data = "\x1f".join(key).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


class NormalizeDatesPipeline:
    """Fill ``created``/``published``/… from the ``*_raw`` fields, relative to ``crawled_at``."""

    def __init__(
        self,
        crawler: Crawler,
        stats: StatsCollector,
        timezone: str | None,
        site_timezones: dict[str, str],
    ) -> None:
        self.crawler = crawler
        self.stats = stats
        self.timezone = timezone
        self.site_timezones = site_timezones

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        return cls(
            crawler,
            crawler.stats,
            config.value(settings, "CRAWLER_TIMEZONE"),
            config.value(settings, "CRAWLER_SITE_TIMEZONES"),
        )

    def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        base = _parse_base(adapter.get("crawled_at"))
        profile = get_profile(adapter.get("engine") or adapter.get("platform") or "")
        tz = self._timezone(adapter.get("site"), profile.timezone if profile else None)
        for raw_name, name in DATE_FIELDS.items():
            if raw_name not in adapter.field_names() or not adapter.get(raw_name):
                continue
            value = normalize_date(
                adapter[raw_name],
                base=base,
                tz=tz,
                languages=profile.languages if profile else None,
                date_order=profile.date_order if profile else None,
            )
            if value is None:
                self.stats.inc_value("items/dates/unparsed")
            adapter[name] = value
        return item

    def _timezone(self, site: str | None, profile_tz: str | None) -> str:
        """Most specific first: per-site setting, spider argument, global setting, engine."""
        if site and site in self.site_timezones:
            return self.site_timezones[site]
        spider_tz = getattr(self.crawler.spider, "site_timezone", None)
        return spider_tz or self.timezone or profile_tz or "UTC"


def _parse_base(crawled_at: str | None) -> datetime:
    if crawled_at:
        try:
            return datetime.fromisoformat(crawled_at)
        except ValueError:
            pass
    return datetime.now(UTC)


class TextCleanupPipeline:
    """Compute ``body_text`` from ``body_html`` without quotes, signatures and scripts."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls()

    def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "body_html" not in adapter.field_names() or not adapter.get("body_html"):
            return item
        profile = get_profile(adapter.get("engine") or "")
        strip = profile.text_strip if profile else ()
        adapter["body_text"] = html_to_text(adapter["body_html"], strip)
        return item


#: What the forum and blog spiders put in ``custom_settings["ITEM_PIPELINES"]``.
ITEM_PIPELINES = {
    "crawler.pipelines.ValidatePipeline": 100,
    "crawler.pipelines.DedupPipeline": 200,
    "crawler.pipelines.NormalizeDatesPipeline": 300,
    "crawler.pipelines.TextCleanupPipeline": 400,
    # off unless FILES_STORE; before the incremental pass's digests (450) see the item
    "crawler.attachments.pipeline.AttachmentsPipeline": 420,
}
