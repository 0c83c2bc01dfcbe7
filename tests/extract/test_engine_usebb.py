"""The usebb engine (written by ``python -m crawler new-engine usebb``): its
captured pages are detected as usebb and no other engine, and a crawl of them gives
``expected.json``."""

from __future__ import annotations

from tests.helpers.captured import check_detection, check_items


def test_usebb_pages_detected_as_usebb_only() -> None:
    check_detection("usebb")


def test_usebb_crawl_gives_expected_json() -> None:
    check_items("usebb")
