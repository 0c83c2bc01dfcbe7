"""The learned reader (``-a profile=none``) finds a post's attachments: the captured lab
phpBB forum the learned-reader tests crawl, with its thread 2 as captured once the lab had
attachments (an attachment box below each post's body, an image inline, a link in a body)."""

from __future__ import annotations

import hashlib
import json
import shutil
from typing import TYPE_CHECKING

from crawler.demo.fixture_server import FixtureServer
from tests.attachments.server import DENIED, FILES, LAB_ORIGINS, PAGES
from tests.helpers.crawl import run_crawl
from tests.sitekit import SITES

if TYPE_CHECKING:
    from pathlib import Path

#: Absolute links in fixture files (crawler.demo.fixture_server)
FIXTURE_ORIGIN = "http://fixture.invalid"


def _site_with_attachments(tmp: Path) -> Path:
    site = tmp / "site"
    shutil.copytree(SITES / "learned_phpbb", site)
    manifest = json.loads((site / "routes.json").read_text())
    page = (PAGES / "phpbb-thread.html").read_text(encoding="utf-8")
    for origin in LAB_ORIGINS:
        page = page.replace(origin, FIXTURE_ORIGIN)
    (site / "thread-2.html").write_text(page, encoding="utf-8")
    routes = manifest["routes"]
    routes["/viewtopic.php?t=2"] = {"file": "thread-2.html",
                                    "content_type": "text/html; charset=UTF-8"}
    for aid, (body, kind) in FILES.items():
        (site / f"file-{aid}").write_bytes(body)
        routes[f"/download/file.php?id={aid}"] = {"file": f"file-{aid}", "content_type": kind}
    shutil.copy(PAGES / "phpbb-denied.html", site / "denied.html")
    routes[f"/download/file.php?id={DENIED}"] = {
        "file": "denied.html", "content_type": "text/html; charset=UTF-8", "status": 403}
    (site / "routes.json").write_text(json.dumps(manifest))
    return site


def test_the_learned_reader_stores_the_attachments_below_and_in_post_bodies(
        tmp_path: Path) -> None:
    with FixtureServer(_site_with_attachments(tmp_path)) as server:
        result = run_crawl("forum", server.base_url + "/", tmp_path / "items.jl",
                           args={"profile": "none"},
                           settings={"FILES_STORE": str(tmp_path / "files"),
                                     "CRAWLER_ATTACHMENT_MAXSIZE": str(2**20)})
    posts = {p["post_id"]: p for p in result.items if p["item_type"] == "post"}
    assert {p["engine"] for p in posts.values()} == {"learned"}
    found = {a["id"]: (post_id, a["name"], a["status"], a["sha256"])
             for post_id, post in posts.items() for a in post["attachments"]}
    digest = {aid: hashlib.sha256(body).hexdigest() for aid, (body, _) in FILES.items()}
    assert found == {
        "1": ("2", "screenshot.png", "stored", digest["1"]),
        "2": ("2", "manual.pdf", "stored", digest["2"]),
        "3": ("3", "logs.zip", "stored", digest["3"]),
        "4": ("3", "manual-copy.pdf", "stored", digest["4"]),
        "5": ("4", "big-dump.zip", "too_large", None),
        "6": ("5", "members-only.zip", "denied", None),
    }
