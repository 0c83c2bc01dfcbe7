#!/usr/bin/env python3
"""Capture a running engine lab site as a replayable fixture (fundus-style), with the items the
engine's own database says it holds.

    python scripts/capture_site.py mybb                      # needs ../shared/engines running
    python scripts/capture_site.py wordpress --truth PATH --base-url http://127.0.0.1:18081/
    python scripts/capture_site.py --learned http://127.0.0.1:18087/ --out tests/fixtures/profiles/learned_mybb \
        --truth ../shared/engines/mybb/truth.json --pages 45        # a fixture for the learned fallback

What is saved, under ``tests/fixtures/real/<engine>-<version>/``:

* ``site/``: every response the crawl got, byte for byte except that the lab's origin
  (``http://127.0.0.1:<port>``, also URL-encoded or JSON-escaped) becomes
  ``http://fixture.invalid``, in the format :class:`crawler.demo.fixture_server.FixtureServer`
  serves: ``routes.json`` (``date`` = the ``Date`` of the first response, ``start``, ``routes``
  with ``file``, ``content_type``, ``status`` and the headers a crawl reads: ``Location`` made
  relative, ``X-Powered-By``, ``X-WP-Total(Pages)``, ``Retry-After``) plus one file per response.
  ``routes.json`` also says what each page is (``page_kinds``: index, board, board_page_n,
  thread, thread_page_n, soft_404, ...) and how to crawl the site (``engine``, ``spiders``).
* ``capture.json``: the raw record of the capture: each URL with its status and all its
  response headers as served (session cookies included; origin rewritten), and the lab origin.
* ``expected.json``: the items the site holds, from the lab's ``truth.json`` (read from the
  engine's database, never from our extraction), in truth.json's own shape (so
  ``scripts/score_against_truth.py`` scores a crawl against it) with the fields a crawl can be
  checked on, URLs rewritten like the pages.

How the pages are chosen: the engine's spider and the ``forum`` spider (``wordpress`` and
``blog`` for WordPress, plus a ``wordpress`` pass whose REST API is refused, to get the HTML
mode's pages) crawl the live site in this process's Scrapy, with the project's settings (the
frontier, robots.txt, politeness, its user agent: Discuz! serves "robots" other markup), and
a downloader middleware records what the server answered before redirects are followed. Then
every thread page the truth names that no spider asked for is fetched too, and a missing thread
(the soft 404). So a page the profile fails to reach is still captured, and the replayed crawl
fails on it instead of the capture hiding it.

Crawl politeness is the project's (one request in flight per host, 0.5 s apart); NodeBB's 503s
are retried and only the final answer is kept.

``--learned START --out DIR`` captures any running forum (a lab engine, a PyPI engine such as
django-machina) for the learned-template tests instead: breadth-first from START over the links
the learner follows (:func:`crawler.learn.links.follow_links`), at most ``--pages`` pages (``--keep``
a regex the links must match). It writes the site to ``tests/fixtures/sites/<DIR's name>/`` (one
file per page, ``routes.json`` of kind ``learned`` crawled with ``-a profile=none``, origin
rewritten to ``http://fixture.invalid``, inline scripts and styles over 2 kB emptied: they hold
no posts there) and, with ``--truth``,
``DIR/truth.json``: the truth cut down to the threads captured whole (``all_markers`` lists every
post of the site). ``expected.json`` then comes from ``scripts/update_profile_fixtures.py
--overwrite-json <name>``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from w3lib.url import canonicalize_url  # noqa: E402

from crawler.demo.fixture_server import route_key  # noqa: E402
from tests.sitekit import SITES  # noqa: E402
from crawler.learn.dom import parse  # noqa: E402
from crawler.learn.links import follow_links  # noqa: E402
from tests.helpers.evaluate import marker  # noqa: E402

REAL = ROOT / "tests" / "fixtures" / "real"
LAB = ROOT.parent / "shared" / "engines"
FAKE_ORIGIN = "http://fixture.invalid"
#: Response headers a crawl reads; the rest is in capture.json only.
KEPT_HEADERS = ("Location", "X-Powered-By", "X-WP-Total", "X-WP-TotalPages", "Retry-After")


@dataclass(frozen=True)
class Engine:
    name: str
    folder: str  # <engine>-<version>
    base_url: str
    spiders: tuple[str, ...]
    soft_404: tuple[str, ...]
    #: (kind, regex over the route key); a group "n" is the page number or offset.
    kinds: tuple[tuple[str, str], ...]
    start: str = "/"
    #: Per-engine first page offset/number (page 1 has n == first or no n at all).
    first: int = 1
    #: Extra capture passes: a spider run with these URL prefixes refused (answered 404 locally).
    refused_passes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    blog: bool = False
    #: For engines built from a profile: a regex whose group "n" is a page number or offset.
    page: str | None = None


ENGINES = {
    e.name: e
    for e in (
        Engine(
            "wordpress", "wordpress-6.1", "http://127.0.0.1:18081/", ("wordpress", "blog"),
            soft_404=("/2024/01/no-such-post/",),
            kinds=(
                ("api", r"^/wp-json/"),
                ("robots", r"^/robots\.txt$"),
                ("feed", r"/feed/$"),
                ("sitemap", r"sitemap.*\.xml"),
                ("index_page_n", r"^/page/(?P<n>\d+)/$"),
                ("index", r"^/$"),
                ("article_comment_page_n", r"^/\d{4}/\d{2}/[^/]+/comment-page-(?P<n>\d+)/$"),
                ("article_page_n", r"^/\d{4}/\d{2}/[^/]+/(?P<n>\d+)/$"),
                ("article", r"^/\d{4}/\d{2}/[^/]+/$"),
                ("archive", r"^/(?:category|tag|author)/|^/\d{4}/\d{2}/$"),
            ),
            refused_passes=(("wordpress", ("/wp-json/",)),),
            blog=True,
        ),  # fmt: skip
        Engine(
            "nodebb", "nodebb-1.4.0", "http://127.0.0.1:18083/", ("nodebb", "forum"),
            soft_404=("/api/topic/9999",),
            kinds=(
                ("robots", r"^/robots\.txt$"),
                ("index", r"^/(?:api/categories)?$"),
                ("board", r"^/(?:api/)?category/\d+(?:/[^?]*)?(?:\?page=(?P<n>\d+))?$"),
                ("thread", r"^/(?:api/)?topic/\d+(?:/[^?]*)?(?:\?page=(?P<n>\d+))?$"),
            ),
        ),  # fmt: skip
        Engine(
            "mybb", "mybb-1.8.37", "http://127.0.0.1:18087/", ("mybb", "forum"),
            soft_404=("/showthread.php?tid=9999",),
            kinds=(
                ("robots", r"^/robots\.txt$"),
                ("index", r"^/(?:index\.php)?$"),
                ("board", r"^/forumdisplay\.php\?fid=\d+(?:&page=(?P<n>\d+))?$"),
                ("thread", r"^/showthread\.php\?(?:page=(?P<n>\d+)&)?tid=\d+$"),
            ),
        ),  # fmt: skip
        Engine(
            "smf", "smf-2.1.4", "http://127.0.0.1:18088/", ("smf", "forum"),
            soft_404=("/index.php?topic=9999.0",),
            first=0,
            kinds=(
                ("robots", r"^/robots\.txt$"),
                ("index", r"^/(?:index\.php)?$"),
                ("board", r"^/index\.php\?board=\d+\.(?P<n>\d+)$"),
                ("thread", r"^/index\.php\?topic=\d+\.(?P<n>\d+)$"),
            ),
        ),  # fmt: skip
        Engine(
            "discuz", "discuz-x3.5", "http://127.0.0.1:18089/", ("discuz", "forum"),
            soft_404=("/forum.php?mod=viewthread&tid=9999",),
            kinds=(
                ("robots", r"^/robots\.txt$"),
                ("index", r"^/(?:forum\.php)?$"),
                ("board", r"^/forum\.php\?fid=\d+&mod=forumdisplay(?:&page=(?P<n>\d+))?$"),
                ("thread", r"^/forum\.php\?mod=viewthread(?:&page=(?P<n>\d+))?&tid=\d+$"),
            ),
        ),  # fmt: skip
        Engine(
            "phpbb", "phpbb-3.3.10", "http://127.0.0.1:18090/", ("phpbb", "forum"),
            soft_404=("/viewtopic.php?t=9999",),
            first=0,
            kinds=(
                ("robots", r"^/robots\.txt$"),
                ("index", r"^/(?:index\.php)?$"),
                ("board", r"^/viewforum\.php\?f=\d+(?:&start=(?P<n>\d+))?$"),
                ("thread", r"^/viewtopic\.php\?(?:start=(?P<n>\d+)&)?t=\d+$"),
            ),
        ),  # fmt: skip
    )
}


def engine_from_profile(name: str, base_url: str) -> Engine:
    """Any registered engine: the page kinds from its profile's URL patterns (a template
    profile's ``thread_url``/``board_url``), page numbers from its paging parameter."""
    sys.path.insert(0, str(ROOT))
    from crawler.profiles import REGISTRY

    profile = REGISTRY.get(name)
    if profile is None or profile.detect_order is None:
        known = ", ".join(sorted({*ENGINES, *(p.name for p in REGISTRY.engines)}))
        raise SystemExit(f"error: {name!r} is not a registered engine (known: {known})")
    template = getattr(profile, "TEMPLATE", None) or {}
    patterns = {
        "thread": template.get("thread_url") or _pattern(profile.thread_url),
        "board": template.get("board_url") or _pattern(profile.board_url),
        "index": _pattern(profile.index_url) or r"^/(?:index\.\w+)?$",
    }
    kinds = [("robots", r"^/robots\.txt$")] + [(k, v) for k, v in patterns.items() if v]
    param = ((template.get("paging") or {}).get("param")
             or (m.group(1) if (m := re.search(r"\[\?&\]\(?(\w+)=", _pattern(getattr(
                 profile, "post_offset_param", None)) or "")) else None))
    page = rf"[?&;]{re.escape(param)}=(?P<n>\d+)" if param else None
    first = (template.get("paging") or {}).get("base", 0 if param == "start" else 1)
    return Engine(name, name, base_url, (name, "forum"), soft_404=(), kinds=tuple(kinds),
                  first=first, page=page)


def _pattern(regex: re.Pattern[str] | None) -> str | None:
    return regex.pattern if regex is not None else None


#: Page kinds every forum capture must have (blogs: see BLOG_KINDS).
FORUM_KINDS = ("index", "board", "board_page_n", "thread", "thread_page_n", "soft_404")
BLOG_KINDS = ("index", "index_page_n", "article", "article_page_n", "article_comment_page_n", "api", "soft_404")


# -- one crawl pass (runs in a child process: one Scrapy reactor per pass) ----------------------
class Recorder:
    """Downloader middleware at 650: sees each response before redirects and retries act on it."""

    def __init__(self, folder: Path, refused: tuple[str, ...]) -> None:
        self.folder = folder
        self.refused = refused
        self.index = (folder / "index.jsonl").open("a", encoding="utf-8")

    @classmethod
    def from_crawler(cls, crawler: Any) -> Recorder:
        refused = tuple(p for p in crawler.settings.get("CAPTURE_REFUSED", "").split(",") if p)
        return cls(Path(crawler.settings["CAPTURE_DIR"]), refused)

    def process_request(self, request: Any) -> Any:
        if self.refused and urlsplit(request.url).path.startswith(self.refused):
            from scrapy.http import Response  # noqa: PLC0415

            return Response(request.url, status=404, body=b"refused by capture_site.py", request=request)
        return None

    def process_response(self, request: Any, response: Any) -> Any:
        if response.body == b"refused by capture_site.py":
            return response
        name = hashlib.sha1(request.url.encode()).hexdigest()
        (self.folder / name).write_bytes(response.body)
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, vs in response.headers.items() for v in vs]
        record = {"url": request.url, "status": response.status, "headers": headers, "body": name}
        self.index.write(json.dumps(record) + "\n")
        self.index.flush()
        return response


def run_pass(spider: str, start_url: str, folder: Path, refused: str, items: Path) -> None:
    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", "crawler.settings")
    os.chdir(ROOT)
    from scrapy.crawler import CrawlerProcess  # noqa: PLC0415
    from scrapy.utils.project import get_project_settings  # noqa: PLC0415

    settings = get_project_settings()
    middlewares = dict(settings.getdict("DOWNLOADER_MIDDLEWARES"))
    middlewares[Recorder] = 650
    overrides = {
        # "cmdline" priority, as -s would: above the spiders' custom_settings.
        "DOWNLOADER_MIDDLEWARES": middlewares,
        "COMPRESSION_ENABLED": False,  # bodies as served, without Content-Encoding
        "CAPTURE_DIR": str(folder),
        "CAPTURE_REFUSED": refused,
        # The lab runs on 127.0.0.1, which the crawler refuses unless told.
        "CRAWLER_ALLOW_PRIVATE_ADDRESSES": True,
        "CRAWLER_STATE_DIR": str(folder / "frontier-state"),
        "CRAWLER_IDLE_CLOSE": 1.0,
        "TELNETCONSOLE_ENABLED": False,
        "FEEDS": {str(items): {"format": "jsonlines"}},
        "LOG_FILE": str(folder / f"{spider}.log"),
    }
    for name, value in overrides.items():
        settings.set(name, value, priority="cmdline")
    process = CrawlerProcess(settings)
    process.crawl(spider, start_url=start_url)
    process.start()


# -- the capture ---------------------------------------------------------------------------------
def capture(engine: Engine, truth: dict[str, Any], base_url: str, out: Path, score: bool) -> int:
    """Capture the site into ``out``; the number of pages saved by the crawl passes."""
    base_url = base_url.rstrip("/") + "/"
    records: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="capture-") as tmp:
        passes = [(s, "") for s in engine.spiders] + [(s, ",".join(p)) for s, p in engine.refused_passes]
        for number, (spider, refused) in enumerate(passes):
            folder = Path(tmp) / f"pass{number}"
            folder.mkdir()
            items = folder / "items.jl"
            print(f"pass {number}: scrapy crawl {spider}" + (f" (refusing {refused})" if refused else ""))
            cmd = [sys.executable, __file__, "_pass", spider, base_url + engine.start.lstrip("/"), str(folder),
                   refused, str(items)]  # fmt: skip
            subprocess.run(cmd, check=True, cwd=ROOT)
            _merge(records, folder)
            if score and items.exists():
                _score(items, truth)
        crawled = sum(1 for r in records.values() if r["status"] == 200)
        for url in _truth_pages(engine, truth, base_url) + [base_url + p.lstrip("/") for p in engine.soft_404]:
            if route_key(_target(url)) not in records:
                print(f"fetch (not crawled): {url}")
                records[route_key(_target(url))] = _fetch(url)
    if not crawled:
        return 0
    _write(engine, truth, base_url, records, out)
    return crawled


def _merge(records: dict[str, dict[str, Any]], folder: Path) -> None:
    index = folder / "index.jsonl"
    if not index.exists():
        return
    for line in index.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record["body"] = (folder / record["body"]).read_bytes()
        key = route_key(_target(record["url"]))
        old = records.get(key)
        # A 5xx or 429 (NodeBB "too busy") was retried: keep the answer that came after it.
        if old is None or old["status"] >= 500 or old["status"] == 429:
            records[key] = record


def _fetch(url: str) -> dict[str, Any]:
    """One GET without cookies and without following redirects, with the crawler's user agent."""
    from crawler import settings  # noqa: PLC0415

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, headers={"User-Agent": settings.USER_AGENT})
    try:
        with opener.open(request, timeout=30) as resp:
            status, headers, body = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        status, headers, body = err.code, err.headers, err.read()
    return {"url": url, "status": status, "headers": list(headers.items()), "body": body}


def _target(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _truth_pages(engine: Engine, truth: dict[str, Any], base_url: str) -> list[str]:
    """The pages the truth names (thread pages; article pages), as the crawler requests them."""
    if engine.blog:
        return [u for post in truth["posts"] for u in post.get("page_urls") or [post["url"]]]
    urls = [p["page_url"] for t in truth["threads"] for p in t["posts"]]
    if engine.name == "nodebb":  # the profile reads the JSON twin of every page
        urls = [base_url + "api" + _target(u) for u in urls]
    return list(dict.fromkeys(urls))


# -- writing -------------------------------------------------------------------------------------
def _write(engine: Engine, truth: dict[str, Any], base_url: str, records: dict[str, dict[str, Any]], out: Path) -> None:
    origin = base_url.rstrip("/")
    site = out / "site"
    if out.exists():
        shutil.rmtree(out)
    site.mkdir(parents=True)
    routes: dict[str, dict[str, Any]] = {}
    kinds: dict[str, str] = {}
    raw: list[dict[str, Any]] = []
    soft = {route_key(p) for p in engine.soft_404}
    first_date = None
    for key in sorted(records):
        record = records[key]
        headers = record["headers"]
        first_date = first_date or next((v for k, v in headers if k.lower() == "date"), None)
        content_type = next((v for k, v in headers if k.lower() == "content-type"), "application/octet-stream")
        name = _file_name(key, content_type)
        (site / name).write_bytes(rewrite(record["body"], origin))
        route: dict[str, Any] = {"file": name, "content_type": content_type}
        if record["status"] != 200:
            route["status"] = record["status"]
        kept = {k: _relative(v, origin) if k.lower() == "location" else v
                for k, v in headers if k.lower() in {h.lower() for h in KEPT_HEADERS}}  # fmt: skip
        if kept:
            route["headers"] = kept
        routes[key] = route
        kinds[key] = "soft_404" if key in soft else _kind(engine, key, record["status"])
        served = [[k, rewrite(v.encode("latin-1"), origin).decode("latin-1")] for k, v in headers]
        raw.append({"url": _target(record["url"]), "status": record["status"], "headers": served, "file": name})
    manifest = {
        "kind": "blog" if engine.blog else "forum",
        "engine": engine.name,
        "spiders": list(engine.spiders),
        "date": first_date,
        "start": route_key(engine.start),
        "source": truth.get("engine"),
        "page_kinds": kinds,
        "routes": routes,
    }
    _dump(site / "routes.json", manifest)
    _dump(out / "capture.json", {"origin": origin, "engine": truth.get("engine"), "responses": raw})
    _dump(out / "expected.json", expected_from_truth(truth, origin, engine))
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    counts: dict[str, int] = {}
    for kind in kinds.values():
        counts[kind] = counts.get(kind, 0) + 1
    print(f"{out}: {len(routes)} responses, {size / 1e6:.2f} MB; kinds {counts}")
    needed = BLOG_KINDS if engine.blog else FORUM_KINDS
    missing = [k for k in needed if k not in counts]
    if missing:
        print(f"MISSING page kinds: {missing}")
    bad = [k for k, r in records.items() if r["status"] >= 500 or r["status"] == 429]
    if bad:
        print(f"WARNING: server errors kept for {bad}")


def _kind(engine: Engine, key: str, status: int) -> str:
    if 300 <= status < 400:
        return "redirect"
    for kind, pattern in engine.kinds:
        match = re.search(pattern, key)
        if match:
            n = match.groupdict().get("n")
            if n is None and engine.page and (paged := re.search(engine.page, key)):
                n = paged.group("n")
            if kind.endswith("_n") or n is None or int(n) == engine.first:
                return kind
            return f"{kind}_page_n"
    return "other"


def rewrite(body: bytes, origin: str) -> bytes:
    """The lab's origin -> ``http://fixture.invalid``, also JSON-escaped and URL-encoded."""
    host = urlsplit(origin).netloc.encode()
    out = body.replace(origin.encode(), FAKE_ORIGIN.encode())
    out = out.replace(origin.replace("/", "\\/").encode(), FAKE_ORIGIN.replace("/", "\\/").encode())
    out = out.replace(host.replace(b":", b"%3A"), b"fixture.invalid").replace(host.replace(b":", b"%3a"), b"fixture.invalid")
    return out.replace(host, b"fixture.invalid")


def _relative(location: str, origin: str) -> str:
    return location[len(origin):] or "/" if location.startswith(origin) else location


def _file_name(key: str, content_type: str) -> str:
    ext = ".json" if "json" in content_type else ".xml" if "xml" in content_type else ".txt" if "text/plain" in content_type else ".html"  # fmt: skip
    slug = re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-") or "index"
    if len(slug) > 60:
        slug = slug[:50] + "-" + hashlib.sha1(key.encode()).hexdigest()[:8]
    return slug + ext


def _dump(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def expected_from_truth(truth: dict[str, Any], origin: str, engine: Engine) -> dict[str, Any]:
    """The items the truth says the site holds, URLs on the fixture origin (see tests)."""

    def fake(url: str) -> str:
        return url.replace(origin, FAKE_ORIGIN)

    if engine.blog:
        return {
            "engine": engine.name,
            "source": truth.get("engine"),
            "comments_per_page": truth.get("comments_per_page"),
            "posts": [
                {
                    "id": str(p["id"]), "url": fake(p["url"]), "title": p["title"], "author": p["author"],
                    "published": p["published"], "categories": p["categories"], "tags": p["tags"],
                    "page_urls": [fake(u) for u in p.get("page_urls") or [p["url"]]],
                    "body_text": p["body_text"],
                    "comments": [
                        {"id": str(c["id"]), "author": c["author"], "created": c["created"],
                         "parent": str(c["parent"]) if c.get("parent") else None, "url": fake(c["url"]),
                         "body_text": c["body_text"]}
                        for c in p["comments"]
                    ],
                }
                for p in truth["posts"]
            ],
        }  # fmt: skip
    return {
        "engine": engine.name,
        "source": truth.get("engine"),
        "posts_per_page": truth["posts_per_page"],
        "threads": [
            {
                "id": str(t["id"]), "url": fake(t["url"]), "title": t["title"], "author": t["author"],
                "created": t["created"], "board": t["board"], "board_id": str(t["board_id"]), "pages": t["pages"],
                "posts": [
                    {"id": str(p["id"]), "position": p["position"], "author": p["author"],
                     "created": p["created"], "page": p["page"], "page_url": fake(p["page_url"]),
                     "body_text": p["body_text"]}
                    for p in t["posts"]
                ],
            }
            for t in truth["threads"]
        ],
    }  # fmt: skip


def _score(items: Path, truth: dict[str, Any]) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    from score_against_truth import read_items, report, score  # noqa: PLC0415

    print(report(score(read_items(items), truth), show=1))



# -- learned-template fixtures (--learned) -------------------------------------------------------
_BIG_SCRIPT = re.compile(rb"(<(script|style)\b[^>]*>)((?:(?!</\2>).){2048,})(</\2>)", re.DOTALL | re.IGNORECASE)


def fetch(url: str) -> tuple[int, str, bytes, str]:
    """One GET, redirects followed (a page that redirects is left out of a learned capture)."""
    request = urllib.request.Request(url, headers={"User-Agent": "Mozilla/5.0 (compatible; fixture-capture)"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.headers.get("Content-Type", "text/html"), response.read(), response.url


def capture_learned(start: str, out: Path, pages: int, keep: re.Pattern[str] | None, timezone: str | None = None) -> dict[str, str]:
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(start))
    site = SITES / out.name  # the fixture site; out keeps its truth.json
    site.mkdir(parents=True, exist_ok=True)
    routes: dict[str, dict[str, str]] = {}
    queue, seen, kept = deque([start]), {start}, {}
    while queue and len(routes) < pages:
        url = queue.popleft()
        try:
            status, ctype, body, final = fetch(url)
        except Exception as error:  # noqa: BLE001 - a capture tool reports and goes on
            print(f"skip {url}: {error}", file=sys.stderr)
            continue
        if final != url or "html" not in ctype:
            continue
        name = f"p{len(routes):03d}.html"
        text = body.decode("utf-8", "replace")
        for link in follow_links(parse(text, url), url):
            if link not in seen and (keep is None or keep.search(link)):
                seen.add(link)
                queue.append(link)
        body = _BIG_SCRIPT.sub(lambda m: m.group(1) + m.group(4), body)
        (site / name).write_bytes(body.replace(origin.encode(), FAKE_ORIGIN.encode()))
        routes[route_key(url[len(origin) :])] = {"file": name, "content_type": ctype}
        kept[url] = name
    manifest = {
        "kind": "learned",
        "spider": "forum",
        "args": {"profile": "none"},
        "date": "Mon, 01 Jul 2024 00:00:00 GMT",
        "start": route_key(start[len(origin) :]),
        "routes": routes,
        **({"timezone": timezone} if timezone else {}),
    }
    (site / "routes.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return kept


def cut_truth(truth_path: Path, kept: dict[str, str], out: Path) -> None:
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    origin = truth["base_url"].rstrip("/")
    captured = {canonicalize_url(u) for u in kept}
    threads = []
    for thread in truth["threads"]:
        pages = {canonicalize_url(p["page_url"]) for p in thread["posts"]}
        if pages and pages <= captured:
            threads.append(thread)
    truth["all_markers"] = sorted({m for t in truth["threads"] for p in t["posts"] if (m := marker(p["body_text"])) is not None})
    truth["threads"] = threads
    text = json.dumps(truth, ensure_ascii=False, indent=1).replace(origin, FAKE_ORIGIN)
    out.mkdir(parents=True, exist_ok=True)
    (out / "truth.json").write_text(text + "\n", encoding="utf-8")
    print(f"truth: {len(threads)} threads, {sum(len(t['posts']) for t in threads)} posts fully captured")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_pass":
        spider, start_url, folder, refused, items = argv[1:6]
        run_pass(spider, start_url, Path(folder), refused, Path(items))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine", nargs="?", help="a lab engine (" + ", ".join(sorted(ENGINES))
                        + ") or any registered engine profile with --base-url")
    parser.add_argument("--learned", metavar="START", help="capture any forum from START for the learned tests (needs --out)")
    parser.add_argument("--pages", type=int, default=45, help="--learned: pages at most")
    parser.add_argument("--keep", help="--learned: only follow links matching this regex")
    parser.add_argument("--timezone", help="--learned: the zone the site shows its dates in (IANA name)")
    parser.add_argument("--base-url", help="the running site (default: the lab's port)")
    parser.add_argument("--truth", type=Path, help="its truth.json (default: ../shared/engines/<engine>/)")
    parser.add_argument("--out", type=Path, help="default: tests/fixtures/real/<engine>-<version>")
    parser.add_argument("--score", action="store_true", help="score each pass's items against the truth")
    args = parser.parse_args(argv)
    if args.learned:
        if not args.out:
            parser.error("--learned needs --out DIR")
        kept = capture_learned(args.learned, args.out, args.pages, re.compile(args.keep) if args.keep else None, args.timezone)
        print(f"captured {len(kept)} pages into {SITES / args.out.name}")
        if args.truth:
            cut_truth(args.truth, kept, args.out)
        return 0
    if not args.engine:
        parser.error("name an engine, or --learned START --out DIR")
    if args.engine in ENGINES:
        engine = ENGINES[args.engine]
    elif args.base_url:
        engine = engine_from_profile(args.engine, args.base_url)
    else:
        parser.error(f"{args.engine!r} is not a lab engine: give its --base-url (and --truth)")
    truth_path = args.truth or LAB / engine.name / "truth.json"
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    base_url = args.base_url or truth.get("base_url") or engine.base_url
    saved = capture(engine, truth, base_url, args.out or REAL / engine.folder, args.score)
    if not saved:
        print(f"error: the capture of {base_url} saved no page (see the crawl logs)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
