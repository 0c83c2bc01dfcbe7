#!/usr/bin/env python
"""The web archive's cost on two builds in the same rounds (issue 42): the `follow` spider on
the nginx site, ours (embedded Redis) without and with CRAWLER_WARC_DIR, on a snapshot of
--base (``git archive`` into work/code-<base>) and on the working tree, every other round
backwards. Per build: pages/s and CPU per page with the archive against without, per round,
and their medians. On a shared machine the per-round ratios of one build move together with
the load; compare the two builds' ratios, not their rates.

    python bench/archive_ab.py [--hosts 20] [--runs 5] [--base 05b55e1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from common import BENCH, Crawl, LogWindow, Nginx, ensure_site, pages_per_s, run_crawls
from throughput import OURS, PER_HOST_1

ROOT = BENCH.parent


def snapshot(commit: str) -> Path:
    folder = BENCH / "work" / f"code-{commit}"
    if not folder.exists():
        folder.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "crawler",
                                  "scrapy.cfg"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", default="05b55e1", help="the build compared with the tree")
    args = parser.parse_args()
    codes = {args.base: snapshot(args.base), "tree": ROOT}
    warc = Path(tempfile.gettempdir()) / f"bench-archive-ab-{os.getpid()}"
    configs = [(code, on) for code in codes for on in (False, True)]
    results: dict[tuple[str, bool], list[dict]] = {c: [] for c in configs}
    with Nginx(ensure_site()) as nginx:
        for i in range(args.runs):
            for code, on in configs[::-1] if i % 2 else configs:
                shutil.rmtree(warc, ignore_errors=True)
                flags = [*OURS, *PER_HOST_1, *(["-s", f"CRAWLER_WARC_DIR={warc}"] if on else [])]
                window = LogWindow(nginx.log)
                crawl = Crawl("follow", nginx.base_urls(args.hosts), flags, f"{code} {on}",
                              code_root=codes[code])
                (stats,), cpu = run_crawls([(crawl, f"archive-ab-{i}-{code}-{on}")])
                hits = window.hits()
                run = {"pages_per_s": pages_per_s(hits), "cpu": 1000 * cpu / len(hits),
                       "round_trips": stats["redis_sends"] / len(hits)}
                results[code, on].append(run)
                print(f"round {i + 1} {code} archive={on}: {len(hits)} pages, "
                      f"{run['pages_per_s']:.0f} pages/s, {run['cpu']:.2f} CPU s/1000, "
                      f"{run['round_trips']:.3f} round trips/page, "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
    shutil.rmtree(warc, ignore_errors=True)
    for code in codes:
        off, on = results[code, False], results[code, True]
        pages = [b["pages_per_s"] / a["pages_per_s"] for a, b in zip(off, on)]
        cpu = [b["cpu"] / a["cpu"] for a, b in zip(off, on)]
        print(f"{code}: pages/s with/without {', '.join(f'{x:.3f}' for x in pages)}, median "
              f"{statistics.median(pages):.3f}x; CPU per page {', '.join(f'{x:.3f}' for x in cpu)},"
              f" median {statistics.median(cpu):.3f}x")


if __name__ == "__main__":
    main()
