"""The punbb engine (written by ``python -m crawler new-engine punbb``): its
captured pages are detected as punbb and no other engine, and a crawl of them gives
``expected.json``."""

from __future__ import annotations

from tests.helpers.captured import check_detection, check_items


def test_punbb_pages_detected_as_punbb_only() -> None:
    check_detection("punbb")


def test_punbb_crawl_gives_expected_json() -> None:
    check_items("punbb")
