"""The distributed frontier: ``SCHEDULER = "crawler.scheduler.Scheduler"``."""

from crawler.scheduler.dupefilter import BloomDupeFilter
from crawler.scheduler.scheduler import Scheduler

__all__ = ["BloomDupeFilter", "Scheduler"]
