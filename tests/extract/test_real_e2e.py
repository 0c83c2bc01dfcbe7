"""End to end on the sites captured from real engine installs: replay each capture from the local
FixtureServer, crawl it with ``scrapy crawl <engine>`` and with the ``forum`` spider's detection
(``wordpress`` and ``blog`` for WordPress) through the real frontier, and score the items against
the engine's database (expected.json, from the lab's truth.json) with
scripts/score_against_truth.py's rules: every figure must be exact.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from crawler.demo.fixture_server import FixtureServer, route_key
from tests.extract.realsites import Capture, load_scorer, names
from tests.helpers.crawl import CrawlResult, run_crawl

SCORER = load_scorer()
RUNS = [(name, spider) for name in names() for spider in Capture(name).manifest["spiders"]]


def crawl(site: Path, start: str, spider: str, tmp: Path, **kwargs: Any) -> tuple[CrawlResult, FixtureServer]:
    with FixtureServer(site) as server:
        settings = kwargs.pop("settings", None)
        if callable(settings):
            settings = settings(server)
        result = run_crawl(spider, server.base_url + start, tmp / "out.jl", settings=settings, **kwargs)
    return result, server


def _unknown(server: FixtureServer) -> list[str]:
    return [t for t in server.requests if route_key(t) not in server.routes]


def _scored(items: list[dict[str, Any]], cap: Capture) -> tuple[Any, frozenset[str]]:
    """The scorecard against the truth, with the limits the engine's profile declares."""
    limits = SCORER.declared_limits(items, cap.engine)
    return SCORER.score(items, cap.expected, limits), limits


def _assert_perfect(card: Any, limits: frozenset[str] = frozenset()) -> None:
    """Every figure right; no extra or repeated post unless the profile declares repeats."""
    wrong = {f.name: f"{f.right}/{f.total} " + "; ".join(f.misses[:3]) for f in card.figures.values() if f.right != f.total}
    assert not wrong, wrong
    allowed = ("duplicate",) if "repeated_posts" in limits else ()
    extra = {k: v for k, v in card.counts.items()
             if k.startswith(("extra", "duplicate")) and not k.startswith(allowed) and v}
    assert not extra, extra


@pytest.mark.parametrize(("name", "spider"), RUNS, ids=[f"{n}-{s}" for n, s in RUNS])
def test_crawl_of_capture_matches_the_engines_database(name: str, spider: str, tmp_path: Path) -> None:
    cap = Capture(name)
    result, server = crawl(cap.folder / "site", cap.manifest["start"], spider, tmp_path)
    _assert_perfect(*_scored(result.items, cap))
    assert not _unknown(server), "requested URLs the capture does not have (dropped parameters kept?)"
    if spider == "forum":
        assert result.stats.get(f"profiles/detected/{cap.engine}") == 1
        assert "profiles/undetected" not in result.stats
    if spider == "wordpress":
        assert result.stats.get("wordpress/mode/api") == 1


def test_wordpress_html_mode_when_the_api_is_refused(tmp_path: Path) -> None:
    # A hardened site: the same pages without the REST API (404), read from the theme's HTML.
    cap = Capture("wordpress-6.1")
    site = tmp_path / "site"
    shutil.copytree(cap.folder / "site", site)
    manifest = json.loads((site / "routes.json").read_text(encoding="utf-8"))
    manifest["routes"] = {k: v for k, v in manifest["routes"].items() if not k.startswith("/wp-json/")}
    (site / "routes.json").write_text(json.dumps(manifest), encoding="utf-8")
    result, server = crawl(site, manifest["start"], "wordpress", tmp_path)
    assert result.stats.get("wordpress/mode/html") == 1
    _assert_perfect(*_scored(result.items, cap))
    assert all(t.startswith("/wp-json/") for t in _unknown(server))


@pytest.mark.parametrize("how", ["argument", "setting"])
def test_discuz_dates_keep_the_default_zone_unless_told(how: str, tmp_path: Path) -> None:
    # The captured Discuz! shows Beijing time (its default, UTC+8) and the profile assumes it
    # (test above). Told the site shows UTC, every instant moves 8 hours later, and nothing else.
    cap = Capture("discuz-x3.5")
    args = {"timezone": "UTC"} if how == "argument" else None

    def settings(server: FixtureServer) -> dict[str, str] | None:
        host = server.base_url.split("://", 1)[1]
        return {"CRAWLER_SITE_TIMEZONES": json.dumps({host: "UTC"})} if how == "setting" else None

    result, _ = crawl(cap.folder / "site", cap.manifest["start"], "discuz", tmp_path, args=args, settings=settings)
    posts = {p["post_id"]: p for p in result.items if p["item_type"] == "post"}
    truth = [p for t in cap.expected["threads"] for p in t["posts"]]
    assert len(posts) == len(truth)
    for post in truth:
        got = datetime.fromisoformat(posts[post["id"]]["created"])
        assert got.utcoffset() == timedelta(0)
        assert got - datetime.fromisoformat(post["created"]) == timedelta(hours=8)
