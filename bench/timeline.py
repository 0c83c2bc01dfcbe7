#!/usr/bin/env python
"""A crawl's pace over time, from nginx's access log: where a run loses its pages/s.

    python bench/timeline.py ["scrapy (memory);ours (embedded Redis)|-s SETTING=value"] [--hosts 40]

Configurations are the throughput part's (``bench/throughput.py``), separated by ``;``;
``|`` adds flags to one. For each crawl it prints pages per tenth of the crawl's time and per
second, when each host got its first and last page, and the gaps between one host's pages in
the last 40% of the crawl. A long tail (few hosts left, long gaps) shows a node that leaves
hosts idle; a slow first seconds, a slow ramp-up. It found the idle wait of acks released during a refill (bench/ANALYSIS.md, session 6).
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict

from common import Crawl, Nginx, ensure_site
from throughput import CONFIGS


def pace(lines: list[list[str]]) -> list[str]:
    """The report of one crawl; *lines* are access log fields (msec, request_time, addr, ...)."""
    ends = sorted(float(fields[0]) for fields in lines)
    t0 = min(float(fields[0]) - float(fields[1]) for fields in lines)
    span = ends[-1] - t0
    tenths, seconds = [0] * 10, defaultdict(int)
    for end in ends:
        tenths[min(9, int((end - t0) / span * 10))] += 1
        seconds[int(end - t0)] += 1
    by_host: dict[str, list[float]] = defaultdict(list)
    for fields in lines:
        by_host[fields[2]].append(float(fields[0]) - t0)
    gaps = sorted(b - a for times in by_host.values()
                  for a, b in zip(sorted(times), sorted(times)[1:]) if a > 0.6 * span)
    out = [f"  {len(ends)} pages in {span:.1f} s = {len(ends) / span:.0f} pages/s",
           f"  per tenth of the time: {tenths}",
           f"  per second: {[seconds[i] for i in range(int(span) + 1)]}",
           "  first page per host (s): " + str(sorted(round(min(t), 2) for t in by_host.values())),
           "  last page per host (s): " + str(sorted(round(max(t), 1) for t in by_host.values()))]
    if gaps:
        out.append(f"  gaps between a host's pages, last 40%: median {statistics.median(gaps):.3f} s, "
                   f"p99 {gaps[int(len(gaps) * 0.99)]:.3f}, max {gaps[-1]:.3f}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="?", default="scrapy (memory);ours (embedded Redis)")
    parser.add_argument("--hosts", type=int, default=40)
    args = parser.parse_args()
    with Nginx(ensure_site()) as nginx:
        hosts = set(nginx.manifest["addresses"][:args.hosts])
        for config in args.configs.split(";"):
            name, _, extra = config.partition("|")
            spider, flags, _ = CONFIGS[name]
            start = nginx.log.stat().st_size if nginx.log.exists() else 0
            Crawl(spider, nginx.base_urls(args.hosts), [*flags, *extra.split()], name).start("timeline").wait()
            with nginx.log.open() as log:
                log.seek(start)
                lines = [fields for fields in map(str.split, log)  # not robots.txt, nor
                         if fields[2] in hosts and fields[5] != "/robots.txt"]  # nginx's probe
            print(f"== {config}", *pace(lines), sep="\n")


if __name__ == "__main__":
    main()
