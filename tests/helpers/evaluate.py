"""Scoring crawled items against an engine's database truth (the lab's ``truth.json``).

Used by ``scripts/eval_learn.py`` (live lab engines) and by the end-to-end tests of the
captured fixture sites. Posts are matched on their own ``[#N]`` marker: each lab post has one,
and quotes carry earlier posts' markers, so a post's own is the highest it shows.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

__all__ = ["marker", "score"]

_MARK = re.compile(r"\[#(\d+)\]")


def marker(text: str | None) -> int | None:
    marks = [int(m) for m in _MARK.findall(text or "")]
    return max(marks) if marks else None


def score(truth: dict[str, Any], items: list[dict[str, Any]], tz: str = "UTC") -> dict[str, float]:
    """Thread titles, post recall, author, time, position (shares of the truth's posts) and
    precision (share of emitted posts that are real posts of the site, each once).

    ``truth["all_markers"]``, when present, lists every post of the site (a fixture's truth may
    hold only the threads it captured whole); otherwise the truth's own posts are the site.
    """
    posts = [i for i in items if i["item_type"] == "post"]
    threads = {i["thread_id"]: i for i in items if i["item_type"] == "thread"}
    wanted = {marker(p["body_text"]): (p, t) for t in truth["threads"] for p in t["posts"]}
    site = set(truth.get("all_markers") or wanted)
    got: dict[int, dict[str, Any]] = {}
    real = 0
    for post in posts:
        key = marker(post.get("body_text"))
        if key in site and key not in got:
            real += 1
            got[key] = post
    zone = ZoneInfo(tz)
    ok = {"author": 0, "time": 0, "position": 0}
    found = 0
    for key, (want, _) in wanted.items():
        post = got.get(key)
        if post is None:
            continue
        found += 1
        ok["author"] += (post.get("author") or {}).get("name") == want["author"]
        ok["position"] += post.get("position") == want["position"]
        if post.get("created"):
            a, b = datetime.fromisoformat(post["created"]), datetime.fromisoformat(want["created"])
            day_only = post.get("created_precision") == "day"
            ok["time"] += (a.astimezone(zone).date() == b.astimezone(zone).date()) if day_only else a == b
    titled = 0
    for thread in truth["threads"]:
        tids = {got[marker(p["body_text"])]["thread_id"] for p in thread["posts"] if marker(p["body_text"]) in got}
        titled += any(threads.get(tid, {}).get("title") == thread["title"] for tid in tids)
    n = max(1, len(wanted))
    return {
        "threads_titled": titled / max(1, len(truth["threads"])),
        "post_recall": found / n,
        "author": ok["author"] / n,
        "time": ok["time"] / n,
        "position": ok["position"] / n,
        "precision": real / len(posts) if posts else 0.0,
        "posts_emitted": float(len(posts)),
    }


def score_blog(truth: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, float]:
    """Article recall (by URL), full body (every ``[#N]`` marker of the post and at least 90% of
    its text), date (same instant), author, tags and categories (same sets), as shares of the
    truth's posts."""
    from w3lib.url import canonicalize_url

    articles = {canonicalize_url(i["url"]): i for i in items if i["item_type"] == "article"}
    ok = {"recall": 0, "body": 0, "date": 0, "author": 0, "tags": 0, "categories": 0}
    for post in truth["posts"]:
        got = articles.get(canonicalize_url(post["url"]))
        if got is None:
            continue
        ok["recall"] += 1
        text, want = got.get("body_text") or "", post["body_text"]
        marks = set(_MARK.findall(want))
        ok["body"] += marks <= set(_MARK.findall(text)) and len(_squash(text)) >= 0.9 * len(_squash(want))
        if got.get("published"):
            ok["date"] += datetime.fromisoformat(got["published"]) == datetime.fromisoformat(post["published"])
        ok["author"] += got.get("author") == post["author"]
        ok["tags"] += set(got.get("tags") or []) == set(post["tags"])
        ok["categories"] += set(got.get("categories") or []) == set(post["categories"])
    n = max(1, len(truth["posts"]))
    return {k: v / n for k, v in ok.items()} | {"articles_emitted": float(len(articles))}


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)
