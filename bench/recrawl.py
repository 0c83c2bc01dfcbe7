"""Incremental re-crawl (issue 16): requests and time of a second run after the forum changed.

The forum is the test fixture that changes between runs (``tests/helpers/changing_forum.py``:
phpBB markup, 2 boards, ``--threads`` threads each of 5 pages; version 2 adds replies to three
threads, one of them onto a new page, a new thread and an edited post). Served by the
project's test server (ETag, 304 on a matching ``If-None-Match``). Each configuration crawls
version 1, then the site switches to version 2 and the same command runs again:

- ours, run again: the same crawl state, so an incremental pass;
- ours, full re-crawl: a fresh crawl state (what a crawler without revisits has to do);
- Scrapy + scrapy-deltafetch 2.1: Scrapy's own scheduler (our add-on off) with DeltaFetch
  (``bench/deltafetch_async.py`` adapts it to Scrapy 2.19's async spider output), which
  skips every request that yielded items before.

Prints a Markdown table (:func:`report.incremental`, RESULTS.md's section) and writes
``bench/work/results/incremental.json``.
Run: ``bench/run recrawl [--threads 60]`` (installs scrapy-deltafetch
into the venv when missing; says so when it cannot).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))

from crawler.demo.server import LoopbackServer  # noqa: E402
from tests.helpers.crawl import run_crawl  # noqa: E402
from tests.helpers.changing_forum import ChangingForum  # noqa: E402

# imported last: report's `common` puts bench/work/code first on sys.path, whose
# snapshot has neither tests/ nor bench/ for the crawl subprocesses
import report  # noqa: E402, I001

WANTED = 8  # items version 2 adds or edits: a thread, 6 new posts, 1 edited post
DELTAFETCH = {"ADDONS": "{}", "DELTAFETCH_ENABLED": "True",
              "EXTENSIONS": json.dumps({"crawler.ops.stats_file.StatsFile": 500}),
              "SPIDER_MIDDLEWARES": json.dumps({"bench.deltafetch_async.AsyncDeltaFetch": 100})}


def deltafetch_available() -> bool:
    if importlib.util.find_spec("scrapy_deltafetch"):
        return True
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "scrapy-deltafetch"],
                          capture_output=True, text=True, check=False)
    if done.returncode:
        print(f"scrapy-deltafetch did not install: {done.stderr.strip()[-300:]}")
    return done.returncode == 0


def crawl(server: LoopbackServer, out: Path, settings: dict[str, str]) -> dict:
    before = len(server.recorder.requests)
    started = time.monotonic()
    result = run_crawl("phpbb", server.origins[0] + "/index.php", out, settings=settings,
                       timeout=1800, fork=False)
    seconds = time.monotonic() - started
    stats = json.loads(out.with_name(out.name + ".stats.json").read_text())
    return {"requests": len(server.recorder.requests) - before, "wall_s": round(seconds, 2),
            "crawl_s": round(stats.get("elapsed_time_seconds", 0), 2),
            "items": len(result.items), "not_modified": stats.get("revisit/not_modified", 0)}


def configuration(name: str, threads: int, first: dict[str, str], second: dict[str, str],
                  tmp: Path) -> dict:
    site = ChangingForum(threads)
    (tmp / name).mkdir()
    with LoopbackServer(site) as server:
        one = crawl(server, tmp / name / "v1.jl", first)
        site.version = 2
        (tmp / name / "v2").mkdir()
        two = crawl(server, tmp / name / "v2" / "v2.jl", second)
    return {"configuration": name, "first": one, "second": two}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--threads", type=int, default=60, help="threads per board (2 boards)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        same = {"CRAWLER_STATE_DIR": str(tmp / "state-again")}
        runs = [configuration("ours, run again (incremental)", args.threads, same, same, tmp)]
        runs.append(configuration(
            "ours, full re-crawl", args.threads, {"CRAWLER_STATE_DIR": str(tmp / "state-a")},
            {"CRAWLER_STATE_DIR": str(tmp / "state-b")}, tmp))
        if deltafetch_available():
            df = {**DELTAFETCH, "DELTAFETCH_DIR": str(tmp / "deltafetch")}
            runs.append(configuration("Scrapy + scrapy-deltafetch", args.threads, df, df, tmp))
    data = {"threads": args.threads, "wanted": WANTED, "runs": runs}
    print("\n".join(report.incremental(data)))
    results = BENCH / "work" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / "incremental.json").write_text(json.dumps(data, indent=1))


if __name__ == "__main__":
    main()
