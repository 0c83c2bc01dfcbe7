"""Links that view a thread through another script are not followed
(crawler/learn/links.py: views_a_thread), measured on real pages: each Beehive post linked a
frameset and two font-size switches, 625 requests for 171 posts (now under 100)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawler.learn.links import views_a_thread
from crawler.learn.strategy import LearnedForum
from crawler.learn.template import Paging, PostRules, Template

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "real-unprofiled"


@pytest.mark.parametrize(("hint", "url", "views"), [
    # Beehive: a frameset around a post, a font-size switch (thread URLs: messages.php?msg=).
    ("msg=", "http://h/index.php?webtag=LAB&msg=3.2", True),
    ("msg=", "http://h/user_font.php?webtag=LAB&msg=3.1&fontsize=larger", True),
    # MyBB and SMF (lab engines): print views of a thread.
    ("tid=", "http://h/printthread.php?tid=3", True),
    ("topic=", "http://h/index.php?action=printpage;topic=3.0", True),
    # Not views of thread 3: a board sharing the key (FluxBB), thread 31, another key, a path.
    ("id=", "http://h/viewforum.php?id=2", False),
    ("tid=", "http://h/printthread.php?tid=31", False),
    ("t=", "http://h/viewforum.php?f=2&start=3", False),
    ("topic/", "http://h/forum/topic/3/print", False),
])
def test_a_link_naming_the_page_s_thread_by_its_key_views_that_thread(hint: str, url: str,
                                                                       views: bool) -> None:
    assert views_a_thread(hint, url, "http://h/showthread.php?tid=3", "3") is views


@pytest.mark.parametrize(("here", "url", "views"), [
    # Beehive: a frameset around post 3.2 and its frames (thread URLs: messages.php?msg=).
    ("http://h/index.php?webtag=LAB&msg=3.2", "http://h/discussion.php?webtag=LAB&msg=3.2", True),
    ("http://h/index.php?webtag=LAB&msg=3.2", "http://h/thread_list.php?webtag=LAB&msg=3.2",
     True),
    # A listing's own next page keeps its script; a page naming no thread views none.
    ("http://h/index.php?webtag=LAB&msg=3.2", "http://h/index.php?webtag=LAB&msg=3.2&p=2", False),
    ("http://h/thread_list.php?webtag=LAB", "http://h/index.php?webtag=LAB&msg=3.2", False),
])
def test_a_page_that_names_a_thread_links_views_of_it(here: str, url: str, views: bool) -> None:
    assert views_a_thread("msg=", url, here, None) is views


def test_a_frameset_thread_page_follows_no_view_of_its_posts() -> None:
    url = "http://127.0.0.1:18115/messages.php?msg=10.1&webtag=LAB"
    template = Template(
        host="127.0.0.1:18115",
        posts=PostRules(record="//div[contains(concat(' ', normalize-space(@class), ' '),"
                               " ' message ')]"),
        thread_url=r"^/messages\.php\?(?=(?:.*[?&;])?webtag=LAB(?:[&;#]|$))(?:.*[&;])?"
                   r"msg=(?P<tid>\d+)(?:[^0-9]|$)",
        thread_params=["msg", "webtag"],
        paging=Paging(kind="param", param="msg", regex=r"[?&;,]msg=\d+\.(\d+)(?:[&;,#]|$)",
                      step=20))
    forum = LearnedForum("127.0.0.1:18115", template)
    text = (PAGES / "beehive-1.5-messages.html").read_text(encoding="utf-8")
    assert text.count("index.php?webtag=LAB&amp;msg=10.") >= 2  # a frameset for each post
    assert "user_font.php?webtag=LAB&amp;msg=10.1" in text
    followed = [u for u, _, _ in forum.page(url, text, "thread", {}).follow]
    assert not [u for u in followed if "msg=" in u and "/messages.php" not in u]
