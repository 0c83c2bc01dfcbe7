"""Crawl a lab forum with the ``forum`` spider (no profile: learned template) and score it
against the engine's ``truth.json`` (read from its database, not from its pages).

    python scripts/eval_learn.py /work/shared/engines/mybb/truth.json [--timezone Asia/Shanghai]
    python scripts/eval_learn.py --fixtures        # every learned fixture forum and blog, offline

Prints one JSON line per site: thread titles, post recall, author, time, position, precision
(blogs: recall, body, date, author).
Posts are matched on their own ``[#N]`` marker (each lab post has one; quotes carry earlier ones).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers.crawl import run_crawl  # noqa: E402
from tests.helpers.evaluate import score, score_blog  # noqa: E402

def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("truth", nargs="?")
    parser.add_argument("--fixtures", action="store_true",
                        help="score the learned fixture sites of tests/fixtures/profiles instead of a live engine")
    parser.add_argument("--timezone", default="UTC")
    parser.add_argument("--spider", default="forum", help="forum, or blog (a blog truth.json)")
    parser.add_argument("--out")
    parser.add_argument("--items", help="score this JSON Lines file instead of crawling")
    args = parser.parse_args()
    if args.fixtures:
        fixtures()
        return
    if not args.truth:
        parser.error("give a truth.json, or --fixtures")
    truth = json.loads(Path(args.truth).read_text(encoding="utf-8"))
    if args.items:
        items = [json.loads(line) for line in Path(args.items).read_text(encoding="utf-8").splitlines()]
        scorer = score_blog if args.spider == "blog" else score
        print(json.dumps({k: round(v, 3) for k, v in scorer(truth, items, *([] if args.spider == "blog" else [args.timezone])).items()}))
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out) if args.out else Path(tmp) / "out.jl"
        started = time.monotonic()
        spider_args = {"timezone": args.timezone} | ({} if args.spider == "blog" else {"profile": "none"})
        result = run_crawl(args.spider, truth["base_url"], out, args=spider_args,
                           settings={"LOG_LEVEL": "INFO", "CONCURRENT_REQUESTS": "4", "CRAWLER_STATE_DIR": f"{tmp}/state"}, timeout=1200)
        elapsed = time.monotonic() - started
        if args.out:
            Path(args.out).with_suffix(".log").write_text(result.log, encoding="utf-8")
    figures = score_blog(truth, result.items) if args.spider == "blog" else score(truth, result.items, args.timezone)
    print(json.dumps({"engine": truth["engine"], "seconds": round(elapsed, 1), **{k: round(v, 3) for k, v in figures.items()},
                      "stats": {k: v for k, v in result.stats.items() if k.startswith(("learn", "profiles", "items", "forum", "blog"))}}))


def fixtures() -> None:
    """The captured and derived fixture sites, crawled as the end-to-end tests crawl them."""
    from tests.helpers.expected import FIXTURES, ORIGIN, _manifest, _sites, crawl_fixture

    for kind in ("learned", "learned_blog"):
        for site in _sites(kind):
            started = time.monotonic()
            items, _, _ = crawl_fixture(site)
            truth = json.loads((FIXTURES / site / "truth.json").read_text(encoding="utf-8").replace("http://fixture.invalid", ORIGIN))
            figures = score_blog(truth, items) if kind == "learned_blog" else score(truth, items, _manifest(site).get("timezone") or "UTC")
            print(json.dumps({"site": site, "seconds": round(time.monotonic() - started, 1),
                              **{k: round(v, 3) for k, v in figures.items()}}), flush=True)


if __name__ == "__main__":
    main()
