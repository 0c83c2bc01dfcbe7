"""The scheduler's settings, read and checked once (see docs/settings.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy.dupefilters import BaseDupeFilter

from crawler.config import number_setting, value
from crawler.node.api import default_node_name
from crawler.node.dupefilter import BloomDupeFilter, dupefilter_class
from crawler.node.traps import TrapRules

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


@dataclass(frozen=True)
class SchedulerOptions:
    """Every setting the frontier runs with; :meth:`from_settings` validates them."""

    node: str
    weight: int
    flush_size: int
    prefetch: int
    idle_close: float
    idle_backoff_max: float
    heartbeat_interval: float
    node_timeout: float
    vnodes: int
    delay: float
    max_inflight: int
    host_batch: int
    host_limit: int
    bloom_capacity: int
    bloom_error_rate: float
    backoff_base: float
    backoff_max: float
    depth_limit: int
    steal_after: float | None
    dead_letter_after: int
    traps: TrapRules
    watch: float = 0.0
    revisit_min_interval: float = 60.0
    revisit_max_interval: float = 86400.0
    revisit_deep_passes: int = 0
    revisit_deep_days: float = 0.0
    dupefilter: type[BaseDupeFilter] = BloomDupeFilter  # DUPEFILTER_CLASS

    @classmethod
    def from_settings(cls, s: BaseSettings) -> SchedulerOptions:
        """Raises ValueError, in one line naming the setting, for a bad value.

        Unset ``CRAWLER_*`` settings take their defaults, so the scheduler runs
        without the add-on (``SCHEDULER``, ``REDIS_URL`` and ``CRAWLER_NODE_ID`` suffice).
        """
        def get(name: str) -> Any:
            return value(s, name)

        delay = get("CRAWLER_HOST_DELAY")
        depth = get("CRAWLER_DEPTH_LIMIT")
        options = cls(
            node=default_node_name(s),
            weight=get("CRAWLER_NODE_WEIGHT"),
            flush_size=get("CRAWLER_FLUSH_SIZE"),
            prefetch=get("CRAWLER_PREFETCH") or number_setting(s, "CONCURRENT_REQUESTS", 1),
            idle_close=get("CRAWLER_IDLE_CLOSE"),
            idle_backoff_max=get("CRAWLER_IDLE_BACKOFF_MAX"),
            heartbeat_interval=get("CRAWLER_HEARTBEAT_INTERVAL"),
            node_timeout=get("CRAWLER_NODE_TIMEOUT"),
            vnodes=get("CRAWLER_RING_VNODES"),
            delay=number_setting(s, "DOWNLOAD_DELAY", 0) if delay is None else delay,
            max_inflight=get("CRAWLER_HOST_MAX_INFLIGHT"),
            host_batch=get("CRAWLER_HOST_BATCH"),
            host_limit=get("CRAWLER_HOST_PAGE_LIMIT"),
            bloom_capacity=get("CRAWLER_BLOOM_CAPACITY"),
            bloom_error_rate=get("CRAWLER_BLOOM_ERROR_RATE"),
            backoff_base=get("CRAWLER_BACKOFF_BASE"),
            backoff_max=get("CRAWLER_BACKOFF_MAX"),
            depth_limit=int(number_setting(s, "DEPTH_LIMIT", 0)) if depth is None else depth,
            steal_after=get("CRAWLER_STEAL_AFTER"),
            dead_letter_after=get("CRAWLER_DEAD_LETTER_AFTER"),
            traps=TrapRules(max_url_length=int(number_setting(s, "URLLENGTH_LIMIT", 0)),
                            max_repeated_segment=get("CRAWLER_TRAP_MAX_REPEATED_SEGMENT"),
                            max_query_params=get("CRAWLER_TRAP_MAX_QUERY_PARAMS")),
            watch=get("CRAWLER_WATCH"),
            revisit_min_interval=get("CRAWLER_REVISIT_MIN_INTERVAL"),
            revisit_max_interval=get("CRAWLER_REVISIT_MAX_INTERVAL"),
            revisit_deep_passes=get("CRAWLER_REVISIT_DEEP_PASSES"),
            revisit_deep_days=get("CRAWLER_REVISIT_DEEP_DAYS"),
            dupefilter=dupefilter_class(s),
        )
        options._validate()
        return options

    def _validate(self) -> None:
        def check(ok: bool, setting: str, value: object, expected: str) -> None:
            if not ok:
                raise ValueError(f"{setting} ({value!r}) must be {expected}")

        check(self.weight >= 0, "CRAWLER_NODE_WEIGHT", self.weight, ">= 0")
        check(self.delay >= 0, "DOWNLOAD_DELAY", self.delay, ">= 0")
        check(self.max_inflight >= 1, "CRAWLER_HOST_MAX_INFLIGHT", self.max_inflight, ">= 1")
        check(self.host_limit >= 0, "CRAWLER_HOST_PAGE_LIMIT", self.host_limit,
              ">= 0 (0: no limit)")
        check(self.flush_size >= 1, "CRAWLER_FLUSH_SIZE", self.flush_size, ">= 1")
        check(self.prefetch >= 1, "CRAWLER_PREFETCH", self.prefetch, ">= 1")
        check(self.idle_close >= 0, "CRAWLER_IDLE_CLOSE", self.idle_close, ">= 0")
        check(self.heartbeat_interval > 0, "CRAWLER_HEARTBEAT_INTERVAL", self.heartbeat_interval,
              "> 0")
        check(self.node_timeout > 2 * self.heartbeat_interval, "CRAWLER_NODE_TIMEOUT",
              self.node_timeout, "more than twice CRAWLER_HEARTBEAT_INTERVAL "
              f"({self.heartbeat_interval!r}), or live nodes would be declared dead")
        check(self.backoff_base > 0, "CRAWLER_BACKOFF_BASE", self.backoff_base, "> 0")
        check(self.backoff_max >= self.backoff_base, "CRAWLER_BACKOFF_MAX", self.backoff_max,
              f"at least CRAWLER_BACKOFF_BASE ({self.backoff_base!r})")
        check(self.steal_after is None or self.steal_after >= 0, "CRAWLER_STEAL_AFTER",
              self.steal_after, ">= 0 (or None: never steal)")
        check(self.revisit_max_interval >= self.revisit_min_interval,
              "CRAWLER_REVISIT_MAX_INTERVAL", self.revisit_max_interval,
              f"at least CRAWLER_REVISIT_MIN_INTERVAL ({self.revisit_min_interval!r})")
        check(self.vnodes >= 1, "CRAWLER_RING_VNODES", self.vnodes, ">= 1")
        check(self.bloom_capacity >= 1000, "CRAWLER_BLOOM_CAPACITY", self.bloom_capacity, ">= 1000")
        check(0 < self.bloom_error_rate < 0.1, "CRAWLER_BLOOM_ERROR_RATE", self.bloom_error_rate,
              "between 0 and 0.1")
