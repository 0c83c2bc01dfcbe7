"""Issue 39, item 1: a login form is sent only to the forum's own origin, over the scheme the
forum was given; a form whose ``action`` points elsewhere ends the crawl in one line (exit 2)
and the password never leaves."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.login.board import LOGIN_PAGE, USERS, Board
from tests.login.test_login import crawl

PASSWORD = USERS["alice"]


class Catcher:
    """Another origin on 127.0.0.1 that records every request body it is sent."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        catcher = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                catcher.bodies.append(self.rfile.read(length))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def netloc(self) -> str:
        return f"127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Catcher:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("action", ["http://{other}/ucp.php?mode=login",
                                    "https://{board}/ucp.php?mode=login"],
                         ids=["another-host", "another-scheme"])
def test_a_login_form_pointing_off_site_is_not_sent(tmp_path, action):
    with Catcher() as other, Board() as board:
        target = action.format(other=other.netloc, board=board.netloc)
        board.login_page = LOGIN_PAGE.replace(
            'action="./ucp.php?mode=login&amp;sid={sid}"', f'action="{target}"')
        login = json.dumps({board.netloc: {"username": "alice", "password": PASSWORD}})
        status, items, log, _ = crawl(board, tmp_path, settings={"CRAWLER_LOGIN": login})
        posts = board.login_posts
    assert status == 2, log[-3000:]
    last = log.strip().splitlines()[-1]
    assert last.startswith(f"error: login to {board.netloc} as alice failed: the login form at "),\
        last
    assert "not sent" in last
    assert posts == 0 and not other.bodies
    assert PASSWORD not in log and items == []


def test_origins():
    from crawler.login.forms import origin_of

    assert origin_of("http://Forum.example/x") == origin_of("http://forum.example:80/login")
    assert origin_of("https://forum.example/") != origin_of("http://forum.example/")
    assert origin_of("https://forum.example/") != origin_of("https://evil.example/")
    assert origin_of("https://forum.example/") != origin_of("https://forum.example:8443/")
