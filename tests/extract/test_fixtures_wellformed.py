"""The fixture sites and their expected.json files themselves (fundus-style checks)."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from crawler.items import REQUIRED, Article, Comment, Post, Thread
from tests.helpers.expected import (
    FIXTURES,
    SITES,
    all_sites,
    dump_expected,
    engines,
    item_key,
    load_expected,
    site_engine,
)

TYPES = {"thread": Thread, "post": Post, "article": Article, "comment": Comment}
HINT = "regenerate with: python scripts/update_profile_fixtures.py --overwrite-json {engine}"


@pytest.mark.parametrize("engine", all_sites())
def test_expected_json_is_canonical(engine: str) -> None:
    path = FIXTURES / engine / "expected.json"
    assert path.exists(), HINT.format(engine=engine)
    items = load_expected(engine)
    assert path.read_text(encoding="utf-8") == dump_expected(engine, items), (
        "not sorted/canonical; " + HINT.format(engine=engine)
    )
    assert items == sorted(items, key=item_key)


@pytest.mark.parametrize("engine", all_sites())
def test_expected_items_have_known_keys_and_required_values(engine: str) -> None:
    for item in load_expected(engine):
        cls = TYPES[item["item_type"]]
        assert set(item) == {f.name for f in fields(cls)}, f"unknown or missing keys in {item.get('url')}"
        for name in REQUIRED[cls]:
            assert item[name] not in (None, "", []), f"{name} empty in {item.get('url')}"
        if engine in engines():
            assert item["engine"] == site_engine(engine)
        assert item.get("created") or item.get("published"), f"no date for {item.get('url')}"


@pytest.mark.parametrize("engine", all_sites())
def test_routes_point_at_existing_files(engine: str) -> None:
    site = SITES / engine
    manifest = json.loads((site / "routes.json").read_text(encoding="utf-8"))
    assert manifest["start"] in manifest["routes"]
    for target, route in manifest["routes"].items():
        assert (site / route["file"]).is_file(), target
