"""Which links a forum with no profile is followed by (:mod:`crawler.learn.links`): action
links are told by the URL's structure (a verb as a route word, a script's name or an action
key's value), ``rel=nofollow`` and the page's form targets, never by a site's name."""

from __future__ import annotations

import pytest

from crawler.learn.dom import parse
from crawler.learn.links import Frontier, follow_links, is_action

ACTIONS = [
    "/?thread-create-3.htm",                      # a route in the query
    "/posting.php?mode=reply&t=3",                # an action key's value
    "/index.php?action=post;topic=3.0",
    "/forum.php?mod=post&action=newthread&fid=2",
    "/newreply.php?tid=3",                        # a script named by its verb
    "/topic/new/",                                # a verb as a path segment
    "/forum/3/topic/create/",
    "/comment/3/publish/",
    "/t/42/quote/7",
    "/post-reply/3",                              # verb and route noun
    "/markread.php?fid=2",
    "/index.php?action=markasread;sa=all",
    "/viewtopic.php?t=3&view=print",
    "/accounts/login/?next=/topic/3/",
    "/search/?q=fan",
    "/member/register/",
]
PAGES = [
    "/showthread.php?tid=3&page=2",
    "/index.php?topic=3.15",
    "/viewtopic.php?t=3&start=10",
    "/forum.php?mod=viewthread&tid=3&page=2",
    "/topic/12/how-to-reply-to-posts-in-a-thread",  # a title may hold a verb
    "/t/new-user/12",                                # a short slug too
    "/forum/web-scraping-2/topic/thread-02-encoding-2/?page=3",
    "/?forum-1.htm",
    "/?thread-12-2.htm",
    "/threads/11/?page=2",
    "/read.php?12,3",
]


@pytest.mark.parametrize("url", ACTIONS)
def test_action_urls_are_told_by_their_structure(url: str) -> None:
    assert is_action(url)


@pytest.mark.parametrize("url", PAGES)
def test_pages_to_read_are_not_actions(url: str) -> None:
    assert not is_action(url)


def test_nofollow_form_targets_actions_and_permalinks_are_left_out() -> None:
    page = parse(
        "<html><body>"
        "<a href='/topic/3/?page=2'>2</a>"
        "<a href='/topic/4/'>Another thread</a>"
        "<a href='/who-liked/9/' rel='noopener nofollow'>who liked</a>"
        "<a href='/topic/3/answer-box/'>Answer</a>"
        "<form method='post' action='/topic/3/answer-box/'><textarea name='m'></textarea></form>"
        "<form method='get' action='/topic/3/'><select name='page'></select></form>"
        "<a href='/topic/3/reply/'>Reply</a><a href='/?thread-create-1.htm'>New thread</a>"
        "<a href='/viewtopic.php?p=104#p104'>#7</a><a href='/topic/3/?post=9'>permalink</a>"
        "<a href='/viewtopic.php?id=3&amp;p=2'>2</a>"
        "</body></html>", "http://forum.test/topic/3/")
    assert follow_links(page, "http://forum.test/topic/3/") == [
        "http://forum.test/topic/3/?page=2", "http://forum.test/topic/4/",
        "http://forum.test/viewtopic.php?id=3&p=2"]  # a page: it names the thread


def test_frontier_asks_for_each_thread_once_and_spends_its_budget() -> None:
    frontier = Frontier(budget=2)
    assert frontier.first_time("12", "http://f.test/topic/12/some-title")
    assert frontier.first_time("12", "http://f.test/topic/12/some-title#p3")  # the same URL
    assert not frontier.first_time("12", "http://f.test/topic/12")  # another URL form
    assert frontier.first_time(None, "http://f.test/about")
    assert frontier.read_elsewhere("12", "http://f.test/topic/12")
    assert not frontier.read_elsewhere("12", "http://f.test/topic/12/some-title")
    assert not frontier.read_elsewhere("13", "http://f.test/topic/13")
    assert [frontier.unsure() for _ in range(3)] == [True, True, False]
