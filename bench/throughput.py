"""Part 2 (and the live half of part 3): one node, the same spider on the same nginx site.

Each configuration runs --runs times, interleaved so drift hits all alike. Pages/s come
from the nginx access log (first request start to last response end, robots.txt
excluded), CPU from RUSAGE_CHILDREN (the node and its embedded redis-server) plus the
external redis-server's own INFO cpu. Round trips come from benchext (socket writes
by redis-py) and Redis' commandstats.

    python bench/throughput.py [--hosts 60] [--runs 3]
    python bench/throughput.py --pairs     # 20 short rounds of the builds compared
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from common import (BEFORE_27, NO_ADDON, Crawl, ExternalRedis, LogWindow, Nginx, ensure_site,
                    median, pages_per_s, run_crawls, save)

MEMORY = [*NO_ADDON, "-s", "SCHEDULER=scrapy.core.scheduler.Scheduler",
          "-s", "DUPEFILTER_CLASS=scrapy.dupefilters.RFPDupeFilter"]
OURS = ["-s", "CRAWLER_ITEMS_STREAM=False"]  # the others store no items in Redis either
PER_HOST_1 = ["-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1"]
PER_HOST_8 = ["-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8", "-s", "CRAWLER_HOST_MAX_INFLIGHT=8"]

# Scrapy alone with the node's garbage-collector tuning (crawler.ops.gc_tuning): how much
# of ours' lead is that, which any Scrapy project could copy, and how much the scheduler
GC_TUNED = ["-s", 'EXTENSIONS={"benchext.BenchStats": 0, "crawler.ops.gc_tuning.GcTuning": 0}']

# the web archive (issue 31) of a WARC run, emptied before each run; on disk (/tmp here is
# the root file system) and, to tell the write path from the rest (issue 42), on tmpfs
# (named by this process: another bench may run beside it)
WARC_DIR = Path(tempfile.gettempdir()) / f"bench-throughput-warc-{os.getpid()}"
WARC_TMPFS = Path(f"/dev/shm/bench-throughput-warc-{os.getpid()}")

# --pairs: ours between its code before issue 27 and itself with the archive on, each pair
# back to back in every round (a round's ratio then sees little of the machine's drift)
PAIRED = ("ours (embedded Redis) before issue 27 (2763f94),ours (embedded Redis),"
          "ours (embedded Redis, WARC)")

IDLE_PROBE = 5.0  # seconds an external Redis is watched idle before its crawl

# name -> (spider, flags, needs an external Redis); a config compared with another sits
# beside it (ours with its code before issue 27, the archive with ours without it)
CONFIGS: dict[str, tuple[str, list[str], bool]] = {
    "scrapy (memory)": ("follow", [*MEMORY, *PER_HOST_1], False),
    "scrapy (memory) + our GC tuning": ("follow", [*MEMORY, *PER_HOST_1, *GC_TUNED], False),
    "scrapy-redis": ("follow_sr", PER_HOST_1, True),
    "ours (embedded Redis) before issue 27 (2763f94)": ("follow", [*OURS, *PER_HOST_1], False),
    "ours (embedded Redis)": ("follow", [*OURS, *PER_HOST_1], False),
    "ours (embedded Redis, WARC)": (
        "follow", [*OURS, *PER_HOST_1, "-s", f"CRAWLER_WARC_DIR={WARC_DIR}"], False),
    "ours (embedded Redis, WARC on tmpfs)": (
        "follow", [*OURS, *PER_HOST_1, "-s", f"CRAWLER_WARC_DIR={WARC_TMPFS}"], False),
    "ours (external Redis)": ("follow", [*OURS, *PER_HOST_1], True),
    "ours (embedded Redis) on Python's GC defaults": (
        "follow", [*OURS, *PER_HOST_1, "-s", "CRAWLER_GC_THRESHOLD=0"], False),
    "scrapy (memory) 8/host": ("follow", [*MEMORY, *PER_HOST_8], False),
    "ours (external Redis) 8/host": ("follow", [*OURS, *PER_HOST_8], True),
}


def run_one(nginx: Nginx, name: str, hosts: int, tag: str) -> dict:
    spider, flags, external = CONFIGS[name]
    window = LogWindow(nginx.log)
    for folder in (WARC_DIR, WARC_TMPFS):
        if f"CRAWLER_WARC_DIR={folder}" in flags:
            shutil.rmtree(folder, ignore_errors=True)
    redis = ExternalRedis(tag) if external else None
    if redis:
        redis.__enter__()
        flags = [*flags, "-s", f"REDIS_URL={redis.url}"]
        # Redis' own timers (serverCron: 10 a second) cost CPU whether it serves pages or
        # not; measured here so the per-page figure can leave them out
        idle = redis.snapshot()
        time.sleep(IDLE_PROBE)
        before = redis.snapshot()
        idle_rate = (before["cpu"] - idle["cpu"]) / IDLE_PROBE
    try:
        started = time.monotonic()
        code = {"code_root": BEFORE_27} if "before issue 27" in name else {}
        crawl = Crawl(spider, nginx.base_urls(hosts), flags, name, **code)
        (stats,), cpu = run_crawls([(crawl, tag)])
        took = time.monotonic() - started
        redis_cpu, redis_idle, calls, commands = 0.0, 0.0, {}, 0
        if redis:
            after = redis.snapshot()
            redis_cpu = after["cpu"] - before["cpu"]
            redis_idle = min(redis_cpu, idle_rate * took)
            calls = {k: v - before["calls"].get(k, 0) for k, v in after["calls"].items()}
            commands = after["commands"] - before["commands"]
    finally:
        if redis:
            redis.__exit__()
    shutil.rmtree(WARC_DIR, ignore_errors=True)
    shutil.rmtree(WARC_TMPFS, ignore_errors=True)
    hits = window.hits()
    pages = len(hits)
    s = stats["stats"]
    return {"pages": pages, "pages_per_s": pages_per_s(hits),
            "cpu_per_1000": 1000 * (cpu + redis_cpu) / pages,
            "redis_cpu_per_1000": 1000 * redis_cpu / pages,
            "redis_cpu_net_per_1000": 1000 * (redis_cpu - redis_idle) / pages if redis else None,
            "redis_idle_cpu_ms_per_s": 1000 * idle_rate if redis else None,
            "round_trips_per_page": stats["redis_sends"] / pages,
            "frontier_round_trips_per_page": s.get("frontier/redis_round_trips", 0) / pages,
            "redis_commands_per_page": commands / pages if redis else None,
            "evalsha_per_page": calls.get("evalsha", 0) / pages if redis else None,
            "gc_cpu_per_1000": 1000 * sum(stats["gc_cpu"]) / pages,
            "commandstats": calls, "items": s.get("item_scraped_count", 0)}


def summarize(results: dict[str, list[dict]]) -> dict:
    first = next(iter(results))  # the ratios' base: Scrapy memory in the default run
    base_runs = results.get("scrapy (memory)", results[first])
    base = median(r["pages_per_s"] for r in base_runs)
    out = {}
    for name, runs in results.items():
        keys = [k for k, v in runs[0].items() if isinstance(v, (int, float))]
        med = {k: median(r[k] for r in runs if r[k] is not None) for k in keys}
        # each run against the base's run of the same round (minutes apart, not the whole
        # bench): the machine's drift, which moves both, cancels out
        paired = [r["pages_per_s"] / b["pages_per_s"] for r, b in zip(runs, base_runs)]
        out[name] = {**med, "ratio": med["pages_per_s"] / base,
                     "paired_ratio": median(paired), "paired_ratios": paired,
                     "runs_pages_per_s": [r["pages_per_s"] for r in runs],
                     "commandstats_last": runs[-1]["commandstats"]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", type=int, help="crawl the first N hosts (40; --pairs: 20)")
    parser.add_argument("--runs", type=int, help="rounds (3; --pairs: 20)")
    parser.add_argument("--name", default="throughput", help="results file name")
    # the archive on tmpfs only when asked for (--configs): it tells the write path apart
    parser.add_argument("--configs", default=",".join(n for n in CONFIGS if "tmpfs" not in n))
    parser.add_argument("--pairs", action="store_true",
                        help="only the builds compared with each other, in many short rounds")
    args = parser.parse_args()
    if args.pairs:
        args.configs, args.name = PAIRED, "throughput_paired"
    args.hosts = args.hosts or (20 if args.pairs else 40)
    args.runs = args.runs or (20 if args.pairs else 3)
    manifest = ensure_site()
    names = re.split(r",(?![^()]*\))", args.configs)  # "ours (embedded Redis, WARC)" is one
    results: dict[str, list[dict]] = {n: [] for n in names}
    with Nginx(manifest) as nginx:
        for i in range(args.runs):
            # every other round backwards: a drift within a round then favours no config
            order = list(enumerate(names))[::-1 if i % 2 else 1]
            for j, name in order:
                result = run_one(nginx, name, args.hosts, f"throughput-{i}-{j}")
                results[name].append(result)
                print(f"run {i + 1} {name}: {result['pages']} pages, "
                      f"{result['pages_per_s']:.0f} pages/s, "
                      f"{result['cpu_per_1000']:.2f} CPU s/1000, "
                      f"{result['round_trips_per_page']:.3f} round trips/page", flush=True)
    expected = sum(manifest["pages"][:args.hosts])
    save(args.name, {"hosts": args.hosts, "runs": args.runs, "site_pages": expected,
                     "idle_probe_s": IDLE_PROBE,
                        "configs": summarize(results), "raw": results})


if __name__ == "__main__":
    main()
