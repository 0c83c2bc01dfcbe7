"""Writing a fixture site: static files plus ``routes.json`` (request target -> file)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from crawler.demo.fixture_server import route_key
from tests.extract.sitegen.content import CODE, HTTP_DATE, FPost
from tests.sitekit import SITES


@dataclass
class Site:
    engine: str
    #: Path + query the crawl starts from.
    start: str
    #: The zone the forum renders display dates in (passed to the spider as -a timezone=).
    timezone: str | None = None
    #: "forum" sites are crawled by the engine's own spider; others name their spider here.
    kind: str = "forum"
    spider: str | None = None
    #: Extra spider arguments (-a name=value).
    args: dict[str, str] = field(default_factory=dict)
    #: The engine a forum site's pages are detected as and its items carry, when that is not the
    #: site's own name (a markup version of another engine: ``vbulletin3`` is ``vbulletin``).
    profile: str | None = None
    routes: dict[str, dict[str, str]] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)

    def add(
        self,
        target: str,
        body: str,
        *,
        filename: str,
        encoding: str = "utf-8",
        content_type: str = "text/html; charset=utf-8",
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        key = route_key(target)
        if key in self.routes:
            raise ValueError(f"duplicate route {key!r}")
        self.routes[key] = {"file": filename, "content_type": content_type}
        if status != 200:
            self.routes[key]["status"] = status
        if headers:
            self.routes[key]["headers"] = headers
        self.files[filename] = body.encode(encoding)

    def write(self) -> Path:
        root = SITES / self.engine
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        for name, data in self.files.items():
            (root / name).write_bytes(data)
        manifest = {
            "date": HTTP_DATE,
            "start": self.start,
            "timezone": self.timezone,
            "kind": self.kind,
            "spider": self.spider or self.engine,
            "args": self.args,
            "routes": dict(sorted(self.routes.items())),
        }
        if self.profile:
            manifest["engine"] = self.profile
        (root / "routes.json").write_text(
            json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
        return root


def paragraphs(post: FPost) -> str:
    return "".join(f"{p}<br />\n" for p in post.paragraphs)


def code_lines(code: str = CODE) -> list[str]:
    return [escape(line) for line in code.split("\n")]


def e(text: str) -> str:
    return escape(text, quote=True)
