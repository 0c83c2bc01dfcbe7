"""Crawl a lab forum with the ``forum`` spider (no profile: learned template) and score it
against the engine's ``truth.json`` (read from its database, not from its pages).

    python scripts/eval_learn.py /work/shared/engines/mybb/truth.json [--timezone Asia/Shanghai]

Prints one line per measure: thread titles, post recall, author, time, position, precision.
Posts are matched on their own ``[#N]`` marker (each lab post has one; quotes carry earlier ones).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawler.testing.crawl import run_crawl  # noqa: E402

_MARK = re.compile(r"\[#\d+\]")


def key(text: str | None) -> int | None:
    """A post's own marker: the highest one (quotes hold earlier posts' markers)."""
    marks = [int(m[2:-1]) for m in _MARK.findall(text or "")]
    return max(marks) if marks else None


def score(truth: dict, items: list[dict], tz: str, spider_profile_off: bool = True) -> dict[str, float]:
    posts = [i for i in items if i["item_type"] == "post"]
    threads = {i["thread_id"]: i for i in items if i["item_type"] == "thread"}
    truth_posts = {key(p["body_text"]): (p, t) for t in truth["threads"] for p in t["posts"]}
    got = {}
    for post in posts:
        k = key(post.get("body_text"))
        if k in truth_posts and k not in got:
            got[k] = post
    n = len(truth_posts)
    zone = ZoneInfo(tz)
    ok = {"author": 0, "time": 0, "position": 0}
    for k, post in got.items():
        want, _ = truth_posts[k]
        ok["author"] += (post.get("author") or {}).get("name") == want["author"]
        ok["position"] += post.get("position") == want["position"]
        if post.get("created"):
            a = datetime.fromisoformat(post["created"])
            b = datetime.fromisoformat(want["created"])
            same = a == b if post.get("created_precision") != "day" else a.astimezone(zone).date() == b.astimezone(zone).date()
            ok["time"] += same
    titles = 0
    for t in truth["threads"]:
        tids = {got[key(p["body_text"])]["thread_id"] for p in t["posts"] if key(p["body_text"]) in got}
        titles += any(threads.get(tid, {}).get("title") == t["title"] for tid in tids)
    return {
        "threads_titled": titles / len(truth["threads"]),
        "post_recall": len(got) / n,
        "author": ok["author"] / n,
        "time": ok["time"] / n,
        "position": ok["position"] / n,
        "precision": len(got) / len(posts) if posts else 0.0,
        "posts_emitted": len(posts),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("truth")
    parser.add_argument("--timezone", default="UTC")
    parser.add_argument("--spider", default="forum")
    parser.add_argument("--out")
    parser.add_argument("--items", help="score this JSON Lines file instead of crawling")
    args = parser.parse_args()
    truth = json.loads(Path(args.truth).read_text(encoding="utf-8"))
    if args.items:
        items = [json.loads(line) for line in Path(args.items).read_text(encoding="utf-8").splitlines()]
        print(json.dumps({k: round(v, 3) for k, v in score(truth, items, args.timezone).items()}))
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out) if args.out else Path(tmp) / "out.jl"
        started = time.monotonic()
        result = run_crawl(args.spider, truth["base_url"], out, args={"timezone": args.timezone, "profile": "none"},
                           settings={"LOG_LEVEL": "INFO", "CONCURRENT_REQUESTS": "4", "CRAWLER_STATE_DIR": f"{tmp}/state"}, timeout=1200)
        elapsed = time.monotonic() - started
        if args.out:
            Path(args.out).with_suffix(".log").write_text(result.log, encoding="utf-8")
    figures = score(truth, result.items, args.timezone)
    print(json.dumps({"engine": truth["engine"], "seconds": round(elapsed, 1), **{k: round(v, 3) for k, v in figures.items()},
                      "stats": {k: v for k, v in result.stats.items() if k.startswith(("learn", "profiles", "items", "forum"))}}))


if __name__ == "__main__":
    main()
