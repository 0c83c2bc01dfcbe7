"""What a crawl tells while it runs and when it ends; the node's rates published for ``status``.

:class:`ProgressExtension`, every :setting:`CRAWLER_PROGRESS_INTERVAL` seconds (0: off):

- one ``Progress:`` line in the log with running totals and the rates over the interval::

    Progress: 1,204 pages (6.0 pages/s), 48 threads, 1,180 posts (29.8 items/s), 2 failures;
    frontier 5,321 queued, 3 leased (cluster); ETA ~7m10s

- when the log goes to a terminal, also a live single line at the bottom (:mod:`rich`),
  refreshed every second, with the same figures;
- at the start, one line saying what the crawl's state holds (a new crawl, a crawl resumed
  with N queued and M seen, or a crawl that already finished, which would fetch nothing new);
- at the end, a summary table: pages, items by type, failures, filtered URLs, time, rate.

The ETA is the cluster's queued requests over a smoothed fetch rate (an exponentially
weighted mean of this node's pages/s times the ring's members), shown once two intervals
have passed and while work is queued; it grows when the crawl discovers pages faster than
it fetches them. Pages, items and failures are this node's; the frontier is the cluster's.

Also stores this node's sample in the crawl's ``nodestats`` hash (one Redis command per
interval), where ``python -m crawler status`` reads per-node rates. (The node marks the
crawl finished when it closes with reason ``finished``, progress lines or not.)

:class:`LogStatsUnlessProgress` is Scrapy's LogStats ("Crawled N pages ...") for when the
progress lines are off.
"""

from __future__ import annotations

import io
import logging
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple, Self

from itemadapter import ItemAdapter
from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.extensions.logstats import LogStats
from scrapy.utils.asyncio import create_looping_call

from crawler import config
from crawler.embedded_redis import embedded_of
from crawler.frontier.cluster import Cluster
from crawler.ops.metrics import scheduler_health
from crawler.redis import FAILED, client_from_crawler, crawl_id
from crawler.state import crawl_state_dir

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: Weight of the newest interval in the smoothed fetch rate behind the ETA.
ETA_SMOOTHING = 0.3


class Sample(NamedTuple):
    t: float
    pages: int
    items: dict[str, int]
    failures: int
    queued: int | None
    leased: int | None = None
    members: int = 1

    @property
    def item_total(self) -> int:
        return sum(self.items.values())


class RateEstimate:
    """An exponentially weighted mean of a rate, fed one interval at a time."""

    def __init__(self, smoothing: float = ETA_SMOOTHING) -> None:
        self.smoothing = smoothing
        self.rate: float | None = None
        self.intervals = 0

    def add(self, rate: float) -> None:
        self.intervals += 1
        self.rate = rate if self.rate is None else \
            self.smoothing * rate + (1 - self.smoothing) * self.rate

    def eta(self, remaining: int | None) -> float | None:
        """Seconds to work off ``remaining`` at the smoothed rate; None until two intervals
        are in, with nothing remaining, or at a standstill."""
        if remaining is None or remaining <= 0 or self.intervals < 2 or not self.rate:
            return None
        return remaining / self.rate


class ProgressExtension:
    """See the module docstring."""

    def __init__(self, crawler: Crawler, interval: float, *, live: bool = False) -> None:
        self.crawler = crawler
        self.interval = interval
        self.items: Counter[str] = Counter()
        self.samples: list[Sample] = []
        self.fetch_rate = RateEstimate()
        self.started = time.monotonic()
        self.live_wanted = live
        self.live: LiveLine | None = None
        self._ticker: Any = None
        self._live_ticker: Any = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        interval = config.value(crawler.settings, "CRAWLER_PROGRESS_INTERVAL")
        if interval <= 0:
            raise NotConfigured
        live = not crawler.settings.get("LOG_FILE") and sys.stderr.isatty()
        ext = cls(crawler, interval, live=live)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(ext.item_scraped, signal=signals.item_scraped)
        return ext

    # -- signals ---------------------------------------------------------------------------

    def spider_opened(self, spider: Spider) -> None:
        self.started = time.monotonic()
        self.log_start()
        self.samples.append(self._sample())
        self._ticker = create_looping_call(self.log)
        self._ticker.start(self.interval, now=False)
        if self.live_wanted:
            self.live = LiveLine.start()
            self._live_ticker = create_looping_call(self.refresh_live)
            self._live_ticker.start(1.0, now=True)

    def item_scraped(self, item: Any) -> None:
        self.items[item_kind(item)] += 1

    def spider_closed(self, spider: Spider, reason: str) -> None:
        for ticker in (self._ticker, self._live_ticker):
            if ticker is not None and ticker.running:
                ticker.stop()
        if self.live is not None:
            self.live.stop()
            self.live = None
        logger.info("Crawl summary:\n%(table)s", {"table": self.summary(reason)},
                    extra={"crawler": self.crawler})

    # -- the start line --------------------------------------------------------------------

    def log_start(self) -> None:
        state = self._cluster_call(lambda c: c.progress_at_start())
        if state is None:
            return
        crawl, where = crawl_id(self.crawler), state_location(self.crawler)
        args = {"crawl": crawl, "where": where, **state}
        if state["finished_at"] and not state["queued"] and not state["leased"]:
            args["date"] = datetime.fromtimestamp(state["finished_at"] / 1000, UTC).strftime(
                "%Y-%m-%d %H:%M UTC")
            logger.warning(
                "Crawl %(crawl)s finished on %(date)s (%(seen)d URLs seen; state: %(where)s). "
                "This run is an incremental pass: it fetches listing pages again (forum and "
                "blog spiders; conditional GET) and only what changed or is new. To crawl afresh, "
                "delete the state or pick another -s CRAWLER_CRAWL_ID=...",
                args, extra={"crawler": self.crawler})
        elif state["seen"]:
            logger.info("Resuming crawl %(crawl)s: %(queued)d queued, %(leased)d leased, "
                        "%(seen)d seen (state: %(where)s)", args, extra={"crawler": self.crawler})
        else:
            logger.info("Starting a new crawl %(crawl)s (state: %(where)s)", args,
                        extra={"crawler": self.crawler})

    # -- every interval ----------------------------------------------------------------------

    def log(self) -> None:
        previous, sample = self.samples[-1], self._sample()
        self.samples.append(sample)
        del self.samples[:-2]
        pages_s, _ = rates(previous, sample)
        self.fetch_rate.add(pages_s * max(sample.members, 1))
        logger.info("Progress: %(line)s", {"line": self.line(previous, sample)},
                    extra={"crawler": self.crawler})
        self._publish(previous, sample)

    def line(self, previous: Sample, sample: Sample) -> str:
        pages_s, items_s = rates(previous, sample)
        parts = [f"{sample.pages:,} pages ({pages_s:.1f} pages/s)"]
        kinds = [f"{n:,} {plural(kind)}" for kind, n in by_kind(sample.items)]
        if kinds:
            kinds[-1] += f" ({items_s:.1f} items/s)"
        parts += kinds
        parts.append(f"{sample.failures:,} failure{'s' if sample.failures != 1 else ''}")
        text = ", ".join(parts)
        if sample.queued is not None:
            text += f"; frontier {sample.queued:,} queued, {sample.leased or 0:,} leased (cluster)"
        eta = self.fetch_rate.eta(sample.queued)
        if eta is not None:
            text += f"; ETA ~{duration(eta)}"
        stats = self.crawler.stats
        if listings := stats.get_value("revisit/listings"):  # a revisit pass, or watch mode
            text += (f"; revisits {listings:,} ({stats.get_value('revisit/not_modified', 0):,} "
                     f"not modified), {stats.get_value('revisit/rows/changed', 0):,} threads "
                     f"or articles changed")
        return text

    def refresh_live(self) -> None:
        if self.live is None or len(self.samples) == 0:
            return
        sample = self._sample()
        previous = self.samples[-1] if sample.t - self.samples[-1].t > 0.5 else sample
        self.live.update(f"{duration(sample.t - self.started)}  {self.line(previous, sample)}")

    # -- the end -------------------------------------------------------------------------------

    def summary(self, reason: str) -> str:
        """The end-of-crawl table, as plain text."""
        stats = self.crawler.stats
        sample = self._sample()
        elapsed = sample.t - self.started
        table = Table(show_header=False, box=None, pad_edge=False)
        table.add_column(justify="left")
        table.add_column(justify="right")
        table.add_row("finish reason", reason)
        table.add_row("time", duration(elapsed))
        table.add_row("pages fetched", f"{sample.pages:,}")
        table.add_row("pages/s", f"{sample.pages / elapsed:.1f}" if elapsed > 0 else "-")
        for kind, n in by_kind(sample.items):
            table.add_row(plural(kind), f"{n:,}")
        for key, label in (("outcomes/failed", "failures"), ("outcomes/filtered", "filtered URLs"),
                           ("items/dropped/invalid", "invalid items dropped"),
                           ("items/dropped/duplicate", "duplicate items dropped")):
            table.add_row(label, f"{stats.get_value(key, 0):,}")
        failed = {k.removeprefix("outcomes/failed/"): v for k, v in stats.get_stats().items()
                  if k.startswith("outcomes/failed/") and k.count("/") == 2}
        for error, n in sorted(failed.items(), key=lambda kv: -kv[1])[:5]:
            table.add_row(f"  {error}", f"{n:,}")
        return render_plain(table)

    # -- helpers ---------------------------------------------------------------------------------

    def _sample(self) -> Sample:
        stats = self.crawler.stats
        health = scheduler_health(self.crawler)
        # pages: URLs fetched (any status), robots.txt not counted
        pages = stats.get_value("outcomes/fetched") if health is not None else None
        if pages is None:
            pages = stats.get_value("response_received_count", 0) - \
                stats.get_value("robotstxt/response_count", 0)
        return Sample(time.monotonic(), pages,
                      dict(self.items), stats.get_value("outcomes/failed", 0),
                      None if health is None else health["cluster_queued"],
                      None if health is None else health["cluster_leased"],
                      1 if health is None else health["ring_members"])

    def _cluster_call(self, call: Any) -> Any:
        health = scheduler_health(self.crawler)
        if health is None:
            return None
        try:
            return call(Cluster(client_from_crawler(self.crawler), crawl_id(self.crawler)))
        except FAILED:  # down, or refusing writes (full): the scheduler reports those
            return None

    def _publish(self, previous: Sample, sample: Sample) -> None:
        health = scheduler_health(self.crawler)
        if health is None:
            return
        pages_s, items_s = rates(previous, sample)
        record = {"pages": sample.pages, "items": sample.item_total, "errors": sample.failures,
                  "pages_per_s": round(pages_s, 2), "items_per_s": round(items_s, 2),
                  "t": time.time()}
        self._cluster_call(lambda c: c.publish_node_stats(health["node"], record))


class LiveLine:
    """One line at the bottom of the terminal (``rich.live.Live``), with log lines printed above
    it: the root logger's handlers that write to the terminal write through the live display
    while it runs."""

    def __init__(self, live: Live, handlers: list[tuple[logging.StreamHandler, Any]]) -> None:
        self.live = live
        self.handlers = handlers

    @classmethod
    def start(cls) -> Self:
        stderr = sys.stderr
        live = Live(Text(""), console=Console(file=stderr), auto_refresh=False, transient=True,
                    redirect_stdout=False, redirect_stderr=True)
        live.start()
        moved = []
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.StreamHandler) and handler.stream is stderr:
                moved.append((handler, handler.setStream(sys.stderr)))  # rich's proxy now
        return cls(live, moved)

    def update(self, text: str) -> None:
        self.live.update(Text(text, no_wrap=True, overflow="ellipsis"), refresh=True)

    def stop(self) -> None:
        for handler, stream in self.handlers:
            handler.setStream(stream)
        self.live.stop()


class LogStatsUnlessProgress(LogStats):
    """Scrapy's LogStats, off while :class:`ProgressExtension` logs (one progress line is
    enough). Also honours :setting:`LOGSTATS_INTERVAL` as LogStats does."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if config.value(crawler.settings, "CRAWLER_PROGRESS_INTERVAL") > 0 and any(
                _is_progress(name) for name, order in
                crawler.settings.getwithbase("EXTENSIONS").items() if order is not None):
            raise NotConfigured
        return super().from_crawler(crawler)


def _is_progress(name: Any) -> bool:
    return name is ProgressExtension or name == "crawler.ops.progress.ProgressExtension"


def item_kind(item: Any) -> str:
    """``thread``, ``post``, ``article``, ``comment`` (an ``item_type`` field), ``record``
    for other items (dicts, Items, dataclasses, attrs), ``other`` for anything else a
    spider yields (Scrapy passes any object on as an item)."""
    if not ItemAdapter.is_item(item):
        return "other"
    try:
        kind = ItemAdapter(item).get("item_type")
    except (KeyError, AttributeError):  # an Item class that declares no such field
        kind = None
    return kind if isinstance(kind, str) and kind else "record"


_KIND_ORDER = {"thread": 0, "post": 1, "article": 2, "comment": 3}


def by_kind(items: dict[str, int]) -> list[tuple[str, int]]:
    """Item counts in reading order: threads, posts, articles, comments, then the rest."""
    return sorted(items.items(), key=lambda kv: (_KIND_ORDER.get(kv[0], 9), kv[0]))


def plural(kind: str) -> str:
    return kind + "s"


def state_location(crawler: Crawler) -> str:
    """Where the crawl's state lives: the embedded server's folder, or the Redis URL."""
    if not crawler.settings.get("REDIS_URL"):
        if where := embedded_of(crawler).state_dir:  # set once Redis started
            return where
        state_root = config.value(crawler.settings, "CRAWLER_STATE_DIR")
        return str(crawl_state_dir(state_root, crawl_id(crawler)))
    from crawler.redis import redact  # noqa: PLC0415

    return redact(crawler.settings.get("REDIS_URL") or "?")


def render_plain(table: Table) -> str:
    out = io.StringIO()
    Console(file=out, width=100, color_system=None, force_terminal=False).print(table)
    return out.getvalue().rstrip()


def rates(previous: Sample, sample: Sample) -> tuple[float, float]:
    elapsed = max(sample.t - previous.t, 1e-9)
    return ((sample.pages - previous.pages) / elapsed,
            (sample.item_total - previous.item_total) / elapsed)


def duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"
