"""A small hand-drawn site on the one test server: each page names its links and status.

``pages``: one dict per host, ``path -> Page``. Links are ``(host, path)`` pairs, rendered
as absolute URLs; a redirect's ``location`` too. Serve with
``LoopbackServer(GraphSite(pages), ...)``; the server records every request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from crawler.demo.server import Response

if TYPE_CHECKING:
    from collections.abc import Sequence


@dataclass(frozen=True)
class Page:
    links: tuple[tuple[int, str], ...] = ()
    status: int = 200
    location: tuple[int, str] | None = None
    content_type: str = "text/html; charset=utf-8"
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


class GraphSite:
    def __init__(self, pages: Sequence[dict[str, Page]], robots: str = "User-agent: *\n") -> None:
        self.pages = list(pages)
        self.robots = robots

    @property
    def hosts(self) -> int:
        return len(self.pages)

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response:
        if target == "/robots.txt":
            return Response(200, "text/plain", self.robots.encode())
        page = self.pages[host].get(target)
        if page is None:
            return Response(404, "text/html", b"<html><body>not found</body></html>")
        headers = dict(page.headers)
        if page.location is not None:
            headers["Location"] = origins[page.location[0]] + page.location[1]
        body = page.body
        if body is None:
            links = "".join(f'<a href="{origins[h]}{p}">{p}</a> ' for h, p in page.links)
            body = f"<html><body><p>{target}</p>{links}</body></html>".encode()
        return Response(page.status, page.content_type, body, headers)
