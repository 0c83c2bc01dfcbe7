"""Thread identity of slug URLs with percent-escapes (crawler/learn/template.py).

Pages captured from real engines (``tests/fixtures/real-unprofiled``): the crawl asks a page
under upper-case escapes (``%E7``, as URL canonicalization writes them) and the page links
its own thread, and its next page, in lower case (``%e7``). Both name one thread."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crawler.learn.dom import parse
from crawler.learn.emit import next_thread_page
from crawler.learn.learner import Page
from crawler.learn.template import Paging, PostRules, Template
from crawler.learn.urls import clean_url, id_position, id_regex_for, path_query
from crawler.learn.walks import later_pages

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "real-unprofiled"

CASES = [
    # bbPress: /forums/topic/<slug>/, pages /page/N/ after the slug.
    ("bbpress-2.6-topic.html",
     "http://127.0.0.1:18117/forums/topic/thread-10-encoding-problems-%e7%bc%96%e7%a0%81"
     "%e9%97%ae%e9%a2%98/",
     r"^/forums/topic/(?P<tid>[^/?#&;.]+)(?:[/?#;&]|$)",
     Paging(kind="path", regex=r"/page/(\d+)(?:[/?#]|$)")),
    # wpForo: /community/<board slug>/<thread slug>/, only a rel=next link learned.
    ("wpforo-2-topic.html",
     "http://127.0.0.1:18118/community/general-discussion-%e7%bb%bc%e5%90%88%e8%ae%a8%e8%ae"
     "%ba/thread-10-encoding-problems-%e7%bc%96%e7%a0%81%e9%97%ae%e9%a2%98/",
     r"^/community/[^/?#&;]+/(?P<tid>[^/?#&;.]+)(?:[/?#;&]|$)",
     Paging(kind="next", next_xpath="//a[@rel='next']")),
]


@pytest.mark.parametrize(("page", "url", "thread_url", "paging"), CASES)
def test_a_thread_linked_in_the_other_escape_case_is_the_same_thread(
        page: str, url: str, thread_url: str, paging: Paging) -> None:
    template = Template(host="127.0.0.1", posts=PostRules(record="//div"),
                        thread_url=thread_url, paging=paging)
    asked = clean_url(url)  # how the crawl writes it: upper-case escapes
    assert asked != url and asked.lower() == url.lower()
    tid = template.thread_id(asked)
    assert tid is not None and tid == template.thread_id(url)
    root = parse((PAGES / page).read_text(encoding="utf-8"), asked)
    nxt = next_thread_page(template, root, asked, tid)
    assert nxt is not None and "/2/" in nxt  # page 2 of this thread, linked in lower case
    assert template.thread_id(nxt) == tid


def test_escapes_only_change_case_and_plain_text_stays() -> None:
    template = Template(host="h", posts=PostRules(record="//div"),
                        thread_url=r"^/t/(?P<tid>[^/?#&;.]+)")
    assert template.thread_id("http://h/t/abc%e5%A6x") == "abc%E5%A6x"
    assert template.thread_id("http://h/t/Some-Title") == "Some-Title"


ELK = "http://127.0.0.1:18125/index.php?topic="


def test_the_id_shares_its_slot_with_the_page_offset_and_post_permalinks() -> None:
    # ElkArte (as SMF): the first threads seen are often post permalinks from the board index.
    urls = [ELK + "12.msg127", ELK + "13.msg132", ELK + "12.0", ELK + "12.10"]
    page_slot = (("q", "topic"), 1)
    assert id_position(urls, page_slot) == (("q", "topic"), 0)
    regex = id_regex_for(urls[0], page_slot, "tid", {}, id_position(urls, page_slot))
    assert regex is not None
    assert [re.search(regex, path_query(u))["tid"] for u in urls] == ["12", "13", "12", "12"]


def test_a_next_link_to_a_first_page_is_the_next_thread_not_a_later_page() -> None:
    template = Template(
        host="127.0.0.1", posts=PostRules(record="//article"),
        thread_url=r"^/index\.php\?(?:.*[&;])?topic=(?P<tid>\d+)(?:[^0-9]|$)",
        thread_params=["topic"],
        paging=Paging(kind="param", param="topic", regex=r"[?&;,]topic=\d+\.(\d+)(?:[&;,#]|$)",
                      step=10, base=0, next_xpath="//link[@rel='next']"))
    pages = [Page(url, parse((PAGES / name).read_text(encoding="utf-8"), url)) for url, name in [
        (ELK + "13.msg132", "elkarte-1.1-topic-permalink.html"),  # one page: next is thread 14
        (ELK + "12.0", "elkarte-1.1-topic.html")]]  # two pages
    assert later_pages(template, pages) == {ELK + "12.10"}
