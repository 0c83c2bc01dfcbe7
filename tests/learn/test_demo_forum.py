"""The project's own demo forum (``tests.sitekit.site``) through ``scrapy crawl forum``.

No profile knows it: posts are ``<article class="post"><h3>#N by NAME on DATE</h3><p>…``, with
no author link, no post id, the thread title in an ``<h2>`` (the ``<h1>`` is the site's name)
and "next" links as the only pager. The learned template must find every post of every
thread, in order, with author and date, and the crawl must log no invalid items.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

from tests.sitekit.site import SiteServer
from tests.helpers.crawl import run_crawl

POSTS_PER_PAGE = 6


def test_demo_forum_read_whole(tmp_path: Path) -> None:
    site = SiteServer(hosts=1, pages_per_host=40, cross_links=False, posts_per_page=POSTS_PER_PAGE)
    thread_pages = [p for _, p in site.content.expected_paths() if p.startswith("/thread/")]
    threads = {re.match(r"/thread/(\d+)", p).group(1) for p in thread_pages}  # type: ignore[union-attr]
    with site:
        result = run_crawl("forum", site.base_urls[0], tmp_path / "out.jl")
    kinds = Counter(i["item_type"] for i in result.items)
    assert kinds == {"thread": len(threads), "post": len(thread_pages) * POSTS_PER_PAGE}
    assert result.stats.get("profiles/fallback/learned") == 1
    assert "Invalid" not in result.log and not result.stats.get("items/dropped/invalid")
    positions = defaultdict(list)
    for post in (i for i in result.items if i["item_type"] == "post"):
        positions[post["thread_id"]].append(post["position"])
        assert post["author"]["name"] and post["created"].startswith("2024-03-")
        assert post["created_precision"] == "day"
        assert post["body_text"] and not post["body_text"].startswith("#")
    assert all(sorted(v) == list(range(1, len(v) + 1)) for v in positions.values())
    titles = {i["title"] for i in result.items if i["item_type"] == "thread"}
    assert not any(t.startswith("Forum ") for t in titles), "the site's <h1>, not the thread's title"
