#!/usr/bin/env python3
"""Score a crawl's JSON Lines output against an engine lab site's ``truth.json``.

``truth.json`` is read from the engine's own database (see ``../shared/engines/README.md``), never
from its HTML, so these figures say how right the extraction is, not how self-consistent.

    python scripts/score_against_truth.py out.jl ../shared/engines/mybb/truth.json
    python scripts/score_against_truth.py out.jl truth.json --min 0.99 --show 5   # exit 1 below

Forums (items ``thread`` and ``post``, matched to the truth by engine id):

* thread titles, board names, board ids, board paths (the breadcrumb ends with the board and
  repeats no name, holds no thread title and no pager text),
  thread authors and dates, each over the truth's threads (a thread not crawled counts as wrong);
* post recall (truth posts crawled), and per post: author, date (same instant), position
  (1 = opening post) and body: the text of our ``body_html`` equals the truth's ``body_text``
  (both through the lab's ``htmltext`` rule: tags and images dropped, blocks separate words,
  whitespace collapsed; quotes and code count as text), over all truth posts;
* extra posts (ids the truth does not have) and duplicates are counted, not scored.

What the engine never shows is not held against the crawl: the limits its profile declares
(``limits`` in ``crawler/profiles/<engine>.py``; the engine named in the items, or
``--profile NAME``). ``clock_time``: dates are compared by day; ``opening_post_id``: the opening
post is matched by thread and position; ``repeated_posts``: duplicates are expected;
``board_ids``: board ids are not scored.

Blogs (WordPress, items ``article`` and ``comment``): article recall, title, categories, tags,
author, published date and body (every part of a split post, joined); comment recall, author,
date, parent and body. Articles are matched by URL path, comments by id.

Each figure is printed as ``name  right/total  ratio``; ``--json`` prints them as JSON too.
The exit status is 1 when ``--min`` is given and a figure is below it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# -- the lab's text rule (engines/common/htmltext.py), so both sides are normalised alike ------
_BLOCK = {"p", "div", "br", "li", "ul", "ol", "pre", "blockquote", "h1", "h2", "h3",
          "h4", "h5", "h6", "tr", "table", "hr", "section", "article", "figure"}  # fmt: skip


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in _BLOCK:
            self.out.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        elif tag in _BLOCK:
            self.out.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.out.append(data)


def html_text(html: str | None) -> str:
    """Text of ``html`` by the lab's rule (``engines/common/htmltext.py``)."""
    parser = _Text()
    parser.feed(html or "")
    parser.close()
    return re.sub(r"\s+", " ", "".join(parser.out)).strip()


def normalise(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def instant(value: str | None) -> datetime | None:
    """An aware datetime, or None for a missing or naive value (a naive date is wrong)."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else None


# -- figures -------------------------------------------------------------------------------
@dataclass
class Figure:
    name: str
    right: int = 0
    total: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, ok: bool, what: str) -> None:
        self.total += 1
        if ok:
            self.right += 1
        else:
            self.misses.append(what)

    @property
    def ratio(self) -> float:
        return self.right / self.total if self.total else 1.0


class Scorecard:
    def __init__(self) -> None:
        self.figures: dict[str, Figure] = {}
        self.counts: dict[str, int] = {}

    def check(self, name: str, ok: bool, what: str) -> None:
        self.figures.setdefault(name, Figure(name)).add(ok, what)

    def as_dict(self) -> dict[str, Any]:
        return {
            "figures": {f.name: {"right": f.right, "total": f.total, "ratio": round(f.ratio, 4)}
                        for f in self.figures.values()},
            "counts": self.counts,
        }  # fmt: skip

    def lowest(self) -> float:
        return min((f.ratio for f in self.figures.values()), default=1.0)


def _short(value: Any, size: int = 70) -> str:
    text = repr(value)
    return text if len(text) <= size else text[: size - 3] + "..."


def same_time(ours: str | None, want: str, limits: frozenset[str]) -> bool:
    if "clock_time" in limits:
        mine = instant(ours)
        return mine is not None and mine.date() == instant(want).date()
    return instant(ours) == instant(want)


def score_forum(items: list[dict[str, Any]], truth: dict[str, Any],
                limits: frozenset[str] = frozenset()) -> Scorecard:
    card = Scorecard()
    threads = [i for i in items if i.get("item_type") == "thread"]
    posts = [i for i in items if i.get("item_type") == "post"]
    thread_by_id = {str(t.get("thread_id")): t for t in threads}
    post_by_id = {str(p.get("post_id")): p for p in posts}
    openers = {str(p.get("thread_id")): p for p in posts if p.get("position") == 1}
    truth_post_ids: set[str] = set()
    titles = {t["title"] for t in truth["threads"]}
    for t in truth["threads"]:
        tid = str(t["id"])
        got = thread_by_id.get(tid) or {}
        board = got.get("board") or {}
        path = board.get("path") or []
        where = f"thread {tid}"
        card.check("threads found", bool(got), where)
        card.check("thread titles", got.get("title") == t["title"], f"{where}: {_short(got.get('title'))}")
        card.check("board names", board.get("name") == t["board"], f"{where}: {_short(board.get('name'))}")
        if "board_ids" not in limits:
            card.check("board ids", board.get("id") == str(t["board_id"]),
                       f"{where}: {_short(board.get('id'))}")
        card.check("board paths", _path_ok(path, t["board"], titles), f"{where}: {_short(path, 140)}")
        card.check(
            "thread authors", (got.get("author") or {}).get("name") == t["author"],
            f"{where}: {_short((got.get('author') or {}).get('name'))}",
        )  # fmt: skip
        card.check(
            "thread dates", same_time(got.get("created"), t["created"], limits),
            f"{where}: {got.get('created')} != {t['created']}",
        )  # fmt: skip
        for p in t["posts"]:
            pid = str(p["id"])
            truth_post_ids.add(pid)
            mine = post_by_id.get(pid) or {}
            if not mine and p["position"] == 1 and "opening_post_id" in limits:
                mine = openers.get(tid) or {}
                truth_post_ids.add(str(mine.get("post_id")))
            where = f"post {pid} (thread {tid} #{p['position']})"
            card.check("post recall", bool(mine), where)
            card.check("post thread ids", str(mine.get("thread_id")) == tid, f"{where}: {mine.get('thread_id')}")
            name = (mine.get("author") or {}).get("name")
            card.check("post authors", name == p["author"], f"{where}: {_short(name)} != {p['author']!r}")
            card.check(
                "post dates", same_time(mine.get("created"), p["created"], limits),
                f"{where}: {mine.get('created')} != {p['created']}",
            )  # fmt: skip
            card.check("post positions", mine.get("position") == p["position"], f"{where}: {mine.get('position')}")
            ours = html_text(mine.get("body_html"))
            want = normalise(p["body_text"])
            card.check("post bodies", ours == want, f"{where}: {_diff(ours, want)}")
    ids = Counter(str(p.get("post_id")) for p in posts)
    card.counts = {
        "threads crawled": len(threads),
        "posts crawled": len(posts),
        "extra posts (not in truth)": sum(1 for pid in ids if pid not in truth_post_ids),
        "duplicate posts": sum(n - 1 for n in ids.values() if n > 1),
        "extra threads (not in truth)": len(set(thread_by_id) - {str(t["id"]) for t in truth["threads"]}),
    }
    return card


def _path_ok(path: list[str], board: str, titles: set[str]) -> bool:
    """The breadcrumb trail ends with the board, names nothing twice (a trail printed twice),
    and holds no thread title and no pager text ("1", "Next »")."""
    return (
        bool(path)
        and path[-1] == board
        and len(set(path)) == len(path)
        and not any(name in titles or re.fullmatch(r"[\d\s]+|.*[«»].*", name) for name in path)
    )


def score_blog(items: list[dict[str, Any]], truth: dict[str, Any]) -> Scorecard:
    card = Scorecard()
    articles = {_path(i.get("url")): i for i in items if i.get("item_type") == "article"}
    comments = {str(i.get("comment_id")): i for i in items if i.get("item_type") == "comment"}
    for post in truth["posts"]:
        got = articles.get(_path(post["url"])) or {}
        where = f"article {post['id']} {_path(post['url'])}"
        card.check("articles found", bool(got), where)
        card.check("article titles", got.get("title") == post["title"], f"{where}: {_short(got.get('title'))}")
        card.check(
            "article categories", sorted(got.get("categories") or []) == sorted(post["categories"]),
            f"{where}: {got.get('categories')}",
        )  # fmt: skip
        card.check(
            "article tags", sorted(got.get("tags") or []) == sorted(post["tags"]), f"{where}: {got.get('tags')}"
        )
        card.check("article authors", got.get("author") == post["author"], f"{where}: {_short(got.get('author'))}")
        card.check(
            "article dates", instant(got.get("published")) == instant(post["published"]),
            f"{where}: {got.get('published')} != {post['published']}",
        )  # fmt: skip
        ours, want = html_text(got.get("body_html")), normalise(post["body_text"])
        card.check("article bodies", ours == want, f"{where}: {_diff(ours, want)}")
        for c in post["comments"]:
            cid = str(c["id"])
            mine = comments.get(cid) or {}
            where = f"comment {cid} on {_path(post['url'])}"
            card.check("comment recall", bool(mine), where)
            card.check(
                "comment articles", _path(mine.get("article_url")) == _path(post["url"]),
                f"{where}: {mine.get('article_url')}",
            )  # fmt: skip
            card.check("comment authors", mine.get("author") == c["author"], f"{where}: {_short(mine.get('author'))}")
            card.check(
                "comment dates", instant(mine.get("created")) == instant(c["created"]),
                f"{where}: {mine.get('created')} != {c['created']}",
            )  # fmt: skip
            parent = str(c["parent"]) if c.get("parent") else None
            card.check("comment parents", mine.get("parent_id") == parent, f"{where}: {mine.get('parent_id')}")
            ours, want = html_text(mine.get("body_html")), normalise(c["body_text"])
            card.check("comment bodies", ours == want, f"{where}: {_diff(ours, want)}")
    truth_comments = {str(c["id"]) for p in truth["posts"] for c in p["comments"]}
    truth_paths = {_path(p["url"]) for p in truth["posts"]}
    card.counts = {
        "articles crawled": len(articles),
        "comments crawled": len(comments),
        "extra articles (not in truth)": len(set(articles) - truth_paths),
        "extra comments (not in truth)": len(set(comments) - truth_comments),
    }
    return card


def _path(url: str | None) -> str:
    parts = urlsplit(url or "")
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _diff(ours: str, want: str) -> str:
    """Where two texts part, with a little context."""
    at = next((i for i, (a, b) in enumerate(zip(ours, want)) if a != b), min(len(ours), len(want)))
    start = max(at - 25, 0)
    return f"at {at}: ours {ours[start:at + 35]!r} / truth {want[start:at + 35]!r}"


def score(items: list[dict[str, Any]], truth: dict[str, Any],
          limits: frozenset[str] = frozenset()) -> Scorecard:
    if "posts" in truth and "threads" not in truth:
        return score_blog(items, truth)
    return score_forum(items, truth, limits)


def declared_limits(items: list[dict[str, Any]], name: str | None = None) -> frozenset[str]:
    """The limits the profile of ``name`` (else of the engine the items name) declares."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from crawler.profiles import REGISTRY
    from crawler.profiles.base import limits_of

    engines = Counter(i.get("engine") for i in items if i.get("item_type") == "post")
    name = name or (engines.most_common(1)[0][0] if engines else None)
    profile = REGISTRY.get(name) if name else None
    return limits_of(profile) if profile is not None else frozenset()


def read_items(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def report(card: Scorecard, show: int = 3) -> str:
    width = max(len(name) for name in card.figures) if card.figures else 10
    lines = []
    for fig in card.figures.values():
        lines.append(f"{fig.name:<{width}}  {fig.right:>4}/{fig.total:<4}  {fig.ratio:.3f}")
        for miss in fig.misses[:show]:
            lines.append(f"{'':<{width}}    miss: {miss}")
    for name, value in card.counts.items():
        lines.append(f"{name:<{width}}  {value:>4}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("items", type=Path, help="the crawl's JSON Lines output (-O out.jl)")
    parser.add_argument("truth", type=Path, help="the site's truth.json")
    parser.add_argument("--min", type=float, default=None, help="exit 1 when a figure is below this")
    parser.add_argument("--show", type=int, default=3, help="misses shown per figure (default 3)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("--profile", help="whose declared limits apply (default: the items' engine)")
    args = parser.parse_args(argv)
    truth = json.loads(args.truth.read_text(encoding="utf-8"))
    items = read_items(args.items)
    limits = declared_limits(items, args.profile)
    card = score(items, truth, limits)
    print(f"{truth.get('engine')}  ({args.items})")
    if limits:
        print(f"limits declared by the profile: {', '.join(sorted(limits))}")
    print(report(card, args.show))
    if args.json:
        print(json.dumps(card.as_dict(), ensure_ascii=False))
    if args.min is not None and card.lowest() < args.min:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
