"""Issue 39: what a credentialed crawl keeps to itself (items 2, 3), and a corrected password
tried at once (item 14). A members-only board on 127.0.0.1 (tests/login/board.py), crawled
with ``scrapy crawl`` as a user does."""

from __future__ import annotations

import base64
import json
import stat
import zipfile
import zlib
from pathlib import Path

from tests.login.board import USERS, Board
from tests.login.proxy import Proxy
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


def _texts(root: Path):
    """(name, bytes) of every file under *root*, gzip members and WACZ entries opened."""
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.suffix == ".wacz":
            with zipfile.ZipFile(path) as z:
                for name in z.namelist():
                    raw = z.read(name)
                    yield f"{path}!{name}", _gunzip(raw) if name.endswith(".gz") else raw
        else:
            yield str(path), _gunzip(data) if data[:2] == b"\x1f\x8b" else data


def _gunzip(data: bytes) -> bytes:
    out, rest = [], data
    while rest:  # every member (a WARC file is one per record)
        d = zlib.decompressobj(zlib.MAX_WBITS | 16)
        out.append(d.decompress(rest))
        rest = d.unused_data
    return b"".join(out)


def test_a_credentialed_crawl_writes_no_secret_and_keeps_its_files_private(tmp_path):
    with Proxy("proxy-user", "Proxy-Secret-77") as proxy, Board() as board:
        login = json.dumps({board.netloc: {"username": "alice", "password": PASSWORD}})
        warcs = tmp_path / "warc"
        env = {"http_proxy": f"http://proxy-user:Proxy-Secret-77@127.0.0.1:{proxy.port}",
               "no_proxy": "", "NO_PROXY": ""}
        status, items, log, _ = crawl(
            board, tmp_path, env=env, settings={
                "CRAWLER_LOGIN": login, "CRAWLER_WARC_DIR": str(warcs),
                "LOG_FILE": str(tmp_path / "crawl.log"), "LOG_LEVEL": "DEBUG"})
        sessions = [sid for sid, (user, _) in board.sessions.items() if user == "alice"]
        passed = proxy.passed
    log += (tmp_path / "crawl.log").read_text()
    assert status == 0, log[-3000:]
    assert private_items(items) and passed and sessions
    (tmp_path / "crawl.log").write_text(log)
    from crawler.archive.wacz import pack

    pack(warcs, tmp_path / "crawl.wacz")
    basic = base64.b64encode(b"proxy-user:Proxy-Secret-77").decode()
    secrets = [PASSWORD, "Proxy-Secret-77", basic, *sessions]
    found = [(name, secret) for name, data in _texts(tmp_path) for secret in secrets
             if secret.encode() in data]
    assert not found, found
    # the crawl's state (the embedded Redis's AOF) and archive: its user's only
    (crawl_state,) = (tmp_path / "state").iterdir()
    state = [crawl_state, *crawl_state.rglob("*")]
    assert any(p.name.endswith(".aof") for p in state), state
    for path in [*state, warcs, *warcs.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path


def test_a_session_that_ends_at_every_members_page_is_renewed_once_then_the_site_stops(
        tmp_path):
    # issue 39, item 16: the board ends every session as soon as one of its two members-only
    # threads is asked for (a renewal never helps): one renewal, then no login POST per page
    with Board(denial_status=403) as board:
        original = board._get

        def expire_at_members_pages(handler):
            if handler.path.split("&")[0] in ("/viewtopic.php?t=201", "/viewtopic.php?t=202"):
                board.expire_sessions()
            original(handler)

        board._get = expire_at_members_pages
        login = json.dumps({board.netloc: {"username": "alice", "password": PASSWORD}})
        status, items, log, stats = crawl(board, tmp_path, settings={"CRAWLER_LOGIN": login})
        posts = board.login_posts
    assert status == 0, log[-3000:]
    assert posts == 2, "the login and one renewal"
    assert stats.get("login/renewed") == 1 and stats.get("login/stopped") == 1
    assert f"{board.netloc}: the session ended again" in log
    assert not private_items(items)
