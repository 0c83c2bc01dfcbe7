"""The ``forum`` spider on engines without a profile (IPS, FluxBB): the learned-template fallback
reads them (:mod:`crawler.learn`), ahead of the generic reader.

Recall is measured against the content model the sites were rendered from: a post counts as
found when an extracted post has its author and its first paragraph in ``body_text``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from tests.extract.sitegen.content import build
from tests.helpers.expected import _sites, crawl_fixture, load_expected

GENERIC = _sites("generic")
STRATEGY = {"generic_ips": "html", "generic_fluxbb": "html"}


@pytest.fixture(scope="module", params=GENERIC)
def crawled(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]], Any]:
    items, result, _ = crawl_fixture(request.param)
    return request.param, items, result


def test_both_kinds_of_fixture_exist() -> None:
    assert set(STRATEGY) <= set(GENERIC)


def test_fallback_used_and_reported(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, _, result = crawled
    assert result.stats.get("profiles/undetected") == 1
    assert result.stats.get("profiles/fallback/learned") == 1
    assert result.stats.get(f"learn/source/{STRATEGY[site]}") == 1
    # Learning's CPU is reported apart (the bench subtracts it from the reading cost).
    assert result.stats.get("learn/cpu_ms", 0) > 0


def test_post_recall_and_precision(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    _, items, _ = crawled
    posts = [i for i in items if i["item_type"] == "post"]
    expected = [(p, t) for b in build() for t in b.threads if not t.denied for p in t.posts]

    def matches(got: dict[str, Any], post: Any) -> bool:
        return got["author"]["name"] == post.author.name and post.paragraphs[0] in (got["body_text"] or "")

    found = [(p, t) for p, t in expected if any(matches(g, p) and g["thread_id"] == str(t.id) for g in posts)]
    recall = len(found) / len(expected)
    assert recall >= 0.9, f"post recall {recall:.0%}"
    # Precision: every extracted post is a real post (no thread-list rows, no sidebars).
    assert all(any(matches(g, p) for p, _ in expected) for g in posts)
    for post, _ in found:
        got = next(g for g in posts if matches(g, post))
        assert datetime.fromisoformat(got["created"]) == post.at


def test_threads_titled(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    _, items, _ = crawled
    titles = {i["thread_id"]: i["title"] for i in items if i["item_type"] == "thread"}
    assert titles == {str(t.id): t.title for b in build() for t in b.threads if not t.denied}


def test_items_equal_expected_json(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, items, _ = crawled
    assert items == load_expected(site), "run scripts/update_profile_fixtures.py to see the difference"
