"""The page-level floor (:mod:`crawler.learn.floor`) and ``python -m crawler read``.

Thread pages captured from real engine installs (``tests/fixtures/real``: phpBB, MyBB, SMF,
Discuz!) are read one by one with no site template: the posts the floor finds must be the
posts the engine's database has on that page (``expected.json``), with their authors, in page
order. The command prints the same posts for a saved page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from crawler.learn.dom import parse
from crawler.learn.floor import read_page
from crawler.learn.learner import Page, learn_site
from crawler.learn.records import mine_records
from crawler.learn.template import Template
from tests.helpers import forked

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
ENGINES = ["phpbb-3.3.10", "mybb-1.8.37", "smf-2.1.4", "discuz-x3.5"]
MARKER = re.compile(r"\[#(\d+)\]")


def _thread_pages(engine: str) -> list[tuple[str, Path, list[dict]]]:
    """(route, saved file, the truth's posts on that page) for every saved thread page."""
    site = REAL / engine / "site"
    routes = json.loads((site / "routes.json").read_text())["routes"]
    truth = json.loads((REAL / engine / "expected.json").read_text())
    by_route: dict[str, list[dict]] = {}
    for thread in truth["threads"]:
        for post in thread["posts"]:
            split = urlsplit(post["page_url"])
            route = split.path + ("?" + split.query if split.query else "")
            by_route.setdefault(route, []).append(post)
    # A page of one post repeats no record: the site template reads it, not the floor.
    return [(route, site / routes[route]["file"], posts) for route, posts in sorted(by_route.items())
            if route in routes and len(posts) >= 2]


@pytest.mark.parametrize("engine", ENGINES)
def test_floor_reads_every_thread_page_of_real_engines(engine: str) -> None:
    pages = _thread_pages(engine)
    assert len(pages) >= 10
    for route, path, truth in pages:
        posts = read_page(parse(path.read_bytes(), "http://fixture.invalid" + route), "http://fixture.invalid" + route)
        markers = [m.group(1) if (m := MARKER.search(p["body_text"] or "")) else None for p in posts]
        want = [MARKER.search(p["body_text"]).group(1) for p in truth]  # type: ignore[union-attr]
        assert markers == want, route
        assert [p["author_name"] for p in posts] == [p["author"] for p in truth], route
        assert all(p["created_raw"] for p in posts), route


def _bbpress_like() -> str:
    """Posts as a header block (date, permalink) then a body block (author, text), siblings
    with no wrapper of their own: bbPress's layout, and any theme that renders a post so."""
    blocks = []
    for n, (who, text) in enumerate([("alice", "My crawler takes hours on a board with many pages; what helps?"),
                                      ("bob", "Raise the concurrency per domain a little and cache the pages."),
                                      ("alice", "Thanks, that halved the time it takes, and the server was fine.")]):
        blocks.append(
            f'<div id="post-{n + 12}" class="reply-header"><span class="post-date">March {n + 3}, 2024 at 10:12 am'
            f'</span><a href="/forums/topic/slow-crawl/#post-{n + 12}">#{n + 12}</a></div>'
            f'<div class="hentry {"topic" if n == 0 else "reply"} post-{n + 12}"><div class="reply-author">'
            f'<a href="/forums/users/{who}/">{who}</a></div><div class="reply-content"><p>{text}</p></div></div>')
    return ("<html><head><title>Slow crawl on big boards - Example Forums</title></head><body>"
            "<h1>Slow crawl on big boards</h1><ul class='replies'><li class='body'>" + "".join(blocks)
            + "</li></ul></body></html>")


def test_header_and_body_siblings_are_one_record() -> None:
    root = parse(_bbpress_like(), "http://forum.invalid/forums/topic/slow-crawl/")
    groups = mine_records(root)
    assert groups and groups[0].span == 2 and len(groups[0].members) == 3
    posts = read_page(root, "http://forum.invalid/forums/topic/slow-crawl/")
    assert [p["author_name"] for p in posts] == ["alice", "bob", "alice"]
    assert [p["created_raw"][:7] for p in posts] == ["March 3", "March 4", "March 5"]
    assert posts[1]["body_text"].startswith("Raise the concurrency")


def test_slug_thread_pages_with_one_layout_each_are_read() -> None:
    """Thread URLs with no number and no plain slug still name threads: the site is read."""
    index = parse("<html><body><a href='/forums/topic/slow-crawl.html'>Slow crawl on big boards</a>"
                  "</body></html>", "http://forum.invalid/")
    pages = [Page("http://forum.invalid/", index)]
    for slug in ("slow-crawl.html", "fast-crawl.html", "odd-crawl.html"):
        url = f"http://forum.invalid/forums/topic/{slug}"
        pages.append(Page(url, parse(_bbpress_like(), url)))
    template = learn_site(pages)
    assert isinstance(template, Template), str(template)
    assert template.thread_id("/forums/topic/fast-crawl.html") == "fast-crawl.html"
    assert template.thread_id("/forums/topic/fast-crawl.html") != template.thread_id("/forums/topic/odd-crawl.html")


def test_read_command_prints_the_posts_of_a_saved_page(tmp_path: Path) -> None:
    page = tmp_path / "thread.html"
    page.write_text(_bbpress_like())
    done = forked.run("crawler", ["read", str(page)], timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "3 posts"
    assert "bob" in lines[1] and "March 4, 2024" in lines[1] and "Raise the concurrency" in lines[1]


def test_read_command_says_in_one_line_what_it_cannot_read(tmp_path: Path) -> None:
    done = forked.run("crawler", ["read", str(tmp_path / "missing.html")], timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: cannot read")


def test_page_numbers_from_a_select() -> None:
    """A pager that shows its page numbers only in a ``<select>`` (with Prev/Next links)."""
    from crawler.learn.paging import learn_paging, page_number

    options = "".join(f'<option value="/topic/slow-crawl/?page={n}">Page {n} of 4</option>' for n in range(1, 5))
    url = "http://forum.invalid/topic/slow-crawl/?page=2"
    root = parse(f'<html><body><a href="/topic/slow-crawl/?page=1">Prev</a><select>{options}</select>'
                 f'<a href="/topic/slow-crawl/?page=3">Next</a></body></html>', url)
    paging = learn_paging([(root, url)])
    assert paging.param == "page" and page_number(paging, "http://forum.invalid/topic/slow-crawl/?page=4") == 4


def test_board_of_a_thread_before_any_board_page_was_learned() -> None:
    """Learned from thread pages alone (no board page yet): the board is the last crumb, its
    id the number of its URL; a board's pager inside MyBB's trail is no crumb."""
    from crawler.learn.apply import board_of, read_thread

    site = REAL / "mybb-1.8.37" / "site"
    urls = ["/showthread.php?tid=12", "/showthread.php?tid=8", "/showthread.php?tid=5"]
    pages = [Page("http://fixture.invalid" + u, parse((site / f"showthread-php-tid-{u.split('=')[1]}.html")
                                                       .read_bytes(), "http://fixture.invalid" + u)) for u in urls]
    template = learn_site(pages)
    assert isinstance(template, Template) and template.board_url is None
    truth = {t["id"]: t for t in json.loads((REAL / "mybb-1.8.37" / "expected.json").read_text())["threads"]}
    for page in pages:
        crumbs = read_thread(template, page.root)["crumbs"]
        tid = template.thread_id(page.url)
        assert crumbs[-1][0] == truth[tid]["board"]
        assert board_of(template, crumbs) == truth[tid]["board_id"]


def test_the_zone_a_site_states_makes_its_dates_instants() -> None:
    """Discuz! says "GMT+8" in its footer (phpBB and vBulletin say "UTC-8", "GMT -5"): a
    date shown without an offset is a time in that zone, the instant the database holds."""
    from datetime import UTC, datetime

    from crawler.dates import normalize_date
    from crawler.learn.apply import read_posts
    from crawler.learn.when import to_ymd

    site = REAL / "discuz-x3.5" / "site"
    urls = [f"http://fixture.invalid/forum.php?mod=viewthread&tid={t}" for t in (2, 3, 4)]
    pages = [Page(u, parse((site / f"forum-php-mod-viewthread-tid-{u.rsplit('=', 1)[1]}.html").read_bytes(), u))
             for u in urls]
    template = learn_site(pages)
    assert isinstance(template, Template) and template.posts.utc_offset == "+08:00"
    truth = {t["id"]: t for t in json.loads((REAL / "discuz-x3.5" / "expected.json").read_text())["threads"]}
    post = read_posts(template, pages[0].root, pages[0].url)[0]
    raw = to_ymd(post["created_raw"], template.posts.date_order, template.posts.utc_offset)
    when = normalize_date(raw, base=datetime(2026, 1, 1, tzinfo=UTC))
    assert when == truth["2"]["posts"][0]["created"]
