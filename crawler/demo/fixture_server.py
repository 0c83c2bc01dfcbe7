"""Fixture sites: a folder with ``routes.json``, served by the one test server in a thread.

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

:class:`RoutesSite` is such a folder as a :class:`~crawler.demo.server.Site`;
:class:`FixtureServer` serves one with :class:`~crawler.demo.server.LoopbackServer`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from w3lib.url import canonicalize_url

from crawler.demo.server import LoopbackServer, Response

logger = logging.getLogger(__name__)

__all__ = ["ORIGIN", "FixtureServer", "RoutesSite", "route_key"]

_FAKE_ORIGIN = "http://fixture.invalid"
#: Absolute links in fixture files use this origin; the server swaps in its own when serving.
ORIGIN = _FAKE_ORIGIN.encode()


def route_key(target: str) -> str:
    """Canonical path + query of a request target, the key of ``routes.json``."""
    return canonicalize_url(_FAKE_ORIGIN + target)[len(_FAKE_ORIGIN) :]


class RoutesSite:
    """A fixture site folder as a one-host site. Files are read on each request, so a site
    being rewritten is served as it is now."""

    hosts = 1

    def __init__(self, site_dir: Path) -> None:
        manifest = json.loads((site_dir / "routes.json").read_text(encoding="utf-8"))
        self.site_dir = site_dir
        self.date: str = manifest["date"]
        self.start: str = manifest.get("start", "/")
        self.routes: dict[str, dict[str, Any]] = manifest["routes"]

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response:
        route = self.routes.get(route_key(target))
        if route is None:
            return Response(404, "text/plain", b"not found", {"Date": self.date})
        body = (self.site_dir / route["file"]).read_bytes().replace(ORIGIN, origins[host].encode())
        headers = {"Date": self.date, **(route.get("headers") or {})}
        return Response(int(route.get("status", 200)), route["content_type"], body, headers)


class FixtureServer:
    """Serve one fixture site; use as a context manager. ``requests`` lists every target asked."""

    def __init__(self, site_dir: Path) -> None:
        self.site = RoutesSite(site_dir)
        self.site_dir = site_dir
        self.date: str = self.site.date
        self.routes: dict[str, dict[str, Any]] = self.site.routes
        self.server = LoopbackServer(self.site)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``, once entered."""
        return self.server.origins[0]

    @property
    def requests(self) -> list[str]:
        """Every request target asked so far, in the order answered."""
        return [record.path for record in self.server.recorder.requests]

    def __enter__(self) -> Self:
        self.server.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.stop()
