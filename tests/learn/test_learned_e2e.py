"""End to end: ``scrapy crawl forum -a profile=none`` on forums captured from real engines.

Each ``tests/fixtures/profiles/learned_*`` site is a capture of a lab engine (MyBB, SMF,
Discuz!, phpBB, NodeBB), of django-machina or Spirit from PyPI or of Phorum 6
(``scripts/capture_site.py --learned``), or derived from one
(``scripts/derive_learn_fixtures.py``: dates only in a ``title`` attribute, a Chinese date-only
engine that repeats the opening post on every page, a two-rows-per-post table layout, a
hand-modelled forum whose every post is schema.org ``DiscussionForumPosting`` microdata with
pages linked only by ``rel=next``: no installable engine marks posts up so; MyBB's pages under
slug-only thread URLs; Phorum's with each post's header and body blocks unwrapped). Its
``truth.json`` comes from the engine's database, not from the pages. The crawl learns a
template on the first pages and reads the site with it; the items must equal
``expected.json`` and score at least 0.9 on every measure against the truth.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest

from tests.helpers.evaluate import score
from tests.helpers.expected import FIXTURES, _manifest, _sites, crawl_fixture, load_expected

SITES = _sites("learned")
STYLES = {
    "learned_mybb": "div posts, numbered pager",
    "learned_smf": "offset pagination inside the topic parameter (topic=3.15)",
    "learned_discuz": "Chinese engine, table per post, UTC+8",
    "learned_phpbb": "start= offset pagination, session ids in links",
    "learned_nodebb": "schema.org microdata only (Comment items)",
    "learned_datetitle": "date only in a title attribute",
    "learned_cn_dateonly": "Chinese date-only engine repeating the opening post",
    "learned_table": "table layout, two rows per post",
    "learned_machina": "django-machina (PyPI): Bootstrap cards, ids at the end of slugs, ?post= permalinks",
    "learned_phorum": "Phorum 6: comma routes (read.php?3,41,page=2), date after the subject, Reply/Quote row in the body",
    "learned_spirit": "Spirit (PyPI): record ids count posts within a thread (id=c1), data-pk is the id",
    "learned_slugs": "MyBB's pages with bbPress-like thread URLs: /forums/topic/<title>/, -2 for a title used before",
    "learned_siblings": "Phorum's pages with each post's wrapper taken away: header and body sibling blocks, anchors between",
    "learned_microdata": "every post schema.org DiscussionForumPosting microdata, pages linked by rel=next only",
}


@pytest.fixture(scope="module", params=SITES)
def crawled(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]], Any]:
    items, result, _ = crawl_fixture(request.param)
    return request.param, items, result


def test_every_style_has_a_fixture() -> None:
    assert set(STYLES) <= set(SITES)


def test_items_equal_expected_json(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, items, _ = crawled
    assert items == load_expected(site), "run scripts/update_profile_fixtures.py to see the difference"


def test_learned_not_detected(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    _, _, result = crawled
    assert result.stats.get("profiles/fallback/learned") == 1
    assert not any(k.startswith("profiles/detected") for k in result.stats)
    assert "Invalid post" not in result.log


def test_scores_against_database_truth(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, items, _ = crawled
    truth = json.loads((FIXTURES / site / "truth.json").read_text(encoding="utf-8"))
    figures = score(truth, items, _manifest(site).get("timezone") or "UTC")
    for measure in ("threads_titled", "post_recall", "author", "time", "position", "precision"):
        assert figures[measure] >= 0.9, f"{site} ({STYLES.get(site)}): {measure} {figures[measure]:.3f}"


def test_date_only_site_says_so(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, items, _ = crawled
    posts = [i for i in items if i["item_type"] == "post"]
    if site == "learned_cn_dateonly":
        assert {p["created_precision"] for p in posts} == {"day"}
        assert all(p["created"].endswith("T00:00:00+08:00") for p in posts)
    else:
        assert {p["created_precision"] for p in posts} == {"time"}


def test_repeated_opening_post_emitted_once(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    site, items, result = crawled
    posts = [i for i in items if i["item_type"] == "post"]
    assert len({p["post_id"] for p in posts}) == len(posts)
    # The template knows (the pipeline's dedup would also drop a repeat with the same id, but
    # not one whose id is a content digest).
    assert (result.stats.get("learn/quirks/repeats_first_post") == 1) == (site == "learned_cn_dateonly")


#: Sites whose thread lists show replies and the last post's time in a form the rows reader knows.
ROWS_SHOWN = {"learned_microdata", "learned_mybb", "learned_phpbb", "learned_smf", "learned_datetitle"}


def test_thread_list_rows_match_the_truth(crawled: tuple[str, list[dict[str, Any]], Any]) -> None:
    """Reply counts and last post times from the thread-list rows: never wrong, and given for
    most threads where the list shows them (threads whose list was not read before them have none)."""
    site, items, _ = crawled
    truth = {str(t["id"]): t["posts"] for t in json.loads((FIXTURES / site / "truth.json").read_text(encoding="utf-8"))["threads"]}
    threads = [t for t in items if t["item_type"] == "thread" and t["thread_id"] in truth]
    counted = [t for t in threads if t.get("reply_count") is not None]
    assert all(t["reply_count"] == len(truth[t["thread_id"]]) - 1 for t in counted)
    dated = [t for t in threads if t.get("last_post_at")]
    assert all(datetime.fromisoformat(t["last_post_at"]) == datetime.fromisoformat(truth[t["thread_id"]][-1]["created"]) for t in dated)
    if site in ROWS_SHOWN:
        assert len(counted) >= 0.75 * len(threads) and len(dated) >= 0.75 * len(threads), (len(counted), len(dated), len(threads))
