"""The esotalk engine (written by ``python -m crawler new-engine esotalk``): its
captured pages are detected as esotalk and no other engine, and a crawl of them gives
``expected.json``."""

from __future__ import annotations

from tests.helpers.captured import check_detection, check_items


def test_esotalk_pages_detected_as_esotalk_only() -> None:
    check_detection("esotalk")


def test_esotalk_crawl_gives_expected_json() -> None:
    check_items("esotalk")
