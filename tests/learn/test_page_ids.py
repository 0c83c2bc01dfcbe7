"""A thread's id written in its pages when its URLs name it by a slug (crawler/learn/page_ids.py).

Pages captured from real engines (``tests/fixtures/real-unprofiled``): bbPress writes the
topic's number in the page's class (``postid-119``), wpForo in a data attribute
(``data-topicid="10"``); their URLs hold only the title's slug. The learner finds the slot
that holds one number per thread, the same on its pages and different between threads."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawler.learn.dom import parse
from crawler.learn.learner import Page, learn_site
from crawler.learn.page_ids import learn_page_id, page_thread_id
from crawler.learn.template import Template

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "real-unprofiled"
BB = "http://127.0.0.1:18117/forums/topic/"
WPF = "http://127.0.0.1:18118/community/"

CASES = [
    ("bbpress", [("bbpress-2.6-topic.html", BB + "thread-10-encoding-problems/", "119"),
                 ("bbpress-2.6-topic-b.html", BB + "thread-02-encoding-problems/", "11")]),
    # Two topics of one board: the board's number (``data-forumid``) is the same on both.
    ("wpforo", [("wpforo-2-topic.html", WPF + "general-discussion/thread-10-encoding-problems/",
                 "10"),
                ("wpforo-2-topic-b.html",
                 WPF + "general-discussion/thread-04-dates-and-time-zones/", "4")]),
]


def _pages(captured: list[tuple[str, str, str]]) -> list[Page]:
    return [Page(url, parse((PAGES / name).read_text(encoding="utf-8"), url))
            for name, url, _ in captured]


@pytest.mark.parametrize(("engine", "captured"), CASES)
def test_the_learner_reads_the_thread_number_a_slug_url_lacks(
        engine: str, captured: list[tuple[str, str, str]]) -> None:
    pages = _pages(captured)
    template = learn_site(pages)
    assert isinstance(template, Template), template
    assert template.thread_id(pages[0].url) != "119"  # the URL alone gives no database id
    rule = template.thread_id_in_page
    assert rule is not None, engine
    assert [page_thread_id(rule, p.root) for p in pages] == [want for *_, want in captured]
    assert Template.from_json(template.to_json()).thread_id_in_page == rule


def test_numbered_thread_urls_need_no_page_rule() -> None:
    pages = _pages(CASES[0][1])
    template = learn_site(pages)
    assert isinstance(template, Template)
    template.thread_url = r"^/forums/topic/thread-(?P<tid>\d+)-"  # as if the URLs held its id
    renamed = [("/forums/topic/thread-7-a/", pages[0].root), ("/forums/topic/thread-9-b/",
                                                                pages[1].root)]
    assert learn_page_id(template, renamed) is None


def test_a_number_shared_by_every_thread_is_no_thread_id() -> None:
    # wpForo's shortlink names the forum's own WordPress page (?p=4) on every topic, and its
    # board's number is the same for two topics of one board: neither is a thread's id. Two
    # pages of one thread alone prove nothing either.
    pages = _pages(CASES[1][1])
    template = learn_site(pages)
    assert isinstance(template, Template)
    assert "topicid" in str(template.thread_id_in_page)
    same = [(pages[0].url, pages[0].root), (pages[0].url + "page/2/", pages[0].root)]
    assert learn_page_id(template, same) is None
