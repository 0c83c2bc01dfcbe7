"""Credentials (issue 30, items 1, 3, 5, 6): a members-only phpBB board on 127.0.0.1
(tests/login/board.py), crawled with ``scrapy crawl``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import forked
from tests.helpers.crawl import CRAWL_SETTINGS, PROJECT_ROOT, _env
from tests.login.board import PRIVATE, USERS, Board

PASSWORD = USERS["alice"]


def private_items(items):
    return [i for i in items if any(f"t={t}" in json.dumps(i) for t in (201, 202))]


def crawl(board: Board, tmp_path: Path, *, settings=None, args=None, env=None, timeout=120):
    """``scrapy crawl forum`` of the board, forked (:mod:`tests.helpers.forked`): (exit status,
    items, stderr, stats)."""
    out = tmp_path / "items.jl"
    stats_file = tmp_path / "stats.json"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "forum", "-a", f"start_url={board.url}",
           "-o", f"{out}:jsonlines"]
    for name, value in (args or {}).items():
        cmd += ["-a", f"{name}={value}"]
    every = {**CRAWL_SETTINGS, "CRAWLER_STATE_DIR": str(tmp_path / "state"),
             "CRAWLER_STATS_FILE": str(stats_file), **(settings or {})}
    for name, value in every.items():
        cmd += ["-s", f"{name}={value}"]
    proc = forked.run("scrapy", cmd[3:], env={**_env(), **(env or {})}, cwd=PROJECT_ROOT,
                      timeout=timeout)
    items = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    return proc.returncode, items, proc.stderr, stats


def test_credentials_read_the_members_only_board_with_one_login(tmp_path):
    with Board() as board:
        login = json.dumps({board.netloc: {"username": "alice", "password": PASSWORD}})
        status, items, log, stats = crawl(board, tmp_path, settings={"CRAWLER_LOGIN": login})
        posts = board.login_posts
        hits = dict(board.hits)
    assert status == 0, log[-3000:]
    assert private_items(items), "the members-only threads are read"
    assert posts == 1
    assert stats.get("login/posts") == 1
    # the fixture's thread 202 says "You are not authorised to read this forum." to anyone:
    # the session is still logged in, so it is not renewed, and the page is not content
    assert stats.get("outcomes/filtered/login_required") == 1, stats
    assert "login/renewed" not in stats
    assert f"{board.netloc}: 1 URLs stayed closed to alice" in log
    assert not [i for i in items if i.get("title") == "Login"]
    assert all(hits.get((t, "alice")) == 1 for t in PRIVATE), hits
    assert PASSWORD not in log and PASSWORD not in json.dumps(stats)


def test_the_environment_variable_and_spider_arguments(tmp_path):
    with Board() as board:
        login = json.dumps({board.netloc: {"username": "alice", "password": PASSWORD}})
        status, items, log, _ = crawl(board, tmp_path / "env", env={"CRAWLER_LOGIN": login})
        assert status == 0 and private_items(items), log[-3000:]
        status, items, log, _ = crawl(board, tmp_path / "args",
                                      args={"username": "alice", "password": PASSWORD})
        assert status == 0 and private_items(items), log[-3000:]
        assert board.login_posts == 2  # two crawls (two crawl ids), one login each
    assert PASSWORD not in log


def test_a_wrong_password_ends_the_crawl_in_one_line(tmp_path):
    with Board() as board:
        status, items, log, stats = crawl(board, tmp_path, args={"username": "alice",
                                                                 "password": "not-it-42"})
        posts = board.login_posts
        hits = dict(board.hits)
    assert status == 2, log[-3000:]
    last = log.strip().splitlines()[-1]
    assert last.startswith(f"error: login to {board.netloc} as alice failed: You have specified "
                           "an incorrect password."), last
    assert items == []
    assert posts == 1
    assert not [t for (t, _user) in hits if t in PRIVATE]
    assert "not-it-42" not in log and "not-it-42" not in json.dumps(stats)


def test_bad_credentials_settings_never_show_the_value(tmp_path):
    with Board() as board:
        status, items, log, _ = crawl(board, tmp_path, settings={"CRAWLER_LOGIN": '{"x": secret-pw'})
    assert status == 2 and items == []
    assert "secret-pw" not in log
    assert log.strip().splitlines()[-1].startswith("error: CRAWLER_LOGIN is not JSON")


@pytest.mark.parametrize("redirect", [False, True], ids=["login-page", "redirected-to-login"])
def test_an_expired_session_is_renewed_once(tmp_path, redirect):
    # a 403 login page (the spider never sees it), or a redirect to the login page: the
    # sessions end when the crawl reaches the first board (before the members-only one); the
    # page asked for is fetched again after the renewal, not the login page
    with Board(denial_status=403, redirect_guests=redirect) as board:
        login = json.dumps({board.netloc: {"username": "alice", "password": PASSWORD}})
        original = board._get
        expired = []

        def expire_at_first_board(handler):
            if handler.path.startswith("/viewforum.php?f=2") and not expired:
                expired.append(True)
                board.expire_sessions()
            original(handler)

        board._get = expire_at_first_board
        status, items, log, stats = crawl(board, tmp_path, settings={"CRAWLER_LOGIN": login})
        posts = board.login_posts
    assert status == 0, log[-3000:]
    assert posts == 2, "one login, one renewal"
    assert stats.get("login/renewed") == 1
    assert private_items(items)
    assert stats.get("outcomes/filtered/login_required") == 1, stats  # thread 202, as above


def test_a_403_login_page_without_credentials_is_its_own_outcome(tmp_path):
    with Board(denial_status=403) as board:
        status, items, log, stats = crawl(board, tmp_path)
    assert status == 0
    assert stats["outcomes/filtered/login_required"] == 1, stats
    assert "outcomes/fetched/403" not in stats
    assert "1 URLs need a login" in log


def test_a_login_form_with_a_captcha_stops_with_a_clear_line(tmp_path):
    from tests.login.board import LOGIN_PAGE

    captcha = LOGIN_PAGE.replace('<input type="hidden" name="sid"',
                                 '<dl><dd><input type="text" name="confirm_code" class="captcha" />'
                                 '<input type="hidden" name="g-recaptcha-response" value="" /></dd></dl>'
                                 '<input type="hidden" name="sid"')
    with Board(login_page=captcha) as board:
        status, items, log, _ = crawl(board, tmp_path, args={"username": "alice", "password": PASSWORD})
        posts = board.login_posts
    assert status == 2 and items == [] and posts == 0
    assert "the login form asks a CAPTCHA or a question (g-recaptcha-response)" in log.strip().splitlines()[-1]
