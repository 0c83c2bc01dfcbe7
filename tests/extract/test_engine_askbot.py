"""The askbot engine (written by ``python -m crawler new-engine askbot``): its
captured pages are detected as askbot and no other engine (as none when it has no
fingerprint), and a crawl of them gives
``expected.json``."""

from __future__ import annotations

from tests.helpers.captured import check_detection, check_items


def test_askbot_pages_detected_as_askbot_only() -> None:
    check_detection("askbot")


def test_askbot_crawl_gives_expected_json() -> None:
    check_items("askbot")
