"""Run again = an incremental pass of the ``wordpress`` spider in REST API mode (issue 27,
item 13: the second run raised ``KeyError: 'home'`` in the revisit of the API listing, whose
revisit request had lost the spider's meta, and emitted nothing new).

One crawl of version 1, then the same command on version 2 (same crawl state), against a
WordPress-like site on 127.0.0.1 (:class:`tests.helpers.changing_wordpress.ChangingWordPress`).
"""

from __future__ import annotations

from typing import Any

import pytest

from crawler.demo.server import LoopbackServer
from tests.extract.sitegen.blog import POSTS_PER_PAGE
from tests.helpers.changing_wordpress import ChangingWordPress
from tests.helpers.crawl import run_crawl


@pytest.fixture(scope="module")
def wp_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    site, tmp = ChangingWordPress(), tmp_path_factory.mktemp("incremental-wordpress")
    args = {"per_page": str(POSTS_PER_PAGE), "timezone": "Asia/Shanghai"}
    with LoopbackServer(site) as server:
        url = server.origins[0] + site.start
        first = run_crawl("wordpress", url, tmp / "first.jl", args=args)
        n_first = len(server.recorder.requests)
        site.version = 2
        again = run_crawl("wordpress", url, tmp / "again.jl", args=args)
        origin = server.origins[0]
    return {"first": first, "again": again, "n_first": n_first, "origin": origin,
            "revisit": server.recorder.requests[n_first:]}


def test_a_wordpress_api_revisit_emits_the_new_article_new_comments_and_the_edit(wp_runs):
    first, again, origin = wp_runs["first"], wp_runs["again"], wp_runs["origin"]
    assert first.stats.get("wordpress/mode/api") == 1
    assert len([i for i in first.items if i["item_type"] == "article"]) == 7
    assert "Traceback" not in again.log and "KeyError" not in again.log, again.log[-3000:]
    got = {(i["item_type"], i.get("url") or i["article_url"], i.get("comment_id")): i
           for i in again.items}
    assert len(got) == len(again.items)
    assert set(got) == {  # (the log's last lines tell what the pass did)
        ("article", f"{origin}/2024/02/post-new/", None),
        ("article", f"{origin}/2024/01/post-02/", None),  # edited
        ("comment", f"{origin}/2024/02/post-06/", "1760"),
        ("comment", f"{origin}/2024/02/post-06/", "1761"),
        ("comment", f"{origin}/2024/01/post-04/", "1740"),
    }, again.log[-4000:]
    edited = got[("article", f"{origin}/2024/01/post-02/", None)]
    assert edited["revision"] == 1 and "Edited: a correction." in edited["body_text"]
    new = got[("comment", f"{origin}/2024/02/post-06/", "1760")]
    assert new["author"] == "newcomer" and "revision" not in new
    stats = again.stats
    assert stats["outcomes/discovered"] == \
        stats["outcomes/fetched"] + stats.get("outcomes/filtered", 0) + stats.get("outcomes/failed", 0)


def test_a_wordpress_api_revisit_reads_the_listings_and_only_the_changed_posts(wp_runs):
    origin, revisit = wp_runs["origin"], wp_runs["revisit"]
    fetched = [r.url.removeprefix(origin) for r in revisit]
    assert len(fetched) == len(set(fetched)), fetched  # nothing twice
    # the comments of the new post (200) and of the edited one (102), no other post's
    assert sorted(u for u in fetched if "comments?post=" in u) == [
        "/wp-json/wp/v2/comments?post=102&per_page=3&page=1",
        "/wp-json/wp/v2/comments?post=200&per_page=3&page=1"]
    # the site-wide comment listing, down to the newest comment of the first run (page 2)
    assert [u for u in fetched if "_embed=up" in u] == [
        "/wp-json/wp/v2/comments?per_page=3&page=1&_embed=up",
        "/wp-json/wp/v2/comments?per_page=3&page=2&_embed=up"]
    assert len(revisit) < wp_runs["n_first"]
