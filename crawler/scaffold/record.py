"""The pages a crawl fetched, saved as a fixture site (``routes.json`` and one file each).

:class:`Recorder` is a downloader middleware: it sees each answer before redirects and retries
act on it, and appends it to ``SCAFFOLD_RECORD_DIR/index.jsonl``. :func:`write_site` turns that
record into a site :class:`~crawler.demo.fixture_server.FixtureServer` serves, the live origin
rewritten to the fixture origin, so a crawl of the fixture asks for the same pages; its
robots.txt keeps the site's rules but not its ``Crawl-delay``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit

from crawler.demo.fixture_server import route_key

__all__ = ["Recorder", "write_site"]

FAKE_ORIGIN = "http://fixture.invalid"
#: Headers a crawl reads; the rest (cookies, server) stay out of the fixture.
KEPT_HEADERS = ("Location", "Retry-After")
#: A robots.txt ``Crawl-delay`` line (esoTalk's stock one asks for 10 s).
CRAWL_DELAY = re.compile(rb"(?im)^[ \t]*crawl-delay[ \t]*:[^\n]*\n?")
#: A fixed date: the "now" that relative dates on the pages are read against.
FIXED_DATE = "Mon, 01 Jul 2024 00:00:00 GMT"


class Recorder:
    """Downloader middleware saving every answer (setting ``SCAFFOLD_RECORD_DIR``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    @classmethod
    def from_crawler(cls, crawler: Any) -> Self:
        return cls(Path(crawler.settings["SCAFFOLD_RECORD_DIR"]))

    def process_response(self, request: Any, response: Any) -> Any:
        name = hashlib.sha1(request.url.encode()).hexdigest()
        (self.folder / name).write_bytes(response.body)
        headers = {k.decode("latin-1"): response.headers.get(k).decode("latin-1")
                   for k in response.headers}
        record = {"url": request.url, "status": response.status, "headers": headers, "body": name}
        with (self.folder / "index.jsonl").open("a", encoding="utf-8") as index:
            index.write(json.dumps(record) + "\n")
        return response


def records(folder: Path) -> list[dict[str, Any]]:
    """What :class:`Recorder` saved in ``folder``, the last answer per URL."""
    index = folder / "index.jsonl"
    if not index.exists():
        return []
    by_url = {}
    for line in index.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        by_url[record["url"]] = {**record, "body": (folder / record["body"]).read_bytes()}
    return list(by_url.values())


def write_site(saved: list[dict[str, Any]], origin: str, site: Path, start: str,
               args: dict[str, str]) -> int:
    """Write the fixture site, crawled by the ``forum`` spider with ``args``; returns the
    number of pages written."""
    site.mkdir(parents=True, exist_ok=True)
    routes = {}
    for record in saved:
        if not record["url"].startswith(origin):
            continue
        key = route_key(record["url"][len(origin):] or "/")
        ctype = record["headers"].get("Content-Type", "text/html")
        name = _file_name(key, ctype)
        body = rewrite(record["body"], origin)
        if key == "/robots.txt":  # the site's rules, not its pace: a test runs at full speed
            body = CRAWL_DELAY.sub(b"", body)
        (site / name).write_bytes(body)
        route: dict[str, Any] = {"file": name, "content_type": ctype}
        if record["status"] != 200:
            route["status"] = record["status"]
        kept = {k: _relative(v, origin) for k, v in record["headers"].items() if k in KEPT_HEADERS}
        if kept:
            route["headers"] = kept
        routes[key] = route
    manifest = {"kind": "engine", "spider": "forum", "args": args, "date": FIXED_DATE,
                "start": route_key(start), "routes": routes}
    text = json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True)
    (site / "routes.json").write_text(text + "\n", encoding="utf-8")
    return len(routes)


def rewrite(body: bytes, origin: str) -> bytes:
    """The live origin -> ``http://fixture.invalid``, also JSON-escaped and URL-encoded."""
    host = urlsplit(origin).netloc.encode()
    out = body.replace(origin.encode(), FAKE_ORIGIN.encode())
    out = out.replace(origin.replace("/", "\\/").encode(), FAKE_ORIGIN.replace("/", "\\/").encode())
    out = out.replace(host.replace(b":", b"%3A"), b"fixture.invalid")
    return out.replace(host, b"fixture.invalid")


def _relative(location: str, origin: str) -> str:
    return location[len(origin):] or "/" if location.startswith(origin) else location


def _file_name(key: str, content_type: str) -> str:
    ext = ".json" if "json" in content_type else ".txt" if "text/plain" in content_type else ".html"
    slug = re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-") or "index"
    if len(slug) > 60:
        slug = slug[:50] + "-" + hashlib.sha1(key.encode()).hexdigest()[:8]
    return slug + ext
