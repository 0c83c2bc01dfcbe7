"""Discuz!'s anti-CC protection (``attackevasive`` 1|4) in a crawl without credentials.

A real HTTP server on 127.0.0.1 serves the Discuz! X3.5 capture (tests/fixtures/real) behind the
protection as ``source/include/misc/misc_security.php`` applies it, with its pages captured from
the lab's install: a request without the session's ``lastrequest`` cookie gets the reload page
(mode 4), one in the same second as the session's previous request the "too fast" page
(mode 1); every answer sets the cookie. The crawl must read every post of the capture, emit
nothing of the protection's pages, and space its requests 1 s apart, as a browser passes it.
"""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

from crawler.demo.fixture_server import RoutesSite
from tests.archive.warcs import read_all
from tests.extract.realsites import Capture, load_scorer
from tests.helpers.crawl import run_crawl

PAGES = Path(__file__).parent / "pages" / "discuz-x3.5"
COOKIE = "xxxx_lastrequest"


class Protected(ThreadingHTTPServer):
    def __init__(self, site: RoutesSite) -> None:
        self.site, self.answers = site, []  # (monotonic time, path, what was served)
        reload_page = (PAGES / "attackevasive-4-reload.html").read_bytes()
        too_fast = (PAGES / "attackevasive-1-too-fast.html").read_bytes()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                now = int(time.time())
                cookies = dict(c.strip().split("=", 1) for c in
                               (self.headers.get("Cookie") or "").split(";") if "=" in c)
                origin = f"http://127.0.0.1:{server.server_address[1]}"
                if COOKIE not in cookies:
                    status, body, served = 200, reload_page, "reload"
                elif cookies[COOKIE] == str(now):
                    status, body, served = 200, too_fast, "too fast"
                else:
                    page = server.site.respond(0, self.path, [origin])
                    status, body, served = page.status, page.body, "page"
                server.answers.append((time.monotonic(), self.path, served))
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Set-Cookie", f"{COOKIE}={now}; path=/")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(("127.0.0.1", 0), Handler)


def test_a_discuz_behind_its_anti_cc_protection_is_read_whole_one_request_a_second(tmp_path):
    cap = Capture("discuz-x3.5")
    server = Protected(RoutesSite(cap.folder / "site"))
    thread = Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        start = f"http://127.0.0.1:{server.server_address[1]}{cap.manifest['start']}"
        result = run_crawl("discuz", start, tmp_path / "out.jl", timeout=240,
                           settings={"ROBOTSTXT_OBEY": "False",
                                     "CRAWLER_WARC_DIR": str(tmp_path / "warc")})
    finally:
        server.shutdown()
        server.server_close()
    card = load_scorer().score(result.items, cap.expected)
    wrong = {f.name: f"{f.right}/{f.total}" for f in card.figures.values() if f.right != f.total}
    assert not wrong, wrong
    served = [what for _, _, what in server.answers]
    assert served[0] == "reload" and served.count("reload") == 1, served[:5]
    assert "too fast" not in served, "requests less than 1 s apart"
    times = [t for t, _, _ in server.answers]
    assert min(b - a for a, b in zip(times, times[1:])) >= 0.95
    assert result.stats.get("login/attackevasive/reload") == 1
    assert not any("页面重载" in str(item) for item in result.items)
    # the archive (issue 39, item 12): the reload page is no capture of the URL it answered
    records = read_all(sorted((tmp_path / "warc").glob("*.warc.gz")))
    captures = [r for r in records if r.type in ("response", "revisit")]
    assert captures and not [r for r in captures if "页面重载".encode() in r.payload]
    assert result.stats.get("warc/skipped/not_content") == 1
