"""The garbage collector tuned while a spider is open, and put back when it closes."""

from __future__ import annotations

import gc

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from crawler.ops.gc_tuning import GcTuning


@pytest.fixture
def collector():
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


def test_young_collections_are_spaced_and_startup_objects_frozen_while_open(collector) -> None:
    before = gc.get_threshold()
    crawler = get_crawler(settings_dict={"CRAWLER_GC_THRESHOLD": 12_345})
    crawler.stats.open_spider()
    tuning = GcTuning.from_crawler(crawler)
    tuning.spider_opened()
    assert gc.get_threshold() == (12_345, *before[1:])
    assert gc.get_freeze_count() > 0
    assert crawler.stats.get_value("gc/frozen_objects") == gc.get_freeze_count()
    tuning.spider_closed()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_zero_leaves_pythons_collector_alone(collector) -> None:
    with pytest.raises(NotConfigured):
        GcTuning.from_crawler(get_crawler(settings_dict={"CRAWLER_GC_THRESHOLD": 0}))


def test_the_scheduler_tunes_the_collector_unless_the_addon_s_extension_does() -> None:
    from crawler.node.scheduler import _tune_gc  # noqa: PLC0415

    assert isinstance(_tune_gc(get_crawler()), GcTuning)  # SCHEDULER alone
    with_extension = {"EXTENSIONS": {"crawler.ops.gc_tuning.GcTuning": 500}}
    assert _tune_gc(get_crawler(settings_dict=with_extension)) is None
    assert _tune_gc(get_crawler(settings_dict={"CRAWLER_GC_THRESHOLD": 0})) is None
