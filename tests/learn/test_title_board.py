"""The board a thread page names only in its ``<title>`` (crawler/learn/thread.py).

Pages captured from real engines (``tests/fixtures/real-unprofiled``): HyperKitty (a Mailman 3
archive) names a thread's list nowhere on the page but in "Topic - List - Site"; wpForo writes
its titles the same way. bbPress writes "Topic - Site": no board there."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawler.learn.dom import parse
from crawler.learn.thread import title_board

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "real-unprofiled"


@pytest.mark.parametrize(("page", "title", "board"), [
    ("hyperkitty-1.3-thread.html", "Thread 10: Encoding problems 编码问题",
     "General Discussion 综合讨论"),
    ("wpforo-2-topic.html", "Thread 10: Encoding problems 编码问题", "General Discussion 综合讨论"),
    ("bbpress-2.6-topic.html", "Thread 10: Encoding problems 编码问题", None),
])
def test_the_board_between_the_topic_and_the_site(page: str, title: str, board: str | None) -> None:
    root = parse((PAGES / page).read_text(encoding="utf-8"), "http://127.0.0.1/")
    assert title_board(root, title) == board


def test_a_title_that_is_not_the_thread_s_names_no_board() -> None:
    root = parse("<html><head><title>Search - Forum - Site</title></head><body></body></html>")
    assert title_board(root, "Thread 10") is None
