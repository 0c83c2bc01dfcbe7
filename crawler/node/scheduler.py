"""The Scrapy scheduler of the distributed frontier: Scrapy's interface over a node.

The node's runtime and its parts are in :mod:`crawler.node.node`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from scrapy import signals as scrapy_signals
from scrapy.core.scheduler import BaseScheduler
from scrapy.exceptions import NotConfigured
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object

from crawler.frontier.cluster import UsesFrontier
from crawler.node.dupefilter import build_dupefilter
from crawler.node.node import REFUSALS, REFUSED_STAT, Node, Refused, refusal
from crawler.node.options import SchedulerOptions
from crawler.node.wakeup import is_wake_up
from crawler.ops.gc_tuning import GcTuning

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.signalmanager import SignalManager
    from scrapy.statscollectors import StatsCollector

    from crawler.node.dupefilter import BloomDupeFilter, LocalDupeFilter

__all__ = ["REFUSED_STAT", "Scheduler"]


class Scheduler(BaseScheduler, UsesFrontier):
    """A frontier shared by every node of a crawl, kept in Redis.

    Hosts belong to nodes by a consistent-hash ring over the live members; a node
    only fetches hosts it owns, one host queue at a time (highest ``Request.priority``
    first, FIFO within a priority: breadth-first per host), within a per-host
    politeness gate that holds across the cluster. A request handed to Scrapy stays
    leased in Redis until its outcome has been processed; a dead node's leases go
    back to the queues. A request that cannot be queued as JSON is kept in this
    node's memory and crawled here (``scheduler/unserializable``).

    ``dont_filter`` is Scrapy's: such requests are never deduplicated, except start
    requests. When the crawl resumes (its Bloom filter was not empty when the node
    started: a resumed run, or a node joining a running crawl), they are deduplicated
    like any other. In a fresh crawl, a start request's first copy on a node is checked
    against the cluster's filter, so nodes that start the crawl together queue it once;
    its repeats on the same node are kept, as Scrapy keeps them.

    Engine contract: ``enqueue_request`` returns False only for a request dropped
    at once (seen recently by this node, or filtered); the
    cluster-wide duplicate check happens when the request is flushed to Redis, and
    is counted under ``dupefilter/filtered``. ``next_request`` returns None when no
    owned host is due; the scheduler wakes the engine when one becomes due.
    ``has_pending_requests`` stays True until the whole cluster's frontier has
    been empty, with no leases out, for :setting:`CRAWLER_IDLE_CLOSE` seconds (a
    crawl on the embedded Redis, its only node, as soon as nothing is queued or leased).

    Settings: every ``CRAWLER_*`` setting the frontier reads
    (:class:`~crawler.node.options.SchedulerOptions`), and
    :setting:`DUPEFILTER_CLASS` (:class:`~crawler.scheduler.BloomDupeFilter`, the
    cluster's, for Scrapy's default; any other filter is used node-locally, as Scrapy
    uses it). If Redis refuses the crawl's start, the
    scheduler says so in one line, queues nothing, and the crawl ends.

    Middlewares and extensions reach the node through
    :func:`crawler.node.api.node_of`. Closing never deletes shared state.
    """

    def __init__(self, node: Node | Refused, dupefilter: BloomDupeFilter | LocalDupeFilter,
                 stats: StatsCollector, signals: SignalManager | None = None) -> None:
        self.runtime = node  # a Refused one says why the start failed, and ends the crawl
        self.df = dupefilter
        self.stats = stats
        self.signals = signals
        self.gc_tuning: GcTuning | None = None

    @property
    def node(self) -> Node | None:
        """The node's runtime (:func:`crawler.node.api.node_of`); None if Redis refused."""
        return self.runtime if isinstance(self.runtime, Node) else None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        options = SchedulerOptions.from_settings(crawler.settings)
        dupefilter = build_dupefilter(options.dupefilter, crawler)
        try:
            node: Node | Refused = Node.from_crawler(crawler, options, dupefilter)
        except REFUSALS as exc:  # Redis took the connection but refuses the crawl's state
            node = Refused(crawler.stats, refusal(exc))
        scheduler = cls(node, dupefilter, crawler.stats, crawler.signals)
        scheduler.gc_tuning = _tune_gc(crawler)  # kept: signals hold their receivers weakly
        return scheduler

    def open(self, spider: Spider) -> None:
        if self.signals is not None:
            _hold_scheduler_empty(self.signals, self)
        try:
            self.runtime.open(spider)
        except REFUSALS as exc:
            self.runtime = Refused(self.stats, refusal(exc))
            self.runtime.open(spider)

    def close(self, reason: str) -> None:
        if self.signals is not None:  # Scrapy's own send_catch_log again
            vars(self.signals).pop("send_catch_log", None)
        self.runtime.close(reason)

    def has_pending_requests(self) -> bool:
        return self.runtime.has_pending()

    def __len__(self) -> int:
        return len(self.runtime)

    def enqueue_request(self, request: Request) -> bool:
        if is_wake_up(request):  # the node ran the engine's loop (crawler.node.wakeup)
            return True
        return self.runtime.enqueue(request)

    def next_request(self) -> Request | None:
        return self.runtime.next_request()


def _tune_gc(crawler: Crawler) -> GcTuning | None:
    """The collector tuned for the crawl (:mod:`crawler.ops.gc_tuning`,
    :setting:`CRAWLER_GC_THRESHOLD`) without the add-on too: the frontier's requests, leases
    and batches are what it would scan, so it belongs to the scheduler as much as to the
    add-on's extension, which does it when it is enabled (and then this does not)."""
    if any(load_object(c) is GcTuning
           for c in build_component_list(crawler.settings.getwithbase("EXTENSIONS"))):
        return None
    try:
        return GcTuning.from_crawler(crawler)  # connects itself to spider_opened and _closed
    except NotConfigured:  # CRAWLER_GC_THRESHOLD = 0: Python's own settings
        return None


def _hold_scheduler_empty(signals: SignalManager, scheduler: Scheduler) -> None:
    """Send ``scheduler_empty`` only when the node holds no request.

    The engine sends it whenever ``next_request`` returns None, which this scheduler
    also does while requests are on their way to or from Redis, or wait for their
    host's gap: Scrapy's lazy start (wait for ``scheduler_empty``, then yield more)
    would yield too early. The engine asks again when the node wakes it."""
    send = signals.send_catch_log

    def send_catch_log(signal: object = None, **kwargs: object) -> list:
        if signal is scrapy_signals.scheduler_empty and scheduler.runtime.holds_work():
            return []
        return send(signal, **kwargs)

    signals.send_catch_log = send_catch_log
