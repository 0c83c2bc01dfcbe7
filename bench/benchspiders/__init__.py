"""Bench-only spiders (on SPIDER_MODULES through bench/common.py's flags)."""

from __future__ import annotations

from crawler.spiders.follow import FollowSpider


class FollowRedisSpider(FollowSpider):
    """The ``follow`` spider on scrapy-redis 0.9's scheduler and fingerprint-set dupefilter.

    scrapy-redis' own ``RedisSpider`` reads its start URLs in ``start_requests()``, which
    Scrapy 2.19 no longer calls. We seed the start URLs ourselves instead: ``start()``
    (inherited) yields them, and scrapy-redis' scheduler queues them in Redis like any
    request; its dupefilter drops the copies the other processes of a multi-process run
    yield, so every process can seed. Crawl-wide settings (REDIS_URL...) come from the
    command line; the same flags as for every other configuration apply.
    """

    name = "follow_sr"
    custom_settings = {
        "ADDONS": {},  # Scrapy and scrapy-redis alone: not our add-on
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,  # the first process to finish must not delete the queue
    }
