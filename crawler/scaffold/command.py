"""``python -m crawler new-engine NAME --from THREAD_URL``, step by step:

1. learn the engine's template on the thread and the pages around it (the ``learn`` command's
   crawl, :func:`crawler.ops.learn.learn_url`), after reading the site's robots.txt;
2. write ``crawler/profiles/NAME.py`` (a :class:`~crawler.profiles.template_profile.TemplateProfile`
   with the template as data and its limits declared);
3. crawl the live site with ``-a profile=NAME`` from the thread, saving every answer: that is
   the fixture site (``tests/fixtures/sites/NAME/``), and the engine's markup shared by its pages
   and absent from every other fixture site becomes the profile's detection;
4. crawl the fixture for ``tests/fixtures/profiles/NAME/expected.json``, write
   ``tests/extract/test_engine_NAME.py`` and run it.

It prints what it wrote, the first posts of the thread and where it is unsure. A failing step
is one line and exit status 2.
"""

from __future__ import annotations

import ipaddress
import json
import multiprocessing
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from parsel import Selector

from crawler.learn.dom import parse
from crawler.learn.repeats import learn_repeats, repeat_said
from crawler.learn.template import Template
from crawler.scaffold.assess import limits_and_doubts, robots_doubts
from crawler.scaffold.markers import Fingerprint, fingerprint
from crawler.scaffold.page_ids import learn_page_thread_id
from crawler.scaffold.record import records, write_site
from crawler.scaffold.refine import (
    refine_author,
    refine_board_link,
    refine_id_in_page_value,
    refine_thread_url,
    refine_title,
)
from crawler.scaffold.render import render_profile, render_test

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[2]
#: The project's fixture sites, beside their expectations (tests/, not the package).
SITES = ROOT / "tests" / "fixtures" / "sites"
#: Posts shown for a person to check against the page.
SHOWN = 5


class Failed(Exception):
    """A step that cannot go on: its message is the command's one line."""


def paths(name: str) -> dict[str, Path]:
    return {
        "profile": ROOT / "crawler" / "profiles" / f"{name}.py",
        "site": SITES / name,
        "expected": ROOT / "tests" / "fixtures" / "profiles" / name / "expected.json",
        "test": ROOT / "tests" / "extract" / f"test_engine_{name}.py",
    }


def main(name: str, url: str, settings: dict[str, str], spider_args: dict[str, str],
         pages: int = 60, force: bool = False, limits: list[str] | None = None) -> int:
    try:
        check_name(name, force)
        declared = check_limits(limits or [])
        settings = {**_private(url), **settings}
        run(name, url, settings, spider_args, pages, declared)
    except Failed as exc:
        print(f"error: new-engine {name}: {exc}", file=sys.stderr)
        return 2
    return 0


def check_name(name: str, force: bool) -> None:
    from crawler.profiles import REGISTRY

    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise Failed("NAME must be lowercase letters, digits and underscores")
    written = [p for p in paths(name).values() if p.exists()]
    if written and not force:
        raise Failed(f"{written[0].relative_to(ROOT)} exists"
                     " (--force writes over this engine's files)")
    if force and paths(name)["site"].exists():
        shutil.rmtree(paths(name)["site"])  # its own captured pages, captured again
    if REGISTRY.get(name) is not None and not written:
        raise Failed(f"{name!r} is already a profile name; pick another")


def check_limits(names: list[str]) -> frozenset[str]:
    """The limits named with ``--limit``: what the user knows the engine never shows."""
    from crawler.profiles.base import LIMITS

    unknown = sorted(set(names) - set(LIMITS))
    if unknown:
        raise Failed(f"unknown limit {unknown[0]!r} (known: {', '.join(sorted(LIMITS))})")
    return frozenset(names)


def run(name: str, url: str, settings: dict[str, str], spider_args: dict[str, str],
        pages: int, declared: frozenset[str] = frozenset()) -> None:
    from crawler.ops.learn import learn_url

    files = paths(name)
    doubts = _robots(url)
    print(f"learning the template from {url} ...")
    learned = learn_url(url, settings=settings, spider_args=spider_args)
    if isinstance(learned, str):
        raise Failed(f"no template learned: {learned}")
    if refine_id_in_page_value(learned, url):
        print(f"thread ids: read by {learned.thread_url} (the number before the page's)")
    if learned.thread_id(url) is None:  # see _from_root
        print(f"{url} is no thread page to the template learned on its pages "
              f"(threads: {learned.thread_url})")
        learned = _from_root(url, settings, spider_args) or learned
    items, saved = _capture(name, url, learned, settings, spider_args, pages, files)
    if not any(i.get("item_type") == "post" for i in items):
        print("the crawl with that profile read no post")
        if again := _from_root(url, settings, spider_args):
            learned = again
            items, saved = _capture(name, url, learned, settings, spider_args, pages, files)
    if not any(_is_page(r) for r in saved):
        raise Failed("the crawl with the new profile saved no page (see the log above)")
    posts = [i for i in items if i.get("item_type") == "post"]
    if not posts:
        raise Failed("the crawl with the new profile read no post")
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    start = url[len(origin):] or "/"
    mine = [(r["url"], r["body"].decode("utf-8", "replace")) for r in saved if _is_page(r)]
    found = fingerprint([text for _, text in mine], _other_pages(name), learned.posts.record)
    saved, mine = _engine_pages(found, saved, mine)
    count = write_site(saved, origin, files["site"], start, {"profile": name})
    if refine_board_link(learned, mine):
        print(f"boards: read from {learned.breadcrumbs} (no breadcrumb trail: the one link of"
              " every thread page to a board)")
    if refine_thread_url(learned, mine):
        print(f"thread ids: read by {learned.thread_url} (learned again on every thread's URL)")
    in_page = learn_page_thread_id(learned, mine)
    if in_page:
        print(f"thread ids: read in the page by {in_page['xpath']} ~ {in_page['regex']} (the"
              " thread URLs carry no id)")
    if refine_title(learned, mine):
        where = learned.title.xpath or f"<title> less {learned.title.strip}"
        print(f"thread titles: read from {where} (learned again on every thread)")
    if refine_author(learned, mine):
        print(f"authors: read from {learned.posts.author.xpath} (a longer link to the same "
              "member page than the learned one, a letter avatar)")
    learn_repeats(learned, [(u, parse(text, u)) for u, text in mine])  # every captured page
    if repeat := repeat_said(learned):
        print(f"repeated posts: {repeat} (dropped when read)")
    limits, more = limits_and_doubts(learned, posts, mine, declared)
    if not found.markers and not found.generator:
        more.append("no markup shared by every page and absent from other engines: not detected")
    _write_profile(name, url, learned, found, doubts + more, limits, files, in_page)
    _subprocess([sys.executable, "scripts/update_profile_fixtures.py", "--overwrite-json", name],
                "writing expected.json")
    files["test"].write_text(render_test(name), encoding="utf-8")
    _subprocess([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                 "-p", "no:cacheprovider",
                 "-n", "0",
                 str(files["test"].relative_to(ROOT))], "the new test")
    _report(name, files, count, found, limits, posts, url, doubts + more, learned)


def _write_profile(name, url, template: Template, found, doubts, limits, files,
                   in_page: dict[str, str] | None = None) -> None:
    found = found or Fingerprint((), ())
    text = render_profile(name, url, template, found, limits, doubts, in_page)
    files["profile"].write_text(text, encoding="utf-8")


def _record(name: str, url: str, settings: dict[str, str], spider_args: dict[str, str],
            pages: int, folder: Path) -> list[dict]:
    """Crawl with the new profile from ``url``; every answer saved under ``folder/pages``."""
    out = folder / "items.jl"
    middlewares = {"crawler.encoding.CharsetMiddleware": 580,
                   "crawler.scaffold.record.Recorder": 650}
    given = {"CLOSESPIDER_PAGECOUNT": str(pages), "LOG_LEVEL": "WARNING",
             "CRAWLER_STATE_DIR": str(folder / "state"), "COMPRESSION_ENABLED": "False",
             "SCAFFOLD_RECORD_DIR": str(folder / "pages"), "CRAWLER_IDLE_CLOSE": "1",
             "DOWNLOADER_MIDDLEWARES": json.dumps(middlewares), **settings}
    command = [sys.executable, "-m", "scrapy", "crawl", "forum", "-O", f"{out}:jsonlines",
               "-a", f"start_urls={url}", "-a", f"profile={name}"]
    command += [x for k, v in spider_args.items() for x in ("-a", f"{k}={v}")]
    command += [x for k, v in given.items() for x in ("-s", f"{k}={v}")]
    _subprocess(command, "the crawl with the new profile")
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line]


def _capture(name: str, url: str, learned: Template, settings: dict[str, str],
             spider_args: dict[str, str], pages: int,
             files: dict[str, Path]) -> tuple[list[dict], list[dict]]:
    """The items and the saved answers of a crawl with the profile of ``learned``."""
    _write_profile(name, url, learned, (), [], frozenset(), files)
    with tempfile.TemporaryDirectory(prefix="new-engine-") as tmp:
        folder = Path(tmp)
        print(f"crawling {urlsplit(url).netloc} with -a profile={name} (at most {pages} pages) ...")
        starts = [url, index_of(learned, url)]
        items = _record(name, ",".join(dict.fromkeys(starts)), settings, spider_args, pages, folder)
        return items, records(folder / "pages")


def _from_root(url: str, settings: dict[str, str], spider_args: dict[str, str]
               ) -> Template | None:
    """The template learned from the site's root, where many threads are linked, if it reads
    ``url`` as a thread page. For when the one learned on the thread's own pages and
    permalinks, all the learner saw, misnames threads: Askbot's answer permalinks ``?answer=6``
    read as thread 6 and the question's path number as a board; Beehive's ``msg=3.11``, post
    11 of thread 3, as thread 11, and then no post read."""
    root = urljoin(url, "/")
    print(f"learning again from {root} ...")
    # A crawl of its own: Twisted's reactor runs once per process.
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        found = pool.apply(_learned_json, (root, settings, spider_args))
    again = Template.from_json(found) if found else None
    return again if again is not None and again.thread_id(url) is not None else None


def _learned_json(url: str, settings: dict[str, str], spider_args: dict[str, str]) -> str | None:
    from crawler.ops.learn import learn_url

    learned = learn_url(url, settings=settings, spider_args=spider_args)
    return None if isinstance(learned, str) else learned.to_json()


def index_of(template: Template, url: str) -> str:
    """The forum's index: the first breadcrumb of the thread page, else the site's root."""
    from crawler import settings

    root = urljoin(url, "/")
    if not template.breadcrumbs:
        return root
    request = urllib.request.Request(url, headers={"User-Agent": settings.USER_AGENT})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            page = parse(response.read(), url)
    except OSError:
        return root
    hrefs = [h for h in page.xpath(f"({template.breadcrumbs})/@href") if isinstance(h, str)]
    return urljoin(url, hrefs[0]) if hrefs else root


def _engine_pages(found: Fingerprint, saved: list[dict], mine: list[tuple[str, str]]
                  ) -> tuple[list[dict], list[tuple[str, str]]]:
    """The captured answers less the pages outside the forum (a site's home page above a
    forum plugin, linked as the trail's first crumb): they do not carry the engine's markup."""
    if not found.markers and not found.generator:
        return saved, mine
    outside = {url for url, text in mine if not found.matches(Selector(text=text, type="html"))}
    return ([r for r in saved if r["url"] not in outside],
            [(u, t) for u, t in mine if u not in outside])


def _is_page(record: dict) -> bool:
    return record["status"] == 200 and "html" in record["headers"].get("Content-Type", "")


def _subprocess(command: list[str], what: str) -> None:
    result = subprocess.run(command, cwd=ROOT, check=False)
    if result.returncode:
        raise Failed(f"{what} failed (exit {result.returncode}): {' '.join(command[:6])} ...")


def _other_pages(name: str) -> list[str]:
    """HTML of every page of every other fixture site: the new markers must miss them all."""
    pages = []
    for manifest in sorted(SITES.glob("*/routes.json")):
        if manifest.parent.name == name:
            continue
        for route in json.loads(manifest.read_text(encoding="utf-8"))["routes"].values():
            if "html" in route.get("content_type", ""):
                body = (manifest.parent / route["file"]).read_bytes()
                pages.append(body.decode("utf-8", "replace"))
    return pages


def _robots(url: str) -> list[str]:
    from crawler import settings

    robots = urljoin(url, "/robots.txt")
    try:
        request = urllib.request.Request(robots, headers={"User-Agent": settings.USER_AGENT})
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode("utf-8", "replace")
    except OSError:
        return []
    checked = {"the thread": url, "a JSON API under /api/": urljoin(url, "/api/")}
    return robots_doubts(text, checked, settings.USER_AGENT)


def _private(url: str) -> dict[str, str]:
    """A forum on this machine or a private network, named on the command line, may be
    crawled: the crawler refuses such addresses unless told (CRAWLER_ALLOW_PRIVATE_ADDRESSES)."""
    host = urlsplit(url).hostname or ""
    try:
        private = host == "localhost" or ipaddress.ip_address(host).is_private
    except ValueError:
        private = False
    return {"CRAWLER_ALLOW_PRIVATE_ADDRESSES": "True"} if private else {}


def _report(name, files, count, found, limits, posts, url, doubts, template) -> None:
    print("\nwrote:")
    print(f"  {files['profile'].relative_to(ROOT)}   the profile (review it, then commit)")
    print(f"  {files['site'].relative_to(ROOT)}/   {count} captured pages (the fixture site)")
    print(f"  {files['expected'].relative_to(ROOT)}   what a crawl of them gives")
    print(f"  {files['test'].relative_to(ROOT)}   its test (passed)")
    print(f"detected by: generator {found.generator or '-'}, markers {found.markers or '-'}")
    print(f"limits declared: {', '.join(sorted(limits)) or 'none'}")
    tid = template.thread_id(url)
    # as the profile reads them (expected.json), after the second look at the capture
    items = json.loads(files["expected"].read_text(encoding="utf-8"))["items"]
    posts = [i for i in items if i.get("item_type") == "post"] or posts
    shown = sorted((p for p in posts if p["thread_id"] == tid),
                   key=lambda p: p.get("position") or 0)
    print(f"\nthe first posts of {url} (check them against the page):")
    for post in shown[:SHOWN]:
        words = " ".join((post.get("body_text") or "").split())[:60]
        author = (post.get("author") or {}).get("name")
        print(f"  #{post.get('position')} {author or '?'} {post.get('created') or '?'}: {words}")
    print("\nunsure:" if doubts else "\nunsure: nothing")
    for line in doubts:
        print(f"  - {line}")
    print(f"\nnext: scrapy crawl forum -a profile={name} -a start_url=<the forum's index>;"
          f" python -m pytest -k {name}")


def add_parser(sub) -> None:
    """The ``new-engine`` subcommand of ``python -m crawler``."""
    p = sub.add_parser("new-engine", help="add a forum engine from one thread URL: profile, "
                       "fixtures, test (docs/adding-an-engine.md)")
    p.add_argument("name", metavar="NAME", help="engine id: lowercase letters, digits, underscores")
    p.add_argument("--from", dest="url", required=True, metavar="THREAD_URL",
                   help="a thread page of a forum running the engine (best: one with 2+ pages)")
    p.add_argument("--pages", type=int, default=60, help="pages captured at most (default 60)")
    p.add_argument("--force", action="store_true", help="write over this engine's own files")
    p.add_argument("--limit", dest="limits", action="append", default=[], metavar="LIMIT",
                   help="declare what the engine never shows, as the profile's limits"
                        " (e.g. --limit board_ids: its board URLs carry a slug, not the id)")
    p.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a setting for the crawls, as for scrapy crawl")
    p.add_argument("-a", dest="spargs", action="append", default=[], metavar="NAME=VALUE",
                   help="a forum spider argument, as for scrapy crawl"
                   " (e.g. -a timezone=Asia/Shanghai)")
