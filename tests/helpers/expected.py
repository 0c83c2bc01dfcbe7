"""Crawling a fixture site and shaping its items for ``expected.json`` comparisons."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from crawler.demo.fixture_server import FixtureServer
from tests.helpers.crawl import CrawlResult, run_crawl
from tests.sitekit import SITES

#: Each fixture site's expected output (``<name>/expected.json``) and, for captured and lab
#: sites, its database truth (``<name>/truth.json``); the sites themselves are :data:`SITES`.
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "profiles"
#: Stands for the fixture server's random origin in expected output.
ORIGIN = "http://fixture.test"


def _manifest(name: str) -> dict[str, Any]:
    return json.loads((SITES / name / "routes.json").read_text(encoding="utf-8"))


def _sites(kind: str) -> list[str]:
    names = sorted(p.parent.name for p in SITES.glob("*/routes.json"))
    return [n for n in names if _manifest(n).get("kind", "forum") == kind]


def engines() -> list[str]:
    """Forum fixture sites (named after their engine, or after an engine's markup version)."""
    return _sites("forum")


def site_engine(site: str) -> str:
    """The engine a fixture site's pages are detected as and its items carry: the manifest's
    ``engine`` (a markup version's site: ``vbulletin3`` is ``vbulletin``), else the site's name."""
    return _manifest(site).get("engine") or site


def blog_sites() -> list[str]:
    """Blog fixture sites (crawled by the spider their manifest names)."""
    return _sites("blog")


def all_sites() -> list[str]:
    return sorted(p.parent.name for p in SITES.glob("*/routes.json"))


def crawl_fixture(
    engine: str, spider: str | None = None
) -> tuple[list[dict[str, Any]], CrawlResult, FixtureServer]:
    """Serve ``engine``'s fixture site, crawl it, return normalized sorted items."""
    site = SITES / engine
    manifest = _manifest(engine)
    args = dict(manifest.get("args") or {})
    if manifest.get("timezone"):
        args["timezone"] = manifest["timezone"]
    spider = spider or manifest.get("spider") or engine
    with FixtureServer(site) as server, tempfile.TemporaryDirectory() as tmp:
        result = run_crawl(spider, server.base_url + manifest["start"], Path(tmp) / "out.jl", args=args)
        items = normalize(result.items, server.base_url)
    return items, result, server


def normalize(items: list[dict[str, Any]], base_url: str) -> list[dict[str, Any]]:
    """Replace the server's origin by :data:`ORIGIN` and sort items by their stable id."""
    host = base_url.split("://", 1)[1]
    text = json.dumps(items, ensure_ascii=False).replace(base_url, ORIGIN).replace(host, "fixture.test")
    return sorted(json.loads(text), key=item_key)


def item_key(item: dict[str, Any]) -> tuple[str, ...]:
    return (
        item.get("item_type", ""),
        str(item.get("thread_id", "")).zfill(12),
        str(item.get("post_id", "")).zfill(12),
        item.get("url") or item.get("article_url") or "",
        str(item.get("comment_id", "")).zfill(12),
    )


def expected_path(engine: str) -> Path:
    return FIXTURES / engine / "expected.json"


def load_expected(engine: str) -> list[dict[str, Any]]:
    return json.loads(expected_path(engine).read_text(encoding="utf-8"))["items"]


def dump_expected(engine: str, items: list[dict[str, Any]]) -> str:
    return json.dumps({"engine": engine, "items": items}, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
