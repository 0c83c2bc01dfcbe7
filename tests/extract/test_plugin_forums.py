"""Forums that are plugins of a site platform (bbPress and wpForo on WordPress), read from pages
captured on the real engines (``tests/fixtures/plugin_forums``, ``urls.json`` names their URLs).

What ``new-engine`` learns on them: markers of the forum's own markup (never the platform's
head, theme or generator, which every page of the platform has), the thread id the page writes
when the URL's only number is the title's (``thread-01-...``), and no position from a
permalink's text that is the post's id (``#7``); a board name cut short in the trail
("General Discussion ...") is read whole from the link's title.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from parsel import Selector
from scrapy.http import HtmlResponse

from crawler.learn.apply import read_posts, read_thread
from crawler.learn.dom import parse
from crawler.learn.learner import Page, learn_site
from crawler.learn.template import Template
from crawler.profiles import REGISTRY
from crawler.profiles.template_profile import page_thread_id
from crawler.scaffold.markers import fingerprint
from crawler.scaffold.page_ids import learn_page_thread_id

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "plugin_forums"
URLS: dict[str, str] = json.loads((FOLDER / "urls.json").read_text(encoding="utf-8"))
#: engine: (thread id, file) of its captured thread pages, first pages and one second page
THREADS = {
    "bbpress": [(7, "thread-7"), (11, "thread-11"), (11, "thread-11-page-2"), (40, "thread-40")],
    "wpforo": [(1, "thread-1"), (2, "thread-2"), (2, "thread-2-page-2"), (4, "thread-4")],
}
PLATFORM_ONLY = ["bbpress-site-home.html", "asgaros-site-home.html"]  # WordPress, no forum


def _pages(engine: str) -> list[tuple[str, str]]:
    files = [f"{engine}-{name}.html" for _, name in THREADS[engine]]
    return [(URLS[f], (FOLDER / f).read_text(encoding="utf-8")) for f in files]


def _learned(engine: str) -> Template:
    template = learn_site([Page(url, parse(text, url)) for url, text in _pages(engine)])
    assert isinstance(template, Template), template
    return template


@pytest.fixture(scope="module", params=sorted(THREADS))
def engine(request: pytest.FixtureRequest) -> tuple[str, Template]:
    return request.param, _learned(request.param)


def test_markers_are_the_forum_plugins_own_not_the_platforms(engine) -> None:
    name, template = engine
    found = fingerprint([text for _, text in _pages(name)], [], template.posts.record)
    assert found.markers and not found.generator  # WordPress's generator is every WP page's
    for _, text in _pages(name):
        assert found.matches(Selector(text=text))
    other = next(e for e in THREADS if e != name)
    strangers = [f"{other}-{n}.html" for _, n in THREADS[other]] + PLATFORM_ONLY
    for file in strangers:
        text = (FOLDER / file).read_text(encoding="utf-8")
        assert not found.matches(Selector(text=text)), f"{name} claims {file}"


def test_the_thread_id_is_read_in_the_page_when_the_url_gives_only_a_titles_number(engine):
    name, template = engine
    pages = _pages(name)
    assert {template.thread_id(url) for url, _ in pages} <= {"01", "02", "04", None}
    rule = learn_page_thread_id(template, pages)
    assert rule is not None
    got = [page_thread_id(rule, parse(text, url)) for url, text in pages]
    assert got == [str(tid) for tid, _ in THREADS[name]]


def test_a_permalink_naming_the_posts_own_id_is_no_position(engine) -> None:
    name, template = engine
    for url, text in _pages(name)[:2]:
        posts = read_posts(template, parse(text, url), url)
        ids = [p["post_id"] for p in posts]
        assert ids and all(ids)
        assert [p["position"] for p in posts] != [int(i) for i in ids]
        assert all(p["position"] in (None, i + 1) for i, p in enumerate(posts))


def test_urls_with_a_real_id_keep_it() -> None:
    template = _learned("bbpress")
    template.thread_url = r"^/t/(?P<tid>\d+)"
    pages = [(f"http://forum.test/t/{tid + 100}", text)
             for (tid, _), (_, text) in zip(THREADS["bbpress"], _pages("bbpress"), strict=True)]
    assert learn_page_thread_id(template, pages) is None


def test_a_board_name_cut_short_in_the_trail_is_read_from_the_links_title() -> None:
    template = _learned("wpforo")
    url, text = _pages("wpforo")[0]
    assert ">General Discussion ...<" in text
    crumbs = read_thread(template, parse(text, url))["crumbs"]
    assert crumbs[-1][0] == "General Discussion 综合讨论"


@pytest.mark.parametrize("file", sorted(URLS))
def test_the_committed_plugin_profiles_claim_their_pages_only(file: str) -> None:
    """bbPress and wpForo, both added by ``new-engine`` and committed side by side: a page of
    one is detected as that one alone, a WordPress page without a forum as none."""
    response = HtmlResponse(url=URLS[file], body=(FOLDER / file).read_bytes(), encoding="utf-8")
    engine = file.split("-", 1)[0]
    expected = [] if file in PLATFORM_ONLY else [engine]
    assert [p.name for p in REGISTRY.engines if p.detect(response)] == expected
