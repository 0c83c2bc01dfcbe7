"""The xmb engine (written by ``python -m crawler new-engine xmb``): its
captured pages are detected as xmb and no other engine, and a crawl of them gives
``expected.json``."""

from __future__ import annotations

from tests.helpers.captured import check_detection, check_items


def test_xmb_pages_detected_as_xmb_only() -> None:
    check_detection("xmb")


def test_xmb_crawl_gives_expected_json() -> None:
    check_items("xmb")
