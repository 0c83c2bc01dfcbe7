"""Quiet crawl logs: each kind of repeated event is logged once, then counted.

:class:`QuietLogFormatter` (the project's :setting:`LOG_FORMATTER`) logs

- the first dropped item of each reason (``DropItem("duplicate")``) at INFO, with a hint, and the
  rest at DEBUG; the stats count every one under ``items/dropped/<reason>``
  (:setting:`DEFAULT_DROPITEM_LOG_LEVEL` or ``DropItem(log_level=...)`` still win when set);
- the first download error of each host (given up after retries, robots.txt unreachable, or
  failed without an errback) as one WARNING line without a traceback, and the rest of that
  host's at DEBUG (:class:`OncePerHost`, a filter on the loggers that report them); the
  frontier counts each under ``outcomes/...``.

:func:`disabled` is how our optional components say they are off: one INFO line (Scrapy logs
``NotConfigured`` reasons as WARNINGs, which reads as a fault on every ordinary run).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urlsplit

from scrapy.exceptions import NotConfigured
from scrapy.logformatter import LogFormatter

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.logformatter import LogFormatterResult
    from twisted.python.failure import Failure

logger = logging.getLogger(__name__)

__all__ = ["QuietLogFormatter", "disabled"]


def disabled(component: type | object, reason: str) -> NotConfigured:
    """Log "Disabled <component>: <reason>" at INFO; return a bare NotConfigured to raise."""
    cls = component if isinstance(component, type) else type(component)
    logger.info("Disabled %(component)s: %(reason)s",
                {"component": f"{cls.__module__}.{cls.__qualname__}", "reason": reason})
    return NotConfigured()


#: Loggers that report one failed download each, with a traceback: Scrapy's retry middleware
#: ("Gave up retrying"), the robots.txt middleware, and the scraper (a download error).
HOST_ERROR_LOGGERS = ("scrapy.downloadermiddlewares.retry", "crawler.node.robots",
                      "scrapy.core.scraper")
#: How those loggers begin a failed download's message (Scrapy 2.19's wording).
_DOWNLOAD_ERRORS = ("Error downloading", "Gave up retrying")
_HOST_DOWN = ("Cannot download from %(host)s: %(error)s (%(request)s); further download errors "
              "of this host are logged at DEBUG")


class OncePerHost(logging.Filter):
    """On :data:`HOST_ERROR_LOGGERS`: the first download error of a host becomes one WARNING
    line without a traceback; the rest of that host's go to DEBUG. Other records pass."""

    def __init__(self) -> None:
        super().__init__()
        self.hosts: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, dict) else {}
        request = args.get("request")
        failure = record.exc_info or args.get("f_exception") or args.get("reason")
        if request is None or record.levelno < logging.ERROR or failure is None or \
                not str(record.msg).startswith(_DOWNLOAD_ERRORS):
            return True  # a spider's error, say: its traceback matters
        host = urlsplit(request.url).netloc
        error = args.get("reason") or args.get("f_exception") or args.get("errmsg") or \
            (record.exc_info[1] if record.exc_info else "")
        record.exc_info = record.exc_text = None
        if host in self.hosts:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return True
        self.hosts.add(host)
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.msg = _HOST_DOWN
        record.args = {"host": host, "error": str(error).strip(), "request": request}
        return True


class QuietLogFormatter(LogFormatter):
    """See the module docstring."""

    def __init__(self, dropitem_level: Any = None) -> None:
        self.dropitem_level = dropitem_level
        self.dropped_reasons: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        host_filter = OncePerHost()  # one per crawl: this crawl's hosts
        for name in HOST_ERROR_LOGGERS:
            target = logging.getLogger(name)
            for old in [f for f in target.filters if isinstance(f, OncePerHost)]:
                target.removeFilter(old)
            target.addFilter(host_filter)
        explicit = crawler.settings.getpriority("DEFAULT_DROPITEM_LOG_LEVEL") not in (None, 0)
        return cls(crawler.settings["DEFAULT_DROPITEM_LOG_LEVEL"] if explicit else None)

    def dropped(self, item: Any, exception: BaseException, response: Response | Failure | None,
                spider: Spider) -> LogFormatterResult:
        result = super().dropped(item, exception, response, spider)
        if getattr(exception, "log_level", None) is not None or self.dropitem_level is not None:
            return result
        reason = str(exception)
        if reason in self.dropped_reasons:
            return {**result, "level": logging.DEBUG}
        self.dropped_reasons.add(reason)
        return {"level": logging.INFO,
                "msg": "Dropped an item (%(reason)s); further %(reason)s items are logged at DEBUG "
                       "and counted under items/dropped/%(reason)s",
                "args": {"reason": reason}}
