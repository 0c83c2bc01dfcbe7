"""The seam between the node runtime and the rest of the crawler, and the scheduler's shape
(the package's bars, module and class sizes and import circles, are in test_structure.py)."""

from __future__ import annotations

import inspect
import re
from types import SimpleNamespace

import pytest
from scrapy.core.scheduler import BaseScheduler
from scrapy.dupefilters import BaseDupeFilter
from scrapy.settings import Settings

from crawler.node.api import NodeAPI, node_of
from crawler.node.dupefilter import BloomDupeFilter, dupefilter_class
from crawler.node.node import Node
from crawler.node.scheduler import Scheduler
from tests.helpers import ROOT

PACKAGE = ROOT / "crawler"
#: what may use the node only through NodeAPI (node_of)
CONSUMERS = [PACKAGE / "node" / "middleware.py", *sorted((PACKAGE / "incremental").glob("*.py")),
             *sorted((PACKAGE / "ops").glob("*.py")), *sorted((PACKAGE / "profiles").glob("*.py"))]


def _api() -> set[str]:
    return {name for name in vars(NodeAPI) if not name.startswith("_")}


def test_the_node_api_is_small_and_the_node_has_all_of_it() -> None:
    assert len(_api()) <= 9, _api()
    for name in _api() - {"revisits", "name"}:  # attributes of every Node
        assert callable(getattr(Node, name)), name
    assert "self.revisits = " in inspect.getsource(Node.__init__)


def test_the_scheduler_is_scrapy_s_interface_and_nothing_more() -> None:
    public = {name for name, value in vars(Scheduler).items()
              if callable(value) or isinstance(value, classmethod)} - {"__init__"}
    assert public == {"from_crawler", "open", "close", "has_pending_requests",
                      "enqueue_request", "next_request", "__len__"}
    assert issubclass(Scheduler, BaseScheduler)


def test_node_of_is_none_without_the_frontier_scheduler() -> None:
    crawler = SimpleNamespace(engine=SimpleNamespace(scheduler=object()))
    assert node_of(crawler) is None  # type: ignore[arg-type]


def test_consumers_use_only_the_node_api() -> None:
    parts = ("leases", "politeness", "exchange", "membership", "frontier", "loop", "outcomes",
             "dupefilter", "dispatch", "acks")
    reach = re.compile(r"(?<![\w.])node\.(\w+)")
    for path in CONSUMERS:
        source = path.read_text()
        assert "frontier_scheduler" not in source, path
        if "node_of" in source:
            for name in reach.findall(source):
                assert name in _api(), f"{path.name} uses node.{name}, not in NodeAPI"
            for part in parts:
                assert not re.search(rf"(?<![\w.])scheduler\.{part}\b", source), \
                    f"{path.name} reaches scheduler.{part}"


def test_dupefilter_class_is_read_as_scrapy_reads_it() -> None:
    assert dupefilter_class(Settings()) is BloomDupeFilter  # Scrapy's default stands for ours

    class Mine(BloomDupeFilter):
        pass

    assert dupefilter_class(Settings({"DUPEFILTER_CLASS": Mine})) is Mine
    # any other BaseDupeFilter is used node-locally, as Scrapy uses it (test_dropin.py)
    assert dupefilter_class(Settings({"DUPEFILTER_CLASS": "scrapy.dupefilters.BaseDupeFilter"})) \
        is BaseDupeFilter
    with pytest.raises(ValueError, match=r"^DUPEFILTER_CLASS \('collections.OrderedDict'\)"):
        dupefilter_class(Settings({"DUPEFILTER_CLASS": "collections.OrderedDict"}))
    with pytest.raises(ValueError, match="cannot be loaded"):
        dupefilter_class(Settings({"DUPEFILTER_CLASS": "nowhere.Filter"}))
