#!/usr/bin/env python
"""Capture a live forum (a lab engine on loopback) as a fixture site for the fixture server.

    python scripts/capture_learn_fixture.py http://127.0.0.1:18087/ tests/fixtures/profiles/learned_mybb \\
        --truth /work/shared/engines/mybb/truth.json --pages 45

Breadth-first from the start URL over the links the learner would follow
(:func:`crawler.learn.links.follow_links`), at most ``--pages`` pages. Writes ``site/`` (one file
per page and ``routes.json``, absolute links rewritten to ``http://fixture.invalid``) and, with
``--truth``, ``truth.json``: the engine's database truth cut down to the captured threads and
with URLs rewritten the same way. Inline scripts and styles over 2 kB are emptied (they do
not hold posts here) to keep the fixture small. ``expected.json`` is then written by
``scripts/update_profile_fixtures.py --overwrite-json <name>``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.request
from collections import deque
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from w3lib.url import canonicalize_url  # noqa: E402

from crawler.learn.dom import parse  # noqa: E402
from crawler.learn.evaluate import marker  # noqa: E402
from crawler.learn.links import follow_links  # noqa: E402
from crawler.testing.fixture_server import route_key  # noqa: E402

FAKE = "http://fixture.invalid"
_BIG_SCRIPT = re.compile(rb"(<(script|style)\b[^>]*>)((?:(?!</\2>).){2048,})(</\2>)", re.DOTALL | re.IGNORECASE)


def fetch(url: str) -> tuple[int, str, bytes, str]:
    request = urllib.request.Request(url, headers={"User-Agent": "Mozilla/5.0 (compatible; fixture-capture)"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.headers.get("Content-Type", "text/html"), response.read(), response.url


def capture(start: str, out: Path, pages: int, keep: re.Pattern[str] | None, timezone: str | None = None) -> dict[str, str]:
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(start))
    site = out / "site"
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
        (site / name).write_bytes(body.replace(origin.encode(), FAKE.encode()))
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
    text = json.dumps(truth, ensure_ascii=False, indent=1).replace(origin, FAKE)
    (out / "truth.json").write_text(text + "\n", encoding="utf-8")
    print(f"truth: {len(threads)} threads, {sum(len(t['posts']) for t in threads)} posts fully captured")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("start")
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", type=int, default=45)
    parser.add_argument("--truth", type=Path)
    parser.add_argument("--keep", help="only follow links matching this regex")
    parser.add_argument("--timezone", help="the zone the site shows its dates in (IANA name)")
    args = parser.parse_args()
    kept = capture(args.start, args.out, args.pages, re.compile(args.keep) if args.keep else None, args.timezone)
    print(f"captured {len(kept)} pages into {args.out / 'site'}")
    if args.truth:
        cut_truth(args.truth, kept, args.out)


if __name__ == "__main__":
    main()
