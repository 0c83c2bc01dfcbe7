"""The misago engine (written by ``python -m crawler new-engine misago``): its
captured pages are detected as misago and no other engine, and a crawl of them gives
``expected.json``."""

from __future__ import annotations

from tests.helpers.captured import check_detection, check_items


def test_misago_pages_detected_as_misago_only() -> None:
    check_detection("misago")


def test_misago_crawl_gives_expected_json() -> None:
    check_items("misago")
