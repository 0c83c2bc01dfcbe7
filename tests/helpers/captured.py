"""Checks of an engine captured by ``python -m crawler new-engine``: its fixture site (kind
``engine`` in ``routes.json``) and ``expected.json``. Each engine's own test module calls them."""

from __future__ import annotations

import json

from scrapy.http import HtmlResponse

from crawler.profiles import REGISTRY
from tests.helpers.expected import SITES, crawl_fixture, load_expected


def html_pages(site: str) -> list[tuple[str, HtmlResponse]]:
    routes = json.loads((SITES / site / "routes.json").read_text(encoding="utf-8"))["routes"]
    pages = []
    for target, route in routes.items():
        if "html" in route["content_type"] and int(route.get("status", 200)) == 200:
            body = (SITES / site / route["file"]).read_bytes()
            pages.append((target, HtmlResponse(url="http://127.0.0.1" + target, body=body,
                                               encoding="utf-8")))
    return pages


def check_detection(engine: str) -> None:
    """Every captured page is detected as ``engine`` alone; by no profile when ``engine`` was
    written with no fingerprint (its markup is on another fixture site's pages too, as its
    doubts say): a crawl with ``-a profile=auto`` then reads its pages with the learner."""
    pages = html_pages(engine)
    assert pages, f"{engine}: no captured page"
    profile = REGISTRY.get(engine)
    fingerprinted = profile.markers or profile.generator_prefixes or getattr(profile, "hosts", ())
    for target, response in pages:
        matches = [p.name for p in REGISTRY.engines if p.detect(response)]
        want = [engine] if fingerprinted else []
        assert matches == want, f"{engine}{target} detected as {matches}"


def check_items(engine: str) -> None:
    items, _, _ = crawl_fixture(engine)
    expected = load_expected(engine)
    assert any(i["item_type"] == "post" for i in expected), f"{engine}: expected.json has no post"
    assert [i.get("post_id") or i["thread_id"] for i in items] == [
        i.get("post_id") or i["thread_id"] for i in expected
    ], "item set changed; rerun new-engine with --force, or scripts/update_profile_fixtures.py"
    for got, want in zip(items, expected, strict=True):
        assert got == want
