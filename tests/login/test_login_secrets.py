"""Issue 39: what a credentialed crawl keeps to itself (items 2, 3), and a corrected password
tried at once (item 14). A members-only board on 127.0.0.1 (tests/login/board.py), crawled
with ``scrapy crawl`` as a user does."""

from __future__ import annotations

import json

from tests.login.board import USERS, Board
from tests.login.test_login import crawl, private_items

PASSWORD = USERS["alice"]


def test_a_corrected_password_is_tried_at_once(tmp_path):
    # the same crawl (same state folder, same Redis): the wrong password's failure is
    # remembered for a minute, but only for those credentials
    with Board() as board:
        status, _, log, _ = crawl(board, tmp_path, args={"username": "alice",
                                                         "password": "not-it-42"})
        assert status == 2, log[-3000:]
        status, items, log, _ = crawl(board, tmp_path, args={"username": "alice",
                                                             "password": PASSWORD})
        posts = board.login_posts
    assert status == 0, log[-3000:]
    assert posts == 2, "the corrected password is sent"
    assert private_items(items)
    assert "not-it-42" not in log and PASSWORD not in log
