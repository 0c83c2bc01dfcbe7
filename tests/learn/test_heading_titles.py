"""Thread titles from ``<title>`` with the site's parts around the thread's own heading, on pages
captured from real engines with no profile (``tests/fixtures/heading_titles``):

* PunBB 1.4.4: "Topic (Page 2) — Board — Site", the heading ``<h1><a>Topic</a> <small>(Page 2
  of 3)</small></h1>``: the title is the heading's link, the same on every page of the thread;
* UseBB 1.0: "Site: Topic", the site's name in an ``<h1>`` before the topic's ``<h3>`` (the
  trail's first link, to ``index.php``, shows the site's name): ``<title>`` ends with the title.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crawler.learn.apply import read_thread, strip_title
from crawler.learn.dom import parse
from crawler.learn.template import PostRules, Template
from crawler.learn.thread import heading_title, learn_title

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "heading_titles"
BASES = {"punbb": "http://127.0.0.1:18121/", "usebb": "http://127.0.0.1:18124/"}
URLS = {  # fixture file -> the URL it was fetched from
    "punbb-topic-2.html": "viewtopic.php?id=2",
    "punbb-topic-3.html": "viewtopic.php?id=3",
    "punbb-topic-3-page-2.html": "viewtopic.php?id=3&p=2",
    "punbb-topic-13-page-5.html": "viewtopic.php?id=13&p=5",
    "usebb-topic-3.html": "topic.php?id=3",
    "usebb-topic-6-page-2.html": "topic.php?id=6&page=2",
}
TITLES = {  # the engines' truth.json titles
    "punbb-topic-2.html": "Thread 01: How do I paginate? 如何分页？",
    "punbb-topic-3.html": "Thread 02: Encoding problems 编码问题",
    "punbb-topic-3-page-2.html": "Thread 02: Encoding problems 编码问题",
    "punbb-topic-13-page-5.html": "Thread 12: Dates and time zones 日期与时区",
    "usebb-topic-3.html": "Thread 02: Encoding problems 编码问题",
    "usebb-topic-6-page-2.html": "Thread 05: How do I paginate? 如何分页？",
}


def _page(name: str):
    url = BASES[name.split("-")[0]] + URLS[name]
    return parse((FOLDER / name).read_text(encoding="utf-8"), url), url


@pytest.mark.parametrize("name", sorted(TITLES))
def test_the_heading_title_leaves_out_the_page_board_and_site(name: str) -> None:
    root, _ = _page(name)
    assert heading_title(root) == TITLES[name]


@pytest.mark.parametrize("engine", ["punbb", "usebb"])
def test_a_thread_title_is_the_same_on_every_page_of_its_thread(engine: str) -> None:
    """Learned with no profile from the engine's thread pages (page 1 and later pages)."""
    pages = [_page(name) for name in sorted(TITLES) if name.startswith(engine)]
    template = Template(host=BASES[engine], posts=PostRules(record="//body"),
                        thread_url=r"id=(?P<tid>\d+)",
                        title=learn_title(pages))
    titles = {name: read_thread(template, root)["title"]
              for name, (root, _) in zip(sorted(n for n in TITLES if n.startswith(engine)),
                                         pages, strict=True)}
    assert titles == {name: TITLES[name] for name in titles}


def test_a_title_read_from_title_drops_its_page_mark() -> None:
    shown = "Thread 02: Encoding problems 编码问题 (Page 2) — My PunBB forum"
    assert strip_title(shown, [" — My PunBB forum"]) == "Thread 02: Encoding problems 编码问题"
