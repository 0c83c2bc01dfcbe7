"""Links a reader does not follow on Q&A sites and list archives (crawler/learn/links.py).

Pages captured from real engines (``tests/fixtures/real-unprofiled``; Askbot's question is
``record_classes/askbot-question-1.html``):

* Question2Answer 1.8: each answer links its permalink ``?show=N#aN`` (the same question page
  again) and the ask form ``/ask``, ``/ask?cat=N``;
* Askbot 0.13: each answer links ``?answer=N#post-id-N`` (the same page again), its revisions
  (``/answers/N/revisions/``), the members' badges, the ask form and the list under every sort
  order (``/questions/scope:all/sort:votes-desc/page:1/``);
* HyperKitty 1.3 (a Mailman 3 list archive): the list links its mbox downloads
  (``export/….mbox.gz``) and a new-thread form; its months without mail link only the month
  navigation that the list page showed already.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crawler.learn.dom import parse
from crawler.learn.links import follow_links
from crawler.learn.strategy import LearnedForum

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PAGES = FIXTURES / "real-unprofiled"
Q2A = "http://127.0.0.1:18126/113/thread-10-encoding-problems-%E7%BC%96%E7%A0%81%E9%97%AE%E9%A2%98"
ASKBOT = "http://127.0.0.1:18127/question/1/thread-01-how-do-i-paginate-ru-he-fen-ye/"
LIST = "http://127.0.0.1:18128/hyperkitty/list/general@lists.lab.example/"


def _links(name: str, url: str) -> tuple[str, list[str]]:
    html = (PAGES / name).read_text(encoding="utf-8")  # name may reach another fixture folder
    return html, follow_links(parse(html, url), url)


@pytest.mark.parametrize(("name", "url", "shown", "left", "kept"), [
    ("q2a-1.8-question.html", Q2A, ["?show=114#a114", "/ask?cat="],
     ["?show=", "/ask"], ["/general-discussion", "/questions"]),
    ("../record_classes/askbot-question-1.html", ASKBOT,  # shared with test_qa_records
     ["?answer=2#post-id-2", "/answers/2/revisions/", "/badges/", "/sort:activity-desc/",
      "/questions/ask/"],
     ["?answer=", "/revisions/", "/badges/", "sort:", "/ask/"],
     ["/question/34/thread-04-dates-and-time-zones-ri-qi-yu-shi-qu/"]),
    ("hyperkitty-1.3-list.html", LIST, [".mbox.gz", "/message/new"],
     [".mbox.gz", "/message/new", "/export/"], [LIST + "2024/3/"]),
])
def test_permalinks_forms_and_views_are_not_followed(
        name: str, url: str, shown: list[str], left: list[str], kept: list[str]) -> None:
    html, links = _links(name, url)
    assert all(text in html for text in shown)  # the page does link them
    assert not [link for link in links if any(text in link for text in left)]
    assert all(any(link.endswith(k) for link in links) for k in kept), links


def test_empty_months_of_an_archive_do_not_spend_the_learning_budget() -> None:
    """A list archive shows every month since its first mail; a crawler reaches the months
    that hold threads only after the empty ones. An empty month links nothing new and holds
    no posts: it is not counted, so the site is not given up as "not a forum" on them."""
    forum = LearnedForum("127.0.0.1:18128")
    forum.max_pages = 5
    html, _ = _links("hyperkitty-1.3-list.html", LIST)
    forum.page(LIST, html)
    empty = (PAGES / "hyperkitty-1.3-empty-month.html").read_text(encoding="utf-8")
    for month in range(1, 13):  # the same empty page under twelve months' URLs
        forum.page(f"{LIST}2025/{month}/", empty)
    assert forum.failure is None and forum.passed == 12
    for n in range(4):  # pages that link nothing count: the budget is spent on them
        forum.page(f"{LIST}about/{n}/", "<html><body><p>No posts, no links.</p></body></html>")
    assert forum.failure is not None and "not a forum" in str(forum.failure)
