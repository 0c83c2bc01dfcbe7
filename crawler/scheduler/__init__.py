"""The documented Scrapy entry points: ``SCHEDULER = "crawler.scheduler.Scheduler"``.

They live in :mod:`crawler.node` (the runtime and its Scrapy adapters); these names stay so
that settings written for earlier versions keep working.
"""

from crawler.node.dupefilter import BloomDupeFilter
from crawler.node.scheduler import Scheduler

__all__ = ["BloomDupeFilter", "Scheduler"]
