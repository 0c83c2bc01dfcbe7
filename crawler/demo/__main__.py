"""``python -m crawler.demo``: serve a small multi-host forum on 127.0.0.1 and crawl it
with the embedded default (a real redis-server started for you), then summarize."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from crawler.demo.site import SiteServer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hosts", type=int, default=5)
    parser.add_argument("--pages", type=int, default=40, help="pages per host (about)")
    parser.add_argument("--delay", type=float, default=0.1, help="DOWNLOAD_DELAY per host")
    parser.add_argument("--state", default=None,
                        help="state folder (default: a fresh temporary one)")
    parser.add_argument("--output", default="demo-items.jl")
    args = parser.parse_args()
    state = Path(args.state or tempfile.mkdtemp(prefix="crawler-demo-"))
    with SiteServer(hosts=args.hosts, pages_per_host=args.pages, latency=0.01) as site:
        print(f"Serving {len(site.expected_urls())} pages on {args.hosts} hosts:",
              " ".join(site.base_urls))
        started = time.monotonic()
        crawl = subprocess.run(
            [sys.executable, "-m", "scrapy", "crawl", "follow",
             "-a", "start_urls=" + ",".join(site.base_urls), "-O", f"{args.output}:jsonlines",
             "-s", f"CRAWLER_STATE_DIR={state}", "-s", f"DOWNLOAD_DELAY={args.delay}",
             "-s", "CRAWLER_IDLE_CLOSE=1", "-s", "LOG_LEVEL=INFO",
             "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True"],  # the demo site is on 127.0.0.1
            cwd=Path(__file__).resolve().parents[2], check=False)
        elapsed = time.monotonic() - started
        if crawl.returncode:
            return crawl.returncode
        summarize(site, args, elapsed)
    if args.state is None:
        shutil.rmtree(state, ignore_errors=True)
    return 0


def summarize(site: SiteServer, args: argparse.Namespace, elapsed: float) -> None:
    counts = site.fetch_counts()
    expected = site.expected_urls()
    items = sum(1 for line in Path(args.output).read_text().splitlines() if json.loads(line))
    print()
    print("Demo crawl summary (as the web server saw it)")
    print(f"  pages fetched        {len(counts)} of {len(expected)} "
          f"({len(expected - set(counts))} missing, "
          f"{sum(c - 1 for c in counts.values())} fetched twice)")
    print(f"  items written        {items} to {args.output}")
    print(f"  wall time            {elapsed:.1f}s, including start-up and "
          f"the idle wait before closing")
    print(f"  per host             max {max(site.max_concurrency().values())} in flight, "
          f"min gap between requests {min(site.min_gap().values()):.3f}s "
          f"(DOWNLOAD_DELAY {args.delay}s)")


if __name__ == "__main__":
    sys.exit(main())
