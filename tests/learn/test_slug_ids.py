"""The thread id of slug URLs whose title holds numbers too (crawler/learn/slug_ids.py)."""

from __future__ import annotations

import re

import pytest

from crawler.learn.urls import id_position, id_regex_for, path_query

BASE = "http://forum.test"


def _ids(urls: list[str], page_slot=None) -> list[str]:
    """The ids the regex learned on ``urls`` reads from each of them."""
    regex = id_regex_for(urls[0], page_slot, "tid", {}, id_position(urls, page_slot))
    assert regex is not None
    return [re.search(regex, path_query(url))["tid"] for url in urls]


@pytest.mark.parametrize(("urls", "ids"), [
    # esoTalk: the id opens the segment, the title's number follows (one thread's pages).
    (["/14-thread-12-dates-and-time-zones", "/14-thread-12-dates-and-time-zones"], ["14", "14"]),
    (["/3-thread-01-how-do-i-paginate"], ["3"]),
    # Several threads: the place that has a number in every URL, not the title's year.
    (["/123-title-with-2024-in-it", "/124-another-title", "/7-top-10-tips"],
     ["123", "124", "7"]),
    # The id at the end after the title (XenForo-like), titles with and without numbers.
    (["/threads/top-10-tips.123/", "/threads/hello.124/", "/threads/2024-plans.125/"],
     ["123", "124", "125"]),
    # The id closes the segment; a title opening with a year does not make the year the id.
    (["/2024-review-of-tools-123", "/hello-world-124", "/top-10-tips-125"],
     ["123", "124", "125"]),
    # A bare segment after the slug.
    (["/t/title-2/123", "/t/other-title/124"], ["123", "124"]),
])
def test_the_id_is_the_number_in_a_fixed_place_of_every_thread_url(urls: list[str],
                                                                    ids: list[str]) -> None:
    assert _ids([BASE + u for u in urls]) == ids


def test_the_page_is_not_the_id_and_a_first_page_offset_is_not_either() -> None:
    # SMF: topic=<id>.<offset>; the offset slot is the page.
    assert _ids([f"{BASE}/index.php?topic=5.0", f"{BASE}/index.php?topic=6.0"]) == ["5", "6"]
    urls = [f"{BASE}/14-thread-12-dates/p2", f"{BASE}/14-thread-12-dates/p3"]
    assert _ids(urls, (("p", 2), 0)) == ["14", "14"]


def test_no_id_is_read_from_inside_a_percent_escape() -> None:
    # A slug of escaped non-Latin words (WordPress, Django): the digits of ``%98`` are no id,
    # and a thread whose slug holds no number is not matched as another's id.
    urls = [f"{BASE}/forums/topic/thread-7-%E5%A6%82%E4%BD%95/",
            f"{BASE}/forums/topic/thread-9-%E6%97%A5%E6%9C%9F/"]
    regex = id_regex_for(urls[0], None, "tid", {}, id_position(urls, None))
    assert regex is not None
    assert [re.search(regex, path_query(u))["tid"] for u in urls] == ["7", "9"]
    assert re.search(regex, path_query(f"{BASE}/forums/topic/%E5%98%88-%E4%BD%95/")) is None
