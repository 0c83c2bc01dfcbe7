"""Each thread's first page and each board page is asked for under one URL form."""

from crawler.learn.forms import Asked, shortest_per_thread


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
    assert asked.board("http://f/conversations/board-1")
    assert not asked.board("http://f/conversations/board-1/")
    assert asked.board("http://f/conversations/board-1?page=2")
    assert asked.board("http://f/conversations/board-2/")


def test_the_shortest_form_of_each_thread_is_kept():
    links = [("http://f/9-slug/last", "9"), ("http://f/9-slug/", "9"), ("http://f/9-slug", "9"),
             ("http://f/t/a/12/last/", "12"), ("http://f/t/a/12/", "12"), ("http://f/x", None)]
    assert shortest_per_thread(links) == {"http://f/9-slug", "http://f/t/a/12/"}
