"""Each thread's first page and each board page is asked for under one URL form."""

import re

from crawler.learn.forms import Asked, shortest_first, shortest_per_thread, without_views


def test_a_thread_is_asked_under_its_first_form_only():
    asked = Asked()
    assert asked.thread("9", "http://f/9-slug")
    assert asked.thread("9", "http://f/9-slug")  # the same URL: the dupefilter decides
    assert not asked.thread("9", "http://f/9-slug/")
    assert not asked.thread("9", "http://f/9-slug/last")
    assert asked.thread("10", "http://f/10-other/")
    assert asked.thread(None, "http://f/about")


def test_a_board_is_asked_whatever_its_trailing_slash():
    asked = Asked()
    assert asked.page("http://f/conversations/board-1")
    assert asked.page("http://f/conversations/board-1")
    assert not asked.page("http://f/conversations/board-1/")
    assert asked.page("http://f/conversations/board-1?page=2")
    assert asked.page("http://f/conversations/board-2/")


def test_the_shortest_form_of_each_thread_is_kept():
    links = [("http://f/9-slug/last", "9"), ("http://f/9-slug/", "9"), ("http://f/9-slug", "9"),
             ("http://f/t/a/12/last/", "12"), ("http://f/t/a/12/", "12"), ("http://f/x", None)]
    assert shortest_per_thread(links) == {"http://f/9-slug", "http://f/t/a/12/"}


def test_a_view_beside_every_thread_is_not_a_page():
    links = ["http://f/9-a", "http://f/9-a/last", "http://f/9-a/unread", "http://f/9-a/p2",
             "http://f/10-b/", "http://f/10-b/last/", "http://f/10-b/unread", "http://f/10-b/p2",
             "http://f/11-c", "http://f/11-c/feed", "http://f/u/ann", "http://f/u/ann/x?y=1"]
    assert without_views(links) == [
        "http://f/9-a", "http://f/9-a/p2", "http://f/10-b/", "http://f/10-b/p2",
        "http://f/11-c", "http://f/11-c/feed",  # one thread's word: maybe a page of its own
        "http://f/u/ann", "http://f/u/ann/x?y=1"]


def test_pages_kept_while_learning_are_read_shortest_form_first():
    """Phorum's board list links a thread and its last post (``read.php?2,75,83``); both are
    fetched while learning, in whatever order the server answers: the plain form is read."""
    def tid(url: str) -> str | None:
        return m.group(1) if (m := re.search(r"read\.php\?2,(\d+)", url)) else None

    urls = ["http://f/read.php?2,75,83", "http://f/read.php?2,12", "http://f/read.php?2,75",
            "http://f/list.php?2"]
    assert shortest_first(urls, tid) == ["http://f/read.php?2,75", "http://f/read.php?2,75,83",
                                         "http://f/read.php?2,12", "http://f/list.php?2"]
