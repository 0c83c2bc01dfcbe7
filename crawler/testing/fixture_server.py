"""A static HTTP server for fixture sites, on 127.0.0.1 with a free port, in a thread.

A fixture site is a folder with ``routes.json``::

    {"date": "<HTTP date>", "start": "/path",
     "routes": {"/path?query": {"file": "x.html", "content_type": "...", "status": 200,
                                "headers": {"X-WP-TotalPages": "3"}}}}

Request targets are canonicalized with :func:`w3lib.url.canonicalize_url` before lookup (so the
order of query parameters does not matter) but nothing else is forgiven: a parameter the crawler
should have dropped (``sid``, ``extra``) makes the lookup miss and the server answers 404.
Absolute links in the files (SMF and MyBB print ``$scripturl``-based absolute URLs) use the
origin ``http://fixture.invalid``, replaced with the server's own origin when served.
The ``Date`` header is the fixed ``date`` of the manifest, which is the "now" that the pages'
relative dates were written against.
"""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from w3lib.url import canonicalize_url

logger = logging.getLogger(__name__)

__all__ = ["ORIGIN", "FixtureServer", "route_key"]

_FAKE_ORIGIN = "http://fixture.invalid"
#: Absolute links in fixture files use this origin; the server swaps in its own when serving.
ORIGIN = _FAKE_ORIGIN.encode()


def route_key(target: str) -> str:
    """Canonical path + query of a request target, the key of ``routes.json``."""
    return canonicalize_url(_FAKE_ORIGIN + target)[len(_FAKE_ORIGIN) :]


class FixtureServer:
    """Serve one fixture site; use as a context manager. ``requests`` lists every target asked."""

    def __init__(self, site_dir: Path) -> None:
        manifest = json.loads((site_dir / "routes.json").read_text(encoding="utf-8"))
        self.site_dir = site_dir
        self.date: str = manifest["date"]
        self.routes: dict[str, dict[str, Any]] = manifest["routes"]
        self.requests: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(self.path)
                route = server.routes.get(route_key(self.path))
                if route is None:
                    self._reply(404, b"not found", "text/plain")
                    return
                body = (
                    (server.site_dir / route["file"]).read_bytes().replace(ORIGIN, server.base_url.encode())
                )
                self._reply(int(route.get("status", 200)), body, route["content_type"], route.get("headers"))

            def _reply(
                self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def date_time_string(self, timestamp: float | None = None) -> str:
                return server.date

            def log_message(self, format: str, *args: Any) -> None:
                logger.debug(format, *args)

        return Handler
