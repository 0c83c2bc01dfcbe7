"""End to end: ``scrapy crawl blog`` on blogs built by a real generator (Pelican), no profile.

``scripts/build_blog_fixtures.py`` renders the lab WordPress' posts (its database truth: 15
posts, 3 authors, tags, categories, Chinese text, code, images) with Pelican: its default theme
(hAtom classes, no ``hentry`` root, no Open Graph, no JSON-LD), and themes marked up with
microformats 2 (h-entry), with a plain ``<article>``, and with nothing at all (the Atom feed's
full content is then the only source). Each crawl must find every article with its whole body,
its date and its author (>= 0.95 each), and equal ``expected.json``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers.evaluate import score_blog
from tests.helpers.expected import FIXTURES, ORIGIN, _sites, crawl_fixture, load_expected

SITES = _sites("learned_blog")
HOW = {"blog_pelican": "hatom", "blog_hentry": "h-entry", "blog_article": "article", "blog_feedonly": "feed"}


@pytest.fixture(scope="module", params=SITES)
def crawled(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]], Any]:
    items, result, _ = crawl_fixture(request.param)
    return request.param, items, result


def test_every_style_has_a_fixture() -> None:
    assert set(HOW) <= set(SITES)


def test_items_equal_expected_json(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, items, _ = crawled
    assert items == load_expected(site), "run scripts/update_profile_fixtures.py to see the difference"


def test_scores_against_the_posts(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, items, _ = crawled
    truth = json.loads((FIXTURES / site / "truth.json").read_text(encoding="utf-8").replace("http://fixture.invalid", ORIGIN))
    figures = score_blog(truth, items)
    for measure in ("recall", "body", "date", "author"):
        assert figures[measure] >= 0.95, f"{site}: {measure} {figures[measure]:.3f}"
    assert figures["articles_emitted"] == len(truth["posts"]), "no listing or tag page taken for an article"


def test_where_articles_came_from(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, _, result = crawled
    from_feed = result.stats.get("blog/articles_from_feed", 0)
    assert (from_feed == result.stats.get("blog/articles")) == (HOW[site] == "feed")
