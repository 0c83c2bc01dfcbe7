"""A quick side-by-side: the same link-following spider on the same local multi-host site,
with Scrapy's own in-memory scheduler and with ours (embedded Redis). Prints medians and
ratios and writes bench/QUICK.md. The full benchmark suite (nginx, scrapy-redis,
scale-out, rebalancing) is issue 5.

    python bench/quick.py [--hosts 100] [--pages 50] [--runs 3]
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crawler.demo.site import SiteServer  # noqa: E402

COMMON = ["-s", "DOWNLOAD_DELAY=0", "-s", "CONCURRENT_REQUESTS=16", "-s", "LOG_LEVEL=INFO",
          "-s", "CRAWLER_IDLE_CLOSE=1", "-s", "TELNETCONSOLE_ENABLED=False",
          "-s", "ROBOTSTXT_OBEY=False", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1"]
CONFIGS = {
    "scrapy (memory)": ["-s", "SCHEDULER=scrapy.core.scheduler.Scheduler",
                        "-s", "DUPEFILTER_CLASS=scrapy.dupefilters.RFPDupeFilter"],
    "ours (embedded Redis)": [],
}


def run(site: SiteServer, extra: list[str]) -> dict[str, float]:
    site.reset_log()
    with tempfile.TemporaryDirectory() as state:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(
            [sys.executable, "-m", "scrapy", "crawl", "follow", "-a",
             "start_urls=" + ",".join(site.base_urls), *COMMON,
             "-s", f"CRAWLER_STATE_DIR={state}", *extra],
            cwd=ROOT, capture_output=True, text=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    records = [r for r in site.requests if not r.is_robots]
    span = max(r.end for r in records) - min(r.start for r in records)
    pages = len(records)
    trips = re.search(r"'frontier/redis_round_trips': (\d+)", proc.stderr)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"pages": pages, "pages_per_s": pages / span,
            "cpu_s_per_1000": 1000 * cpu / pages,
            "round_trips_per_page": int(trips.group(1)) / pages if trips else float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", type=int, default=100)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, list[dict[str, float]]] = {name: [] for name in CONFIGS}
    with SiteServer(hosts=args.hosts, pages_per_host=args.pages, seed=5) as site:
        total = len(site.expected_urls())
        for i in range(args.runs):  # interleaved, so drift hits both alike
            for name, extra in CONFIGS.items():
                result = run(site, extra)
                assert result["pages"] == total, (name, result["pages"], total)
                results[name].append(result)
                print(f"run {i + 1} {name}: {result['pages_per_s']:.0f} pages/s", flush=True)
    base = statistics.median(r["pages_per_s"] for r in results["scrapy (memory)"])
    lines = [f"# Quick frontier benchmark ({time.strftime('%Y-%m-%d')})", "",
             f"`python bench/quick.py --hosts {args.hosts} --pages {args.pages} --runs {args.runs}`:"
             f" {total} pages on {args.hosts} local hosts (Python threaded server), "
             "`follow` spider, CONCURRENT_REQUESTS=16, no delay, medians of "
             f"{args.runs} interleaved runs.", "",
             "| scheduler | pages/s | ratio | CPU s / 1000 pages | Redis round trips / page |",
             "|---|---|---|---|---|"]
    for name, runs in results.items():
        pps = statistics.median(r["pages_per_s"] for r in runs)
        cpu = statistics.median(r["cpu_s_per_1000"] for r in runs)
        rtt = statistics.median(r["round_trips_per_page"] for r in runs)
        lines.append(f"| {name} | {pps:.0f} | {pps / base:.2f}x | {cpu:.2f} | "
                     + ("-" if rtt != rtt else f"{rtt:.3f}") + " |")
    text = "\n".join(lines) + "\n"
    (ROOT / "bench" / "QUICK.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
