"""Pages that are not content (issue 30, item 4): a login page, a "log in first / not
authorised" page and a bot wall are never items; they end as outcomes of their own, and a
site says once how many of its URLs it could not read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scrapy.http import HtmlResponse

from crawler.login import CHALLENGE, LOGIN_REQUIRED
from crawler.login.pages import empty_login_page, has_login_form, is_challenge, wall_of
from crawler.profiles.mybb import MyBB
from crawler.profiles.phpbb import PhpBB
from crawler.profiles.records import PageResult
from crawler.node import outcomes
from tests.helpers.crawl import run_crawl
from tests.login.board import EXPLAIN, LOGIN_PAGE, Board

CAPTURED = Path(__file__).parent / "pages"


def page(body: str, url: str = "http://bbs.example.org/viewforum.php?f=3", status: int = 200):
    return HtmlResponse(url, status=status, body=body.encode(), encoding="utf-8")


def login_page(explain: str = "") -> HtmlResponse:
    return page(LOGIN_PAGE.format(sid="s", token="t", time=1, explain=explain, error=""))


def test_outcome_names_are_the_frontiers():
    assert outcomes.LOGIN_REQUIRED == LOGIN_REQUIRED == "filtered/login_required"
    assert outcomes.CHALLENGE == CHALLENGE == "failed/challenge"


def test_engine_denial_text_is_a_wall():
    assert wall_of(login_page(EXPLAIN), PhpBB.login) == LOGIN_REQUIRED
    # in the engine's message template: phpBB's information page, MyBB's error table
    assert wall_of(page('<div class="panel" id="message"><div class="inner"><h2 class="message-'
                        'title">Information</h2><p>You are not authorised to read this forum.</p>'
                        '</div></div>'), PhpBB.login) == LOGIN_REQUIRED
    assert wall_of(page('<table class="tborder"><tr><td class="thead">Forum</td></tr><tr><td '
                        'class="trow1">You are either not logged in or do not have permission to '
                        'view this page. This could be because</td></tr></table>'),
                   MyBB.login) == LOGIN_REQUIRED
    # the same words in a post: no wall (issue 39, item 5; tests/login/test_false_walls.py)
    assert wall_of(page("<p>You are not authorised to read this forum.</p>"), PhpBB.login) is None
    assert wall_of(login_page(EXPLAIN), None) is None  # no profile: no engine texts


@pytest.mark.parametrize("body", [
    "<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>",
    '<html><body><form id="challenge-form" action="/cdn-cgi/challenge-platform/h/b/orchestrate"></form></body></html>',
    "<html><head><title>DDoS-Guard</title></head><body>Checking your browser</body></html>",
])
def test_bot_walls_are_challenges(body):
    response = page(body, status=503)
    assert is_challenge(response)
    assert wall_of(response, PhpBB.login) == CHALLENGE


def test_a_quick_login_box_on_a_page_with_content_is_content():
    response = login_page()
    assert has_login_form(response)
    assert empty_login_page(response, PageResult()) == LOGIN_REQUIRED
    from crawler.profiles.base import PageCursor, PageKind
    from crawler.profiles.records import Follow
    read = PageResult(follow=[Follow(PageKind.BOARD, PageCursor(url="http://x/viewforum.php?f=2"))])
    assert empty_login_page(response, read) is None
    assert not is_challenge(page("<p>We discuss Cloudflare challenges and DDoS here.</p>"))


def outcomes_of(stats: dict) -> dict:
    return {k: v for k, v in stats.items() if k.startswith("outcomes/")}


@pytest.mark.parametrize("redirect", [False, True], ids=["login-page", "redirected-to-login"])
def test_members_only_board_without_credentials(tmp_path, redirect):
    # the board's page answers the login page itself, or redirects to it (as NodeBB does)
    with Board(redirect_guests=redirect) as board:
        result = run_crawl("forum", board.url, tmp_path / "items.jl")
    urls = [item.get("url", "") for item in result.items]
    assert result.items, "the public boards are read"
    assert not [u for u in urls if "t=201" in u or "t=202" in u or "f=3" in u]
    assert not [i for i in result.items if "Login" in json.dumps(i)[:2000] and i.get("title") == "Login"]
    assert result.stats["outcomes/filtered/login_required"] == 1, outcomes_of(result.stats)
    if not redirect:  # the login page read by the spider: still counted there too, as before
        assert result.stats["forum/soft_404"] == 1
    warnings = [line for line in result.log.splitlines() if "need a login" in line]
    assert len(warnings) == 1, result.log[-3000:]
    assert f"{board.netloc}: 1 URLs need a login" in warnings[0]
    assert board.login_posts == 0
