"""Every ``CRAWLER_*`` default, in one place.

The :class:`crawler.addon.ClusterAddon` applies them; ``docs/settings.md`` documents
each one (``tests/test_settings_doc.py`` keeps the two in sync).
"""

from __future__ import annotations

DEFAULTS: dict[str, object] = {
    # Identity and storage
    "CRAWLER_CRAWL_ID": None,  # None: the spider name
    "CRAWLER_NODE_ID": None,  # None: "<hostname>-<pid>"
    "CRAWLER_NODE_WEIGHT": 1,
    "CRAWLER_STATE_DIR": ".crawler-state",
    "REDIS_URL": None,  # None: embedded redis-server in CRAWLER_STATE_DIR
    "CRAWLER_REDIS_CONNECT_TIMEOUT": 10.0,
    "CRAWLER_REDIS_SOCKET_TIMEOUT": 5.0,
    # Membership
    "CRAWLER_HEARTBEAT_INTERVAL": 1.0,
    "CRAWLER_NODE_TIMEOUT": 10.0,
    "CRAWLER_RING_VNODES": 2000,
    "CRAWLER_STEAL_AFTER": 0.25,  # None: never take another node's waiting hosts
    # Politeness and host backoff
    "CRAWLER_HOST_MAX_INFLIGHT": 1,
    "CRAWLER_BACKOFF_BASE": 2.0,
    "CRAWLER_BACKOFF_HTTP_CODES": [429, 503],
    "CRAWLER_BACKOFF_MAX": 300.0,
    "CRAWLER_RETRY_AFTER_MAX": 600.0,
    # robots.txt
    "CRAWLER_ROBOTS_MAX_WAITS": 5,
    "CRAWLER_ROBOTS_TTL": 86400.0,
    # Queues and batching
    "CRAWLER_FLUSH_SIZE": 256,
    "CRAWLER_IDLE_BACKOFF_MAX": 1.0,
    "CRAWLER_IDLE_CLOSE": 5.0,
    "CRAWLER_PREFETCH": None,  # None: CONCURRENT_REQUESTS
    # Budgets and trap rules (URLLENGTH_LIMIT also applies, here)
    "CRAWLER_DEPTH_LIMIT": 0,  # set by the add-on from DEPTH_LIMIT
    "CRAWLER_HOST_PAGE_LIMIT": 0,  # 0: no limit
    "CRAWLER_TRAP_MAX_QUERY_PARAMS": 12,
    "CRAWLER_TRAP_MAX_REPEATED_SEGMENT": 3,
    # Extraction
    "CRAWLER_SITE_TIMEZONES": {},  # site -> IANA zone of its displayed dates
    "CRAWLER_TIMEZONE": None,  # None: the engine profile's default
    # Operations
    "CRAWLER_HEALTH_HOST": "0.0.0.0",
    "CRAWLER_HEALTH_PORT": None,  # None: no health/metrics server
    "CRAWLER_ITEMS_STREAM": None,  # None: on when REDIS_URL is set
    "CRAWLER_PROGRESS_INTERVAL": 30.0,
    "CRAWLER_STATS_FILE": None,  # None: no JSON dump of the final stats
    # Dedup
    "CRAWLER_BLOOM_CAPACITY": 1_000_000,
    "CRAWLER_BLOOM_ERROR_RATE": 1e-4,
    "CRAWLER_SEEN_CACHE_SIZE": 100_000,
}
