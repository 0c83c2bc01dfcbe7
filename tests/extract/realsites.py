"""Sites captured from real engine installs (``tests/fixtures/real/<engine>-<version>/``).

Written by ``scripts/capture_site.py``: ``site/`` in the FixtureServer format (plus
``page_kinds``, ``engine`` and ``spiders`` in ``routes.json``), and ``expected.json``, the items
the engine's database holds (the lab's truth.json, not our extraction). The scoring rules are
``scripts/score_against_truth.py``'s, loaded from that file so the tests and the script agree.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from scrapy.http import Headers, Response
from scrapy.responsetypes import responsetypes

from crawler.demo.fixture_server import route_key

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
ORIGIN = "http://fixture.invalid"

#: Page kinds every capture must hold, by site kind.
FORUM_KINDS = ("index", "board", "board_page_n", "thread", "thread_page_n", "soft_404")
BLOG_KINDS = ("index", "index_page_n", "article", "article_page_n", "article_comment_page_n", "api", "soft_404")
#: Kinds an install cannot have, with the reason.
ABSENT_KINDS = {
    ("nodebb-1.4.0", "board_page_n"): "each lab board holds 4 topics and NodeBB lists 5 per page",
}


def load_scorer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("score_against_truth", ROOT / "scripts" / "score_against_truth.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


def names() -> list[str]:
    return sorted(p.parent.parent.name for p in REAL.glob("*/site/routes.json"))


@dataclass
class Capture:
    name: str

    @property
    def folder(self) -> Path:
        return REAL / self.name

    @cached_property
    def manifest(self) -> dict[str, Any]:
        return json.loads((self.folder / "site" / "routes.json").read_text(encoding="utf-8"))

    @cached_property
    def expected(self) -> dict[str, Any]:
        return json.loads((self.folder / "expected.json").read_text(encoding="utf-8"))

    @property
    def engine(self) -> str:
        return self.manifest["engine"]

    @property
    def is_blog(self) -> bool:
        return self.manifest.get("kind") == "blog"

    def keys(self, *kinds: str) -> list[str]:
        return sorted(k for k, kind in self.manifest["page_kinds"].items() if kind in kinds)

    def response(self, key: str) -> Response:
        """The captured answer to ``key`` as Scrapy would have received it from the fixture server."""
        route = self.manifest["routes"][key]
        body = (self.folder / "site" / route["file"]).read_bytes()
        headers = Headers({"Content-Type": route["content_type"], "Date": self.manifest["date"], **route.get("headers", {})})
        url = ORIGIN + key
        cls = responsetypes.from_args(headers=headers, url=url, body=body)
        return cls(url=url, status=int(route.get("status", 200)), headers=headers, body=body)


def target_key(url: str) -> str:
    """The routes.json key of an absolute URL."""
    parts = urlsplit(url)
    return route_key(parts.path + (f"?{parts.query}" if parts.query else ""))
