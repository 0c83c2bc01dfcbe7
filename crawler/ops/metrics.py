"""Prometheus metrics of one node, read from its stats and its scheduler at scrape time.

Nothing is counted on the hot path: a scrape reads the Scrapy stats (which the crawl
keeps anyway) and the node's :meth:`~crawler.node.node.NodeAPI.health`, so metrics cost
nothing between scrapes and never touch Redis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector, CollectorRegistry

from crawler.node.api import node_of

if TYPE_CHECKING:
    from collections.abc import Iterator

    from prometheus_client.metrics_core import Metric
    from scrapy.crawler import Crawler

# metric name (without crawler_ and _total), stats key, help
COUNTERS = (
    ("pages", "response_received_count", "Responses received (pages crawled)."),
    ("items", "item_scraped_count", "Items scraped."),
    ("items_dropped", "item_dropped_count", "Items dropped by a pipeline."),
    ("errors", "log_count/ERROR", "Errors logged (failed requests, spider exceptions...)."),
    ("requests", "downloader/request_count", "Requests sent by the downloader."),
    ("download_exceptions", "downloader/exception_count", "Downloads that raised."),
    ("frontier_enqueued", "frontier/enqueued", "Requests the spider handed the scheduler."),
    ("frontier_queued", "frontier/queued", "Requests admitted to the shared frontier."),
    ("frontier_leased", "frontier/leased", "Requests leased from the frontier by this node."),
    ("frontier_settled", "frontier/settled", "Leases settled (outcome processed)."),
    ("frontier_hosts_moved", "frontier/hosts_moved",
     "Hosts moved by this node on ring rebalances."),
    ("frontier_reclaimed", "frontier/reclaimed", "Leases of dead nodes requeued by this node."),
    ("frontier_nodes_declared_dead", "frontier/nodes_declared_dead",
     "Nodes this node declared dead."),
    ("frontier_lease_leaked", "frontier/lease_leaked", "Leases settled by the safety net."),
    ("frontier_redis_errors", "frontier/redis_errors", "Redis operations that failed."),
    ("frontier_host_limit_filtered", "frontier/filtered/host_limit",
     "Requests over CRAWLER_HOST_PAGE_LIMIT."),
    ("frontier_robots_crawl_delays", "frontier/robots_crawl_delay",
     "robots.txt Crawl-delays larger than DOWNLOAD_DELAY applied."),
    ("frontier_politeness_waits", "frontier/politeness_waits",
     "Refills that found queued hosts but none due yet (politeness delays)."),
    ("dupefilter_filtered", "dupefilter/filtered", "Duplicate requests dropped."),
)

# metric name (without crawler_), health field, help
GAUGES = (
    ("frontier_queued", "cluster_queued", "Requests queued in the whole cluster's frontier."),
    ("frontier_leased", "cluster_leased", "Requests leased (in flight) in the whole cluster."),
    ("local_ready", "local_ready", "Leased requests waiting in this node's buffer."),
    ("local_leased", "local_leased", "Leases this node holds."),
    ("outbox", "outbox", "Discovered requests not yet pushed to Redis."),
    ("ring_members", "ring_members", "Nodes owning hosts on the ring."),
    ("ring_epoch", "ring_epoch", "Membership epoch; each change is a rebalance."),
    ("heartbeat_age_seconds", "seconds_since_heartbeat", "Time since this node's last heartbeat."),
    ("member", "member", "1 if this node owns hosts on the ring."),
    ("draining", "draining", "1 if this node is handing off its hosts."),
    ("paused", "paused", "1 if the operator paused the crawl."),
    ("redis_reachable", "redis_reachable", "1 if the last Redis operation succeeded."),
)


class CrawlerCollector(Collector):
    """Collects one crawler's metrics; registered in a registry of its own."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    def collect(self) -> Iterator[Metric]:
        stats = self.crawler.stats.get_stats()
        for name, key, text in COUNTERS:
            if key in stats:
                yield CounterMetricFamily(f"crawler_{name}", text, value=stats[key])
        yield self._responses(stats)
        engine = self.crawler.engine
        if engine is not None:
            yield GaugeMetricFamily("crawler_in_flight", "Requests in the downloader.",
                                    value=len(engine.downloader.active))
            yield GaugeMetricFamily("crawler_hosts_active", "Hosts with requests in flight.",
                                    value=sum(1 for s in engine.downloader.slots.values()
                                              if s.active))
        if "dupefilter/false_positive_rate" in stats:
            yield GaugeMetricFamily("crawler_bloom_false_positive_rate",
                                    "Chance that a new URL is taken for seen.",
                                    value=stats["dupefilter/false_positive_rate"])
        yield from self._health()

    def _responses(self, stats: dict[str, Any]) -> Metric:
        family = CounterMetricFamily("crawler_responses", "Responses by HTTP status.",
                                     labels=["status"])
        prefix = "downloader/response_status_count/"
        for key, value in sorted(stats.items()):
            if key.startswith(prefix):
                family.add_metric([key[len(prefix):]], value)
        return family

    def _health(self) -> Iterator[Metric]:
        health = scheduler_health(self.crawler)
        if health is None:
            return
        yield CounterMetricFamily("crawler_redis_round_trips", "Redis round trips of the frontier.",
                                  value=health["redis_round_trips"])
        for name, field, text in GAUGES:
            value = health.get(field)
            if value is not None:
                yield GaugeMetricFamily(f"crawler_{name}", text, value=float(value))


def scheduler_health(crawler: Crawler) -> dict[str, Any] | None:
    """The node's :meth:`~crawler.node.node.NodeAPI.health`, or None without one
    (another scheduler, or before it is built)."""
    node = node_of(crawler)
    return None if node is None else node.health()


def registry_for(crawler: Crawler) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(CrawlerCollector(crawler))
    return registry
