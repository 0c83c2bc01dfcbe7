"""The captured real sites themselves, fundus-style: every page parses with its engine's profile
to exactly what the engine's database says it shows, and every page kind is there.

No crawl here: each captured page is handed to the profile as the response Scrapy would get.
Thread pages must hold exactly the truth's posts for that page (ids, positions, authors,
instants, body text by the lab's text rule); board pages together must list every thread of
their board; the index every board; the missing thread must read as refused. The end-to-end
crawl of the same captures is tests/extract/test_real_e2e.py.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import asdict
from datetime import datetime
from typing import Any

import pytest

from crawler.blogs.wordpress import WordPress
from crawler.dates import normalize_date
from crawler.profiles import REGISTRY, detect_profile, get_profile
from crawler.profiles.base import ForumProfile, PageCursor, PageKind
from crawler.spiders.common import fetch_time
from tests.extract.realsites import (
    ABSENT_KINDS,
    BLOG_KINDS,
    FORUM_KINDS,
    ORIGIN,
    Capture,
    load_scorer,
    names,
    target_key,
)

SCORER = load_scorer()
CAPTURES = [Capture(n) for n in names()]
FORUMS = [c for c in CAPTURES if not c.is_blog]
BLOGS = [c for c in CAPTURES if c.is_blog]


def _ids(capture: Capture) -> str:
    return capture.name


def test_every_capture_is_of_an_engine_the_project_reads() -> None:
    # Derived from the captures on disk: each names a registered profile (or the blog
    # spider's WordPress), and no engine is captured twice.
    engines = [c.engine for c in CAPTURES]
    assert engines and len(set(engines)) == len(engines)
    for engine in engines:
        assert REGISTRY.get(engine) is not None or engine == "wordpress", engine


# -- the capture as a whole ------------------------------------------------------------------
@pytest.mark.parametrize("cap", CAPTURES, ids=_ids)
def test_every_page_kind_appears(cap: Capture) -> None:
    kinds = set(cap.manifest["page_kinds"].values())
    needed = BLOG_KINDS if cap.is_blog else FORUM_KINDS
    missing = [k for k in needed if k not in kinds and (cap.name, k) not in ABSENT_KINDS]
    assert not missing, f"{cap.name} lacks page kinds {missing}"
    for (name, kind), why in ABSENT_KINDS.items():
        if name == cap.name:
            assert kind not in kinds, f"{kind} is captured now; drop the exception ({why})"


@pytest.mark.parametrize("cap", CAPTURES, ids=_ids)
def test_capture_is_complete_and_self_contained(cap: Capture) -> None:
    manifest = cap.manifest
    assert manifest["start"] in manifest["routes"]
    assert set(manifest["page_kinds"]) == set(manifest["routes"])
    lab_origin = re.compile(rb"127\.0\.0\.1(?::|%3A)\d+", re.IGNORECASE)
    for key, route in manifest["routes"].items():
        body = (cap.folder / "site" / route["file"]).read_bytes()
        assert not lab_origin.search(body), f"{key}: the lab's origin was not rewritten"
        assert int(route.get("status", 200)) < 500, f"{key}: a server error was captured"
    # Every page the truth names is in the capture.
    if cap.is_blog:
        pages = [u for post in cap.expected["posts"] for u in post["page_urls"]]
    else:
        pages = [_page_key(cap, p["page_url"]) for t in cap.expected["threads"] for p in t["posts"]]
        pages = [ORIGIN + k for k in pages]
    missing = sorted({target_key(u) for u in pages} - set(manifest["routes"]))
    assert not missing, f"pages the truth names are not captured: {missing}"


@pytest.mark.parametrize("cap", CAPTURES, ids=_ids)
def test_start_page_is_detected(cap: Capture) -> None:
    response = cap.response(cap.manifest["start"])
    if cap.is_blog:
        assert WordPress.detect(response)
    else:
        assert detect_profile(response) is get_profile(cap.engine)


# -- forums ------------------------------------------------------------------------------------
def _page_key(cap: Capture, page_url: str) -> str:
    """Where the crawler reads a truth page: the page itself, or its JSON twin (NodeBB)."""
    profile = get_profile(cap.engine)
    assert profile is not None
    return target_key(profile().request_url(PageKind.THREAD, page_url))


def _dated(fields: dict[str, Any], profile: type[ForumProfile], base: str) -> dict[str, Any]:
    """``*_raw`` dates normalised as NormalizeDatesPipeline does with the engine's defaults."""
    out = dict(fields)
    for raw, name in (("created_raw", "created"), ("last_post_at_raw", "last_post_at")):
        if out.get(raw):
            out[name] = normalize_date(
                out[raw],
                base=datetime.fromisoformat(base),
                tz=profile.timezone,
                languages=profile.languages,
                date_order=profile.date_order,
            )
    return out


@pytest.mark.parametrize("cap", FORUMS, ids=_ids)
def test_thread_pages_parse_to_expected(cap: Capture) -> None:
    profile_cls = get_profile(cap.engine)
    assert profile_cls is not None
    per_page = cap.expected["posts_per_page"]
    on_page: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for thread in cap.expected["threads"]:
        for post in thread["posts"]:
            on_page[_page_key(cap, post["page_url"])].append({**post, "pages": thread["pages"]})
    items: list[dict[str, Any]] = []
    for key in cap.keys("thread", "thread_page_n"):
        response = cap.response(key)
        profile = profile_cls.for_page(response)()
        assert not profile.is_soft_404(response), key
        want = on_page.get(key)
        assert want, f"{key}: a thread page the truth does not name"
        page = want[0]["page"]
        cursor = PageCursor(url=response.url, page=page, extra={"offset": (page - 1) * per_page} if page > 1 else {})
        parsed = profile.parse_thread(response, cursor, None)
        assert [p.post_id for p in parsed.posts] == [p["id"] for p in want], f"{key}: not the truth's posts"
        base = fetch_time(response)
        made = {"site": "fixture.invalid", "engine": cap.engine, "crawled_at": base}
        items += [_dated(asdict(p.stamped(**made)), profile_cls, base) for p in parsed.posts]
        if page == 1:
            assert parsed.thread is not None
            items.append(_dated(asdict(parsed.thread.stamped(**made)), profile_cls, base))
        if page < want[0]["pages"]:
            assert parsed.next is not None, f"{key}: no link to page {page + 1}"
            nxt = target_key(profile.request_url(PageKind.THREAD, parsed.next.url))
            assert on_page.get(nxt, [{}])[0].get("page") == page + 1, f"{key}: next page {nxt} is not page {page + 1}"
        else:
            assert parsed.next is None, f"{key}: a next page after the last"
    _assert_perfect(*_scored(items, cap))


@pytest.mark.parametrize("cap", FORUMS, ids=_ids)
def test_board_pages_list_every_thread_of_their_board(cap: Capture) -> None:
    profile_cls = get_profile(cap.engine)
    assert profile_cls is not None
    routes = cap.manifest["routes"]
    listed: dict[str, dict[str, tuple[str | None, str | None]]] = defaultdict(dict)
    for key in cap.keys("board", "board_page_n"):
        response = cap.response(key)
        profile = profile_cls.for_page(response)()
        cursor = PageCursor(url=response.url)
        for ref in profile.thread_refs(response, cursor):
            listed[ref.board_id or ""][ref.thread_id] = (ref.title, ref.board_name)
            assert target_key(profile.request_url(PageKind.THREAD, ref.url)) in routes, ref.url
        nxt = profile.next_page(response, cursor)
        if nxt is not None:
            assert target_key(profile.request_url(PageKind.BOARD, nxt.url)) in routes, f"{key}: next {nxt.url}"
    expected: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
    for thread in cap.expected["threads"]:
        expected[thread["board_id"]][thread["id"]] = (thread["title"], thread["board"])
    assert listed == expected


@pytest.mark.parametrize("cap", FORUMS, ids=_ids)
def test_index_links_every_board(cap: Capture) -> None:
    profile_cls = get_profile(cap.engine)
    assert profile_cls is not None
    start = ORIGIN + cap.manifest["start"]
    key = target_key(profile_cls().request_url(PageKind.INDEX, start))
    response = cap.response(key)
    profile = profile_cls.for_page(response)()
    boards = {profile.board_id_from(c.url): c.url for c in profile.board_links(response)}
    assert set(boards) == {t["board_id"] for t in cap.expected["threads"]}
    for url in boards.values():
        assert target_key(profile.request_url(PageKind.BOARD, url)) in cap.manifest["routes"], url


@pytest.mark.parametrize("cap", FORUMS, ids=_ids)
def test_missing_thread_reads_as_refused(cap: Capture) -> None:
    profile_cls = get_profile(cap.engine)
    assert profile_cls is not None
    keys = cap.keys("soft_404")
    assert keys
    for key in keys:
        response = cap.response(key)
        assert response.status >= 400 or profile_cls.for_page(response)().is_soft_404(response), key


# -- WordPress ---------------------------------------------------------------------------------
def _wp_dated(fields: dict[str, Any], base: str) -> dict[str, Any]:
    out = dict(fields)
    for raw, name in (("published_raw", "published"), ("updated_raw", "updated"), ("created_raw", "created")):
        if out.get(raw):
            out[name] = normalize_date(out[raw], base=datetime.fromisoformat(base), tz="UTC")
    return out


@pytest.mark.parametrize("cap", BLOGS, ids=_ids)
def test_wordpress_api_pages_parse_to_expected(cap: Capture) -> None:
    items: list[dict[str, Any]] = []
    urls = {}
    for key in cap.keys("api"):
        response = cap.response(key)
        data = json.loads(response.body)
        base = fetch_time(response)
        if key.startswith("/wp-json/wp/v2/posts"):
            for post in data:
                article = WordPress.article_from_api(post)
                urls[str(post["id"])] = article["url"]
                items.append({"item_type": "article", **_wp_dated(article, base)})
    for key in cap.keys("api"):
        response = cap.response(key)
        if key.startswith("/wp-json/wp/v2/comments"):
            for comment in json.loads(response.body):
                fields = WordPress.comment_from_api(comment, urls[str(comment["post"])])
                items.append({"item_type": "comment", **_wp_dated(fields, fetch_time(response))})
    _assert_perfect(*_scored(items, cap))


@pytest.mark.parametrize("cap", BLOGS, ids=_ids)
def test_wordpress_html_pages_parse_to_expected(cap: Capture) -> None:
    items: list[dict[str, Any]] = []
    for post in cap.expected["posts"]:
        first, *parts = [cap.response(target_key(u)) for u in post["page_urls"]]
        fields = WordPress.article_from_html(first)
        assert fields is not None, post["url"]
        assert [target_key(u) for u in WordPress.part_links(first)] == [target_key(u) for u in post["page_urls"][1:]]
        body = "\n".join([fields["body_html"] or "", *(WordPress.part_body(p) or "" for p in parts)])
        items.append({"item_type": "article", **_wp_dated({**fields, "body_html": body}, fetch_time(first))})
    for key in cap.keys("article", "article_comment_page_n"):
        response = cap.response(key)
        article = ORIGIN + re.sub(r"comment-page-\d+/$", "", key)
        for fields in WordPress.comments_from_html(response, article):
            items.append({"item_type": "comment", **_wp_dated(fields, fetch_time(response))})
    listed = set()
    for key in cap.keys("index", "index_page_n"):
        listed |= {target_key(u) for u in WordPress.article_links(cap.response(key))}
    assert listed == {target_key(p["url"]) for p in cap.expected["posts"]}
    _assert_perfect(*_scored(items, cap))


@pytest.mark.parametrize("cap", BLOGS, ids=_ids)
def test_wordpress_missing_post_is_a_404(cap: Capture) -> None:
    for key in cap.keys("soft_404"):
        assert cap.response(key).status == 404


def _scored(items: list[dict[str, Any]], cap: Capture) -> tuple[Any, frozenset[str]]:
    """The scorecard against the truth, with the limits the engine's profile declares."""
    limits = SCORER.declared_limits(items, cap.engine)
    return SCORER.score(items, cap.expected, limits), limits


def _assert_perfect(card: Any, limits: frozenset[str] = frozenset()) -> None:
    """Every figure right; no extra or repeated post unless the profile declares repeats."""
    wrong = {f.name: f.misses[:3] for f in card.figures.values() if f.right != f.total}
    assert not wrong, wrong
    allowed = ("duplicate",) if "repeated_posts" in limits else ()
    extra = {k: v for k, v in card.counts.items()
             if k.startswith(("extra", "duplicate")) and not k.startswith(allowed) and v}
    assert not extra, extra
