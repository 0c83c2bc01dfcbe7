"""A real HTTP/1.1 server on 127.0.0.1 that sends chunked and gzip responses.

:class:`~crawler.demo.server.LoopbackServer` always sends ``Content-Length`` and never
compresses; the archive must be right on what real forums send. This one serves a
:class:`~crawler.demo.server.Site` with every HTML body ``Transfer-Encoding: chunked`` and,
when the request accepts it, ``Content-Encoding: gzip``; other bodies (robots.txt, 404s)
with a ``Content-Length``, robots.txt the one given if any. A matching conditional GET gets a 304, and
:data:`REDIRECT` (any query) answers 301 to the site's start page. It keeps, per request
target, the entity body it last sent (gzip kept, chunking removed): the independent
source of the payload digests the archive must hold.
"""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from crawler.demo.server import Site, _conditional

#: A start URL that redirects (301) to the site's start page.
REDIRECT = "/old-index.php"


class ChunkedGzipServer:
    def __init__(self, site: Site, start: str, robots: str | None = None) -> None:
        self.site = site
        self.robots = robots  # the body of /robots.txt (200, Content-Length), else the site's
        self.start_path = start
        self.sent: dict[str, bytes] = {}  # target -> entity body last sent
        self.log: list[tuple[str, int]] = []  # (target, status) per request
        self.lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._http.daemon_threads = True
        self._http.owner = self  # type: ignore[attr-defined]
        self.origin = "http://127.0.0.1:%d" % self._http.server_address[1]
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    def __enter__(self) -> ChunkedGzipServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(5)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:  # noqa: N802
        owner: ChunkedGzipServer = self.server.owner  # type: ignore[attr-defined]
        target = self.path
        if target.split("?")[0] == REDIRECT:
            self._send(owner, target, 301, {"Location": owner.start_path,
                                            "Content-Type": "text/html"}, b"", chunked=False)
            return
        if target == "/robots.txt" and owner.robots is not None:
            self._send(owner, target, 200, {"Content-Type": "text/plain"},
                       owner.robots.encode(), chunked=False)
            return
        response = _conditional(owner.site.respond(0, target, [owner.origin]), self.headers)
        headers = {"Content-Type": response.content_type, **response.headers}
        body, html = response.body, response.content_type.startswith("text/html")
        if response.status == 304:
            self._send(owner, target, 304, headers, b"", chunked=False)
            return
        if html and "gzip" in (self.headers.get("Accept-Encoding") or ""):
            body = gzip.compress(body, mtime=0)
            headers["Content-Encoding"] = "gzip"
            headers["Vary"] = "Accept-Encoding"
        self._send(owner, target, response.status, headers, body, chunked=html)

    def _send(self, owner: ChunkedGzipServer, target: str, status: int,
              headers: dict[str, str], body: bytes, chunked: bool) -> None:
        with owner.lock:
            owner.log.append((target, status))
            owner.sent[target] = body
        self.send_response_only(status)
        self.send_header("Server", "chunky/1.0")
        for name, value in headers.items():
            self.send_header(name, value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if chunked:
            for i in range(0, len(body), 1000):
                piece = body[i:i + 1000]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        elif status != 304:
            self.wfile.write(body)
        self.wfile.flush()
