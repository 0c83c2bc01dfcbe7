"""Record-level classes the learner reads with no profile, on pages captured from real engines
(``tests/fixtures/record_classes``, ``urls.json`` names their URLs): a hidden copy of the post
inside its body (Asgaros Forum: the quote made ready for the reply box), a post id written as
``thread.post`` in the record's own permalink (Beehive Forum: ``msg=3.2``, while its first link
names the thread's first post, ``msg=3.1``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scrapy.http import HtmlResponse

from crawler.learn.apply import read_posts
from crawler.learn.body import HIDDEN
from crawler.learn.dom import parse
from crawler.learn.learner import Page, learn_site
from crawler.learn.template import Template
from crawler.scaffold.markers import fingerprint

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "record_classes"
URLS: dict[str, str] = json.loads((FOLDER / "urls.json").read_text(encoding="utf-8"))


def _pages(engine: str) -> list[Page]:
    return [Page(url, parse((FOLDER / name).read_text(encoding="utf-8"), url))
            for name, url in sorted(URLS.items()) if name.startswith(engine)]


def _learned(engine: str) -> tuple[Template, list[Page]]:
    pages = _pages(engine)
    template = learn_site(pages)
    assert isinstance(template, Template), template
    return template, pages


def test_a_hidden_copy_of_the_post_in_its_body_is_not_its_text() -> None:
    template, pages = _learned("asgaros")
    assert HIDDEN in template.posts.body_strip
    posts = [p for page in pages for p in read_posts(template, page.root, page.url)]
    assert len(posts) >= 10
    for post in posts:
        assert "Quote from" not in post["body_text"]  # the hidden copy's heading
        assert "display" not in post["body_html"]


def test_a_hidden_element_holding_other_text_stays() -> None:
    """A spoiler is hidden too, but it is the post's own text: no strip rule for it. The same
    pages, their hidden copies replaced by other words."""
    pages = _pages("asgaros")
    for page in pages:
        for number, node in enumerate(page.root.xpath(HIDDEN[1:])):
            for child in list(node):
                node.remove(child)
            node.text = f"Spoiler {number}: the butler did it, said nobody at all."
    template = learn_site(pages)
    assert isinstance(template, Template), template
    assert HIDDEN not in template.posts.body_strip
    posts = read_posts(template, pages[0].root, pages[0].url)
    assert all("the butler did it" in p["body_text"] for p in posts)


@pytest.mark.parametrize("name", ["beehive-thread-2.html", "beehive-thread-3.html"])
def test_the_post_id_is_the_records_own_permalink_thread_dot_post(name: str) -> None:
    template, _ = _learned("beehive")
    url = URLS[name]
    posts = read_posts(template, parse((FOLDER / name).read_text(encoding="utf-8"), url), url)
    tid = url.rsplit("=", 1)[1].split(".")[0]
    assert [p["post_id"] for p in posts] == [f"{tid}.{n}" for n in range(1, len(posts) + 1)]


def test_markers_of_xhtml_pages_opening_with_an_xml_declaration() -> None:
    """Beehive's pages start ``<?xml ...?>``: parsel takes such text for XML (its elements then
    in the XHTML namespace, no ``//div`` matches), while the crawler reads them as HTML."""
    template, _ = _learned("beehive")
    texts = [(FOLDER / name).read_text(encoding="utf-8") for name in URLS if "beehive" in name]
    assert all(text.startswith("<?xml") for text in texts)
    found = fingerprint(texts, [], template.posts.record)
    assert found.markers
    for name in (n for n in URLS if "beehive" in n):
        response = HtmlResponse(URLS[name], body=(FOLDER / name).read_bytes(), encoding="utf-8")
        assert found.matches(response.selector)


@pytest.mark.parametrize("name", ["beehive-thread-2.html", "beehive-thread-3.html"])
def test_one_threads_numbers_1_2_3_are_no_post_id_beside_a_permalink(name: str) -> None:
    """Learned on one thread's page alone (as ``new-engine`` does), the record's ``id`` (post
    N of the thread, ``message_2_1``) cannot be seen to restart per thread; it counts 1, 2,
    3... and the permalink ``msg=2.1`` names each post by the thread's number and that one."""
    url = URLS[name]
    page = Page(url, parse((FOLDER / name).read_text(encoding="utf-8"), url))
    template = learn_site([page])
    assert isinstance(template, Template), template
    posts = read_posts(template, page.root, url)
    tid = url.rsplit("=", 1)[1].split(".")[0]
    assert len(posts) >= 3
    assert [p["post_id"] for p in posts] == [f"{tid}.{n}" for n in range(1, len(posts) + 1)]
