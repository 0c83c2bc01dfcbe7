"""A members-only phpBB board on 127.0.0.1, for the login tests: a real HTTP server.

The public pages are the phpBB fixture site's (tests/fixtures/sites/phpbb); board 3 and its
threads are members-only: a guest gets phpBB's login page with its "log in first" text (status
``denial_status``), a user logged in gets the page with a logout link. ``ucp.php?mode=login``
serves the login form (hidden ``sid``, ``creation_time``, ``form_token``) and takes its POST as
phpBB does: the form token must match the session, the session is bound to the User-Agent, a
wrong password answers the form again with phpBB's error. ``login_page`` / ``denial_page`` may
be pages captured from a real install (``{sid}``, ``{token}``, ``{error}`` filled in).
``redirect_guests``: a guest asking for a members-only page is redirected to the login page
instead (as NodeBB does). ``hold_guests``: an event that the answers to guests' page requests wait for (a slow answer
that reaches the crawler after it installed a session).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

from crawler.demo.fixture_server import RoutesSite, route_key

SITE_DIR = Path(__file__).resolve().parents[2] / "crawler" / "demo" / "sites" / "phpbb"
PRIVATE = ("/viewforum.php?f=3", "/viewtopic.php?t=201", "/viewtopic.php?t=202")
COOKIE = "phpbb3_test_sid"
USERS = {"alice": "Acceptance-Pass-2024!"}

LOGIN_PAGE = """<!DOCTYPE html>
<html dir="ltr" lang="en-gb"><head><meta charset="utf-8" /><title>Login</title></head>
<body id="phpbb" class="nojs notouch section-ucp ltr ">
<div id="wrap" class="wrap"><div id="page-body" class="page-body" role="main">
<form action="./ucp.php?mode=login&amp;sid={sid}" method="post" id="login" data-focus="username">
<div class="panel"><div class="inner"><div class="content">
<h2 class="login-title">Login</h2>
{explain}
<fieldset class="fields1">
{error}
<dl><dt><label for="username">Username:</label></dt>
<dd><input type="text" tabindex="1" name="username" id="username" size="25" value="" class="inputbox autowidth" /></dd></dl>
<dl><dt><label for="password">Password:</label></dt>
<dd><input type="password" tabindex="2" id="password" name="password" size="25" class="inputbox autowidth" autocomplete="off" /></dd></dl>
<dl><dd><label for="autologin"><input type="checkbox" name="autologin" id="autologin" tabindex="4" /> Remember me</label></dd></dl>
<input type="hidden" name="sid" value="{sid}" />
<input type="hidden" name="redirect" value="./index.php" />
<input type="hidden" name="creation_time" value="{time}" />
<input type="hidden" name="form_token" value="{token}" />
<dl><dt>&nbsp;</dt><dd><input type="submit" name="login" tabindex="6" value="Login" class="button1" /></dd></dl>
</fieldset></div></div></div></form>
</div>
<div class="copyright">Powered by <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software &copy; phpBB Limited</div>
</div></body></html>
"""
EXPLAIN = "<p>The board requires you to be registered and logged in to view this forum.</p>"
BAD_PASSWORD = ('<div class="error">You have specified an incorrect password. Please check your '
                'password and try again. If you continue to have problems please contact the '
                '<a href="mailto:admin@example.org">Board Administrator</a>.</div>')


class Board:
    """Serve the board; ``with Board() as board: board.url``."""

    def __init__(self, *, denial_status: int = 200, users: dict[str, str] | None = None,
                 login_page: str = LOGIN_PAGE, cookie: str = COOKIE,
                 hold_guests: threading.Event | None = None,
                 redirect_guests: bool = False) -> None:
        self.site = RoutesSite(SITE_DIR)
        self.denial_status = denial_status
        self.users = dict(users or USERS)
        self.login_page = login_page
        self.hold_guests = hold_guests
        self.redirect_guests = redirect_guests  # a guest sent to the login page (as NodeBB)
        self.cookie = cookie  # cookies know no port: two boards on 127.0.0.1 need two names
        self.sessions: dict[str, tuple[str | None, str]] = {}  # sid -> (user, User-Agent)
        self.login_posts = 0
        self.hits: Counter[tuple[str, str | None]] = Counter()  # (target, user)
        self.lock = threading.Lock()
        board = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                board._get(self)

            def do_POST(self) -> None:
                board._post(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def netloc(self) -> str:
        return f"127.0.0.1:{self.server.server_address[1]}"

    @property
    def url(self) -> str:
        return f"http://{self.netloc}/index.php"

    def __enter__(self) -> Board:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def expire_sessions(self) -> None:
        """Every session ends (the board's session length passed): users are guests again."""
        with self.lock:
            self.sessions.clear()

    def log_in(self, user: str, agent: str) -> str:
        """A session of *user* for *agent*, as a browser's login makes: its sid (cookie)."""
        sid = secrets.token_hex(16)
        with self.lock:
            self.sessions[sid] = (user, agent)
        return sid

    # -- pages -----------------------------------------------------------------------------
    def _session(self, handler: BaseHTTPRequestHandler) -> tuple[str, str | None, bool]:
        """The request's sid, its user (None: a guest), whether the sid is new."""
        agent = handler.headers.get("User-Agent", "")
        cookies = dict(part.strip().split("=", 1) for part in
                       (handler.headers.get("Cookie") or "").split(";") if "=" in part)
        sid = cookies.get(self.cookie)
        with self.lock:
            if sid in self.sessions:
                user, bound = self.sessions[sid]
                if bound == agent:  # phpBB's browser validation
                    return sid, user, False
            sid = secrets.token_hex(16)
            self.sessions[sid] = (None, agent)
        return sid, None, True

    def _token(self, sid: str) -> str:
        return hashlib.sha1(f"login{sid}".encode()).hexdigest()

    def _login_page(self, sid: str, explain: str = "", error: str = "") -> bytes:
        return self.login_page.format(sid=sid, token=self._token(sid), time=int(time.time()),
                                      explain=explain, error=error).encode()

    def _send(self, handler: BaseHTTPRequestHandler, status: int, body: bytes, sid: str | None,
              headers: dict[str, str] | None = None) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        if sid:
            handler.send_header("Set-Cookie", f"{self.cookie}={sid}; path=/; HttpOnly")
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    def _get(self, handler: BaseHTTPRequestHandler) -> None:
        path = re.sub(r"[?&]sid=[0-9a-f]+$", "", handler.path)  # phpBB reads the cookie's
        target = route_key(path)
        sid, user, new = self._session(handler)
        self.hits[target, user] += 1
        cookie = sid if new else None
        if target == "/robots.txt":
            return self._send(handler, 404, b"", cookie)
        if target.startswith("/ucp.php") and "mode=login" in target:
            return self._send(handler, 200, self._login_page(sid), cookie)
        if user is None and self.hold_guests is not None:
            self.hold_guests.wait(60)
        if target in PRIVATE and user is None and self.redirect_guests:
            return self._send(handler, 302, b"", cookie,
                              {"Location": "/ucp.php?mode=login&redirect=" + target.lstrip("/")})
        if target in PRIVATE and user is None:
            return self._send(handler, self.denial_status, self._login_page(sid, EXPLAIN), cookie)
        response = self.site.respond(0, path, [f"http://{self.netloc}"])
        body = response.body
        if user is not None:
            body = body.replace(b"</body>", f'<a href="./ucp.php?mode=logout&amp;sid={sid}">'
                                f'Logout [ {user} ]</a></body>'.encode())
        return self._send(handler, response.status, body, cookie)

    def _post(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(handler.rfile.read(length).decode()).items()}
        sid, _, new = self._session(handler)
        if not handler.path.startswith("/ucp.php?mode=login"):
            return self._send(handler, 404, b"", sid if new else None)
        with self.lock:
            self.login_posts += 1
        # phpBB's check_form_key(): the token of this session, and a form not sent in the
        # second it was made ("If creation_time and the time() now is zero ... not a human")
        made = int(form.get("creation_time") or 0)
        if "login" not in form or form.get("form_token") != self._token(sid) \
                or not 0 < int(time.time()) - made <= 7200:
            error = '<div class="error">The submitted form was invalid. Try submitting again.</div>'
            return self._send(handler, 200, self._login_page(sid, error=error), sid if new else None)
        user, password = form.get("username", ""), form.get("password", "")
        if self.users.get(user) != password:
            return self._send(handler, 200, self._login_page(sid, error=BAD_PASSWORD),
                              sid if new else None)
        agent = handler.headers.get("User-Agent", "")
        with self.lock:
            self.sessions.pop(sid, None)
        fresh = self.log_in(user, agent)
        # as phpBB 3.3 answers: the new session's id in the Location too
        return self._send(handler, 302, b"", fresh,
                          {"Location": f"http://{self.netloc}/index.php?sid={fresh}"})
