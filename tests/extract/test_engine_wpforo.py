"""The wpforo engine (written by ``python -m crawler new-engine wpforo``): its
captured pages are detected as wpforo and no other engine, and a crawl of them gives
``expected.json``."""

from __future__ import annotations

from tests.helpers.captured import check_detection, check_items


def test_wpforo_pages_detected_as_wpforo_only() -> None:
    check_detection("wpforo")


def test_wpforo_crawl_gives_expected_json() -> None:
    check_items("wpforo")
