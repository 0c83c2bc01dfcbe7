"""A thread page without a trail names its board by one link (crawler/learn/thread.py:
board_link), on pages captured from esoTalk, whose threads link their channel once."""

from __future__ import annotations

import re
from pathlib import Path

from crawler.learn.dom import element_text, parse
from crawler.learn.thread import board_link, learn_breadcrumbs

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "real-unprofiled"
BASE = "http://127.0.0.1:18123/"


def _pages() -> list:
    return [(parse((PAGES / name).read_text(encoding="utf-8"), BASE + slug), BASE + slug)
            for name, slug in [("esotalk-1.0-thread-a.html", "14-thread-12-dates"),
                               ("esotalk-1.0-thread-b.html", "13-thread-11-share")]]


def _is_board(href: str) -> bool:
    return re.search(r"/conversations/board-\d+$", href) is not None


def test_the_one_link_to_a_board_is_the_trail_of_a_page_without_one() -> None:
    pages = _pages()
    assert learn_breadcrumbs(pages) is None
    expr = board_link(pages, _is_board)
    assert expr is not None
    names = [[element_text(a) for a in root.xpath(expr)] for root, _ in pages]
    assert names == [["Off Topic 灌水区"], ["Web Scraping 爬虫技术"]]


def test_a_link_to_one_board_from_every_thread_names_no_board() -> None:
    # Both threads link only the same board (a menu's link): it says nothing of either thread.
    assert board_link(_pages(), lambda href: href.endswith("/conversations/board-3")) is None
    assert board_link(_pages()[:1], _is_board) is None  # one page shows no class
