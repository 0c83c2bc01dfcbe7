"""The elkarte engine (written by ``python -m crawler new-engine elkarte``): its
captured pages are detected as elkarte and no other engine, and a crawl of them gives
``expected.json``."""

from __future__ import annotations

from tests.helpers.captured import check_detection, check_items


def test_elkarte_pages_detected_as_elkarte_only() -> None:
    check_detection("elkarte")


def test_elkarte_crawl_gives_expected_json() -> None:
    check_items("elkarte")
