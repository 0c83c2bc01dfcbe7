"""Issue 39, item 5: a page is a login wall or a bot wall by its structure, never by a
sentence in a post or a thread title. The captured members' pages of the real engines
(tests/login/pages), with each engine's own denial texts and the bot walls' words put into
a post and into a thread title, are still content; the captured walls still walls."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import lxml.html
import pytest
from scrapy.http import HtmlResponse

from crawler.login import CHALLENGE, LOGIN_REQUIRED
from crawler.login.engines import form_of_engine
from crawler.login.pages import is_challenge, wall_of

PAGES = Path(__file__).parent / "pages"
MEMBERS = sorted(p for p in PAGES.glob("*/members-*.html"))
#: what bot walls say, as a post or a title may quote it
BOT_WORDS = ("Just a moment...", "Checking your browser before accessing the forum",
             "window._cf_chl_opt = {}; /cdn-cgi/challenge-platform/h/b/orchestrate",
             "https://ddos-guard.net/check __ddg1_ _Incapsula_Resource",
             "Attention Required! | Cloudflare", "DDoS-Guard", "Sucuri WebSite Firewall")


def quoting(path: Path, words: str) -> HtmlResponse:
    """The page with *words* in its longest text (a post's) and in its title and its first
    thread link (a thread's title)."""
    tree = lxml.html.fromstring(path.read_bytes().decode("utf-8"))
    texts = [e for e in tree.iter() if isinstance(e.tag, str) and e.tag not in (
        "script", "style", "title") and (e.text or "").strip()]
    post = max(texts, key=lambda e: len(e.text.strip()))
    post.text = f"{post.text} As the board said: {words} "
    for title in tree.iter("title"):
        title.text = f"{words} - {title.text or ''}"
    for link in tree.iter("a"):
        if any(k in (link.get("href") or "") for k in ("topic", "thread", "tid=", "t=")):
            link.text = words
            break
    body = lxml.html.tostring(tree, encoding="unicode", doctype="<!DOCTYPE html>")
    return HtmlResponse("http://127.0.0.1/page", body=body.encode(), encoding="utf-8")


@pytest.mark.parametrize("path", MEMBERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_post_or_title_quoting_the_denial_is_no_login_wall(path):
    login = form_of_engine(path.parent.name.split("-")[0])
    assert login.denied or path.parent.name.startswith("wordpress")
    for words in login.denied:
        response = quoting(path, words)
        assert words in response.text
        assert wall_of(response, login) is None, words


@pytest.mark.parametrize("path", MEMBERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_post_or_title_quoting_a_bot_wall_is_no_challenge(path):
    login = form_of_engine(path.parent.name.split("-")[0])
    for words in BOT_WORDS:
        response = quoting(path, words)
        assert not is_challenge(response), words
        assert wall_of(response, login) is None, words


@pytest.mark.parametrize("path", sorted(PAGES.glob("*/login-required-*.html")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_engines_denials_are_still_walls(path):
    login = form_of_engine(path.parent.name.split("-")[0])
    response = HtmlResponse("http://127.0.0.1/page", body=path.read_bytes(), encoding="utf-8")
    assert wall_of(response, login) == LOGIN_REQUIRED


def test_the_bot_walls_are_still_challenges():
    cloudflare = ("<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>"
                  "<script>window._cf_chl_opt={cvId: '3'};</script></body></html>")
    response = HtmlResponse("http://x/", status=403, body=cloudflare.encode(), encoding="utf-8")
    assert wall_of(response, None) == CHALLENGE
    sucuri = "<html><head><title>Sucuri WebSite Firewall - Access Denied</title></head></html>"
    assert is_challenge(HtmlResponse("http://x/", status=403, body=sucuri.encode()))
    assert not is_challenge(HtmlResponse("http://x/", status=200, body=sucuri.encode()))


def test_a_crawl_reads_threads_and_boards_that_quote_the_denial(tmp_path):
    # the phpBB board (tests/login/board.py), guests: a post of thread 101 and the title of
    # thread 102 in board 2's listing quote phpBB's "not authorised" sentence; every thread
    # is read all the same, as in the crawl of the unchanged board
    from tests.helpers.crawl import run_crawl
    from tests.login.board import Board

    said = "You are not authorised to read this forum."

    def quoting_board(board):
        original = board.site.respond

        def respond(*args, **kwargs):
            response = original(*args, **kwargs)
            body = response.body.replace(b"Welcome to the thread", said.encode())
            body = body.replace("新人报到".encode(), f"新人报到: {said}".encode())
            return dataclasses.replace(response, body=body)

        board.site.respond = respond
        return board

    with Board() as board:
        plain = run_crawl("forum", board.url, tmp_path / "plain.jl")
    with quoting_board(Board()) as board:
        quoted = run_crawl("forum", board.url, tmp_path / "quoted.jl")
    assert said in str(quoted.items)
    assert len(quoted.items) == len(plain.items), quoted.log[-3000:]
    assert quoted.stats.get("outcomes/filtered/login_required") == \
        plain.stats.get("outcomes/filtered/login_required")
