"""What the site spiders (``forum`` and its engine spiders, ``blog``, ``wordpress``) share: their
settings, argument checks, and the site and fetch time their items carry."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from crawler.config import check_zone
from crawler.pipelines import ITEM_PIPELINES

if TYPE_CHECKING:
    from scrapy.http import Response

__all__ = ["SPIDER_SETTINGS", "check_timezone", "fetch_time", "site_domain"]

SPIDER_SETTINGS: dict[str, Any] = {
    "ITEM_PIPELINES": ITEM_PIPELINES,
    # After HttpCompressionMiddleware (590) on the way back, so it sees the decoded body;
    # attachments: no download (a redirect included) spends credits (before robots.txt).
    "DOWNLOADER_MIDDLEWARES": {"crawler.encoding.CharsetMiddleware": 580,
                               "crawler.attachments.credits.CreditsMiddleware": 90},
    # Scrapy 2.19 creates CONCURRENT_ITEMS tasks per response; 8 is plenty for forum pages.
    "CONCURRENT_ITEMS": 8,
    "FEED_EXPORT_ENCODING": "utf-8",
}


def check_timezone(timezone: str | None) -> None:
    """``-a timezone=...``: an IANA zone name, or a one-line ValueError."""
    if timezone is not None:
        check_zone("timezone", timezone)


def site_domain(url: str) -> str:
    """The host of ``url`` without port and without a leading ``www.``."""
    host = urlsplit(url).hostname or ""
    return host.removeprefix("www.")


def fetch_time(response: Response) -> str:
    """The server's Date header (the clock its relative dates were rendered against), else now."""
    header = response.headers.get(b"Date")
    if header:
        try:
            return parsedate_to_datetime(header.decode("latin-1")).astimezone(UTC).isoformat()
        except (TypeError, ValueError):
            pass
    return datetime.now(UTC).isoformat(timespec="seconds")
