"""The bbpress engine (written by ``python -m crawler new-engine bbpress``): its
captured pages are detected as bbpress and no other engine, and a crawl of them gives
``expected.json``."""

from __future__ import annotations

from tests.helpers.captured import check_detection, check_items


def test_bbpress_pages_detected_as_bbpress_only() -> None:
    check_detection("bbpress")


def test_bbpress_crawl_gives_expected_json() -> None:
    check_items("bbpress")
