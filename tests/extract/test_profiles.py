"""Engine profiles: detection on every fixture page, URL classification and canonicalization."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scrapy.http import HtmlResponse

from crawler.encoding import decode_html
from crawler.profiles import REGISTRY, detect_profile, get_profile
from crawler.profiles.base import PageCursor, PageKind
from crawler.profiles.vbulletin import VBulletin, VBulletin3
from tests.helpers.expected import SITES, _sites, engines, site_engine

WORDPRESS = Path(__file__).resolve().parents[1] / "fixtures" / "reference" / "wordpress-6.1-twentytwentyone"


def html_pages(engine: str) -> list[tuple[str, HtmlResponse]]:
    site = SITES / engine
    routes = json.loads((site / "routes.json").read_text(encoding="utf-8"))["routes"]
    pages = []
    for target, route in routes.items():
        if "html" not in route["content_type"]:
            continue
        body = (site / route["file"]).read_bytes()
        _, encoding = decode_html(body, header_charset=None)
        pages.append((target, HtmlResponse(url="http://127.0.0.1" + target, body=body, encoding=encoding)))
    return pages


@pytest.mark.parametrize("site", engines())
def test_every_fixture_page_detected_as_its_engine_only(site: str) -> None:
    engine = site_engine(site)  # a markup version's site (vbulletin3) is its engine's (vbulletin)
    pages = html_pages(site)
    assert pages
    for target, response in pages:
        matches = [p.name for p in REGISTRY.engines if p.detect(response)]
        assert matches == [engine], f"{site}{target} detected as {matches}"


@pytest.mark.parametrize(("site", "version"), [("vbulletin", VBulletin), ("vbulletin3", VBulletin3)])
def test_each_vbulletin_page_read_by_its_markup_version(site: str, version: type) -> None:
    for target, response in html_pages(site):
        assert VBulletin.for_page(response) is version, f"{site}{target}"
        assert version.name == "vbulletin"


def test_vbulletin3_selected_by_generator_or_by_markup_alone() -> None:
    generator_only = HtmlResponse(
        url="http://x/showthread.php?t=1",
        body=b'<html><head><meta name="generator" content="vBulletin 3.8.7" /></head><body></body></html>',
    )
    assert VBulletin.detect(generator_only) and VBulletin.for_page(generator_only) is VBulletin3
    # Boards that strip the generator meta: vB3-only markup still selects the version.
    _, page = next(p for p in html_pages("vbulletin3") if p[0] == "/showthread.php?t=101")
    stripped = page.replace(body=page.body.replace(b'name="generator"', b'name="x-generator"'))
    assert VBulletin.detect(stripped) and VBulletin.for_page(stripped) is VBulletin3
    vb4 = HtmlResponse(
        url="http://x/",
        body=b'<html><head><meta name="generator" content="vBulletin 4.2.5" /></head><body></body></html>',
    )
    assert VBulletin.for_page(vb4) is VBulletin
    vb5 = HtmlResponse(
        url="http://x/",
        body=b'<html><head><meta name="generator" content="vBulletin 5.6.9" /></head><body></body></html>',
    )
    assert not VBulletin.detect(vb5)


def test_vbulletin3_next_page_from_title_when_rel_is_missing() -> None:
    # vB 3.6/3.7 pagenav links carry no rel="next", only the "Next Page - Results …" title.
    body = (
        b'<html><head><meta name="generator" content="vBulletin 3.7.4" /></head><body>'
        b'<div class="pagenav"><table><tr><td><a class="smallfont" href="forumdisplay.php?s=ab&amp;f=2&amp;page=2"'
        b' title="Show results 4 to 5 of 5">2</a></td><td><a class="smallfont" href="forumdisplay.php?s=ab&amp;f=2&amp;page=2"'
        b' title="Next Page - Results 4 to 5 of 5">&gt;</a></td></tr></table></div></body></html>'
    )
    response = HtmlResponse(url="http://x/forumdisplay.php?f=2", body=body)
    nxt = VBulletin.for_page(response)().next_page(response, PageCursor(url=response.url))
    assert nxt is not None and nxt.url == "http://x/forumdisplay.php?f=2&page=2" and nxt.page == 2


@pytest.mark.parametrize("site", _sites("generic") + _sites("blog"))
def test_no_profile_matches_other_engines(site: str) -> None:
    # FluxBB, Invision, Hugo and WordPress have no forum profile: the forum spider must fall back.
    for target, response in html_pages(site):
        assert detect_profile(response) is None, f"{site}{target}"


@pytest.mark.parametrize("name", ["index.html", "post-03.html", "index-page-2.html"])
def test_no_forum_profile_matches_wordpress(name: str) -> None:
    response = HtmlResponse(url="http://127.0.0.1/", body=(WORDPRESS / name).read_bytes(), encoding="utf-8")
    assert detect_profile(response) is None


def test_every_profile_and_version_has_a_fixture_site() -> None:
    # Modelled sites (kind "forum") and sites captured by `python -m crawler new-engine`
    # (kind "engine"), found on disk.
    sites = engines() + _sites("engine")
    assert sorted(p.name for p in REGISTRY.engines) == sorted({site_engine(s) for s in sites})
    read_by = {get_profile(site_engine(s)).for_page(r) for s in engines() for _, r in html_pages(s)[:1]}
    for profile in REGISTRY.engines:
        for version in profile.versions:
            assert version.name == profile.name and version.version
            assert version in read_by, f"no fixture site in {profile.name} {version.version} markup"


def test_profile_names_unique_and_registered() -> None:
    names = [p.name for p in REGISTRY.engines]
    assert len(names) == len(set(names))
    assert all(get_profile(n) is p for n, p in zip(names, REGISTRY.engines, strict=True))


@pytest.mark.parametrize(
    ("engine", "url", "kind", "ident"),
    [
        ("discuz", "http://x/forum.php?mod=viewthread&tid=101&extra=page%3D1&page=2", PageKind.THREAD, "101"),
        ("discuz", "http://x/thread-101-2-1.html", PageKind.THREAD, "101"),
        ("discuz", "http://x/forum.php?mod=forumdisplay&fid=2&page=3", PageKind.BOARD, "2"),
        ("discuz", "http://x/forum-2-1.html", PageKind.BOARD, "2"),
        ("discuz", "http://x/forum.php", PageKind.INDEX, None),
        ("phpbb", "http://x/viewtopic.php?f=2&t=101&start=10&sid=abc", PageKind.THREAD, "101"),
        ("phpbb", "http://x/viewforum.php?f=2", PageKind.BOARD, "2"),
        ("phpbb", "http://x/index.php?sid=abc", PageKind.INDEX, None),
        ("xenforo", "http://x/threads/polite-crawling.101/page-2", PageKind.THREAD, "101"),
        ("xenforo", "http://x/forums/general.2/", PageKind.BOARD, "2"),
        ("xenforo", "http://x/forums/", PageKind.INDEX, None),
        ("vbulletin", "http://x/showthread.php?s=abc&t=101&page=2", PageKind.THREAD, "101"),
        ("vbulletin", "http://x/showthread.php?101-polite-crawling/page2", PageKind.THREAD, "101"),
        ("vbulletin", "http://x/forumdisplay.php?f=2", PageKind.BOARD, "2"),
        ("vbulletin5", "http://x/forum/general/sub/101-polite-crawling/page2", PageKind.THREAD, "101"),
        ("vbulletin5", "http://x/forum/general/page2", PageKind.BOARD, None),
        ("vbulletin5", "http://x/forum", PageKind.INDEX, None),
        ("discourse", "http://x/t/polite-crawling/101", PageKind.THREAD, "101"),
        ("discourse", "http://x/t/101/posts.json?post_ids[]=1", PageKind.THREAD, "101"),
        ("discourse", "http://x/c/general/2?page=1", PageKind.BOARD, "2"),
        ("discourse", "http://x/c/parent/child/7.json", PageKind.BOARD, "7"),
        ("discourse", "http://x/", PageKind.INDEX, None),
    ],
)
def test_classify(engine: str, url: str, kind: PageKind, ident: str | None) -> None:
    profile = get_profile(engine)()
    assert profile.classify(url) is kind
    if kind is PageKind.THREAD:
        assert profile.thread_id_from(url) == ident
    elif kind is PageKind.BOARD:
        assert profile.board_id_from(url) == ident


@pytest.mark.parametrize(
    ("engine", "url", "canonical"),
    [
        (
            "discuz",
            "http://x/forum.php?mod=viewthread&tid=1&extra=page%3D1&page=2#pid5",
            "http://x/forum.php?mod=viewthread&page=2&tid=1",
        ),
        (
            "discuz",
            "http://x/forum.php?mod=viewthread&tid=1&authorid=7&_dsign=ab12",
            "http://x/forum.php?mod=viewthread&tid=1",
        ),
        (
            "phpbb",
            "http://x/viewtopic.php?t=1&sid=3f9c2a7d1b6e&start=10",
            "http://x/viewtopic.php?start=10&t=1",
        ),
        ("vbulletin", "http://x/showthread.php?s=8a1f&t=1&page=2", "http://x/showthread.php?page=2&t=1"),
        ("xenforo", "http://x/forums/general.2/?order=title&direction=asc", "http://x/forums/general.2/"),
        # Path-like queries (friendly URLs without rewrite rules) must survive untouched.
        (
            "vbulletin",
            "http://x/showthread.php?101-polite-crawling/page2&s=8a1f",
            "http://x/showthread.php?101-polite-crawling/page2",
        ),
        (
            "xenforo",
            "http://x/index.php?threads/polite-crawling.101/#post-5",
            "http://x/index.php?threads/polite-crawling.101/",
        ),
    ],
)
def test_canonicalize_drops_session_and_view_params(engine: str, url: str, canonical: str) -> None:
    assert get_profile(engine).canonicalize(url) == canonical


def test_canonicalize_is_idempotent() -> None:
    for profile in REGISTRY.engines:
        url = "http://x/a.php?b=2&a=1&sid=1&s=2&extra=3"
        once = profile.canonicalize(url)
        assert profile.canonicalize(once) == once
