"""Issue 42: a spider we did not write, in a project of its own, against Scrapy alone.

``benchspiders.follow_all`` (a CrawlSpider with one Rule) in the plain project
``benchspiders.foreign_settings`` (64 requests at once, 1 per host, no delay, no robots) crawls
a static site of its own (200 hosts, 50 pages each: about 10,000 pages) served by nginx.
The base is Scrapy's scheduler with ``DEPTH_PRIORITY=1`` and FIFO memory queues; against it,
ours set as ``SCHEDULER`` alone (the drop-in) and through ``ADDONS``, each on the embedded
Redis and on an external one. Every other round runs backwards; a config's figure is the
median of its per-round ratios to the base. At an external Redis, its commands per page are
the sum of INFO commandstats' calls (those run inside Lua scripts included, ``info`` itself
left out) over the crawl, divided by the pages nginx served.

    python bench/foreign.py [--hosts 200] [--pages 50] [--runs 5] [--configs a,b]
    python bench/foreign.py --render     # RESULTS.md's section again from the last results
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass

from common import (
    BENCH,
    CODE_ROOT,
    RESULTS,
    WORK,
    ExternalRedis,
    LogWindow,
    Nginx,
    ensure_site,
    median,
    pages_per_s,
    reap_embedded,
    save,
)

SITE = WORK / "site-foreign"
SECTION = "foreign"
BASE = "scrapy (memory)"
SCRAPY = ["-s", "DEPTH_PRIORITY=1",
          "-s", "SCHEDULER_MEMORY_QUEUE=scrapy.squeues.FifoMemoryQueue",
          "-s", "SCHEDULER_DISK_QUEUE=scrapy.squeues.PickleFifoDiskQueue"]
BARE = ["-s", "SCHEDULER=crawler.scheduler.Scheduler"]
ADDON = ["-s", 'ADDONS={"crawler.addon.ClusterAddon": 0}']
# name -> (flags, needs an external Redis)
CONFIGS: dict[str, tuple[list[str], bool]] = {
    BASE: (SCRAPY, False),
    "bare SCHEDULER (embedded Redis)": (BARE, False),
    "bare SCHEDULER (external Redis)": (BARE, True),
    "add-on (embedded Redis)": (ADDON, False),
    "add-on (external Redis)": (ADDON, True),
}


@dataclass
class ForeignCrawl:
    """`scrapy crawl follow_all` in the foreign project (SCRAPY_SETTINGS_MODULE)."""

    start_urls: list[str]
    flags: list[str]

    def run(self, tag: str) -> dict:
        logs, state = WORK / "logs", WORK / "state" / tag
        logs.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(state, ignore_errors=True)
        stats_file = logs / f"{tag}.stats.json"
        stats_file.unlink(missing_ok=True)
        env = {**os.environ, "PYTHONPATH": f"{BENCH}{os.pathsep}{CODE_ROOT}",
               "SCRAPY_SETTINGS_MODULE": "benchspiders.foreign_settings"}
        command = [sys.executable, "-m", "scrapy", "crawl", "follow_all",
                   "-a", "start_urls=" + ",".join(self.start_urls),
                   "-s", f"BENCH_STATS_FILE={stats_file}", "-s", f"CRAWLER_STATE_DIR={state}",
                   *self.flags]
        with (logs / f"{tag}.log").open("w") as log:
            code = subprocess.run(command, cwd=WORK, env=env, stdout=log, check=False,
                                  stderr=subprocess.STDOUT, timeout=900).returncode
        embedded_cpu = reap_embedded([state])
        if code:
            raise RuntimeError(f"{tag} exited with {code}: see {logs / tag}.log")
        return {**json.loads(stats_file.read_text()), "embedded_cpu": embedded_cpu}


def redis_calls(redis: ExternalRedis) -> dict[str, int]:
    return {k: v for k, v in redis.snapshot()["calls"].items() if k != "info"}


def run_one(nginx: Nginx, name: str, hosts: int, tag: str) -> dict:
    flags, external = CONFIGS[name]
    window = LogWindow(nginx.log)
    redis = ExternalRedis(tag) if external else None
    calls: dict[str, int] = {}
    redis_cpu = 0.0
    if redis:
        redis.__enter__()
        flags = [*flags, "-s", f"REDIS_URL={redis.url}"]
    try:
        before = redis_calls(redis) if redis else {}
        cpu_before = redis.snapshot()["cpu"] if redis else 0.0
        stats = ForeignCrawl(nginx.base_urls(hosts), flags).run(tag)
        if redis:
            after = redis_calls(redis)
            calls = {k: v - before.get(k, 0) for k, v in after.items()
                     if v - before.get(k, 0) > 0}
            redis_cpu = redis.snapshot()["cpu"] - cpu_before
    finally:
        if redis:
            redis.__exit__()
    hits = window.hits()
    pages = len(hits)
    # CPU per page: on a shared machine a crawl's pages/s follows the others' load, its
    # CPU much less (the node's own, its redis-server's, embedded or external)
    cpu = stats["cpu_self"] + stats["embedded_cpu"] + redis_cpu
    return {"pages": pages, "pages_per_s": pages_per_s(hits), "cpu_ms_per_page": 1000 * cpu / pages,
            "items": stats["stats"].get("item_scraped_count", 0),
            "redis_commands_per_page": sum(calls.values()) / pages if redis else None,
            "commands_per_page": {k: v / pages for k, v in sorted(calls.items())}}


def summarize(results: dict[str, list[dict]]) -> dict:
    base = results[BASE]
    out = {}
    for name, runs in results.items():
        ratios = [r["pages_per_s"] / b["pages_per_s"] for r, b in zip(runs, base)]
        commands = [r["redis_commands_per_page"] for r in runs
                    if r["redis_commands_per_page"] is not None]
        by_command: dict[str, float] = {}
        for key in {k for r in runs for k in r["commands_per_page"]}:
            by_command[key] = median(r["commands_per_page"].get(key, 0) for r in runs)
        out[name] = {"pages": median(r["pages"] for r in runs),
                     "cpu_ms_per_page": median(r.get("cpu_ms_per_page", float("nan"))
                                               for r in runs),
                     "pages_per_s": median(r["pages_per_s"] for r in runs),
                     "ratio": median(ratios), "ratios": sorted(ratios),
                     "redis_commands_per_page": median(commands) if commands else None,
                     "commands_per_page": dict(sorted(by_command.items(),
                                                      key=lambda kv: -kv[1]))}
    return out


def render(d: dict) -> list[str]:
    intro = (f"`bench/run foreign` (`bench/foreign.py`) at {d['commit']}: `follow_all`, a "
             "CrawlSpider with one Rule in a plain project (`CONCURRENT_REQUESTS=64`, 1 per "
             f"host, no delay, no robots), {d['hosts']} hosts of the site `--pages {d['pages']}` "
             f"({d['site_pages']} pages), {d['runs']} rounds, every other one backwards. Ratio: "
             "median of the per-round ratios to Scrapy's scheduler (`DEPTH_PRIORITY=1`, FIFO "
             "memory queues), with the spread. CPU: the node's, with its redis-server's "
             "(embedded or external), per page served. Commands per page: all of INFO "
             "commandstats' calls at the external Redis (Lua's included), per page served.")
    base_cpu = d["configs"][BASE]["cpu_ms_per_page"]
    lines = ["## 11. A spider we did not write (issue 42)", "", intro, "",
             ("| configuration | pages | pages/s | vs Scrapy, per round (spread) | "
              "CPU ms / page (vs Scrapy) | Redis commands / page |"),
             "|---|---|---|---|---|---|"]
    for name, c in d["configs"].items():
        spread = ", ".join(f"{r:.2f}" for r in c["ratios"])
        cmds = c["redis_commands_per_page"]
        cpu = c["cpu_ms_per_page"]
        lines.append(f"| {name} | {c['pages']:.0f} | {c['pages_per_s']:.0f} | "
                     f"**{c['ratio']:.2f}x** ({spread}) | {cpu:.2f} ({base_cpu / cpu:.2f}x) | "
                     f"{'-' if cmds is None else f'{cmds:.2f}'} |")
    lines += ["", "Redis commands per page by command (median of the rounds):", ""]
    for name, c in d["configs"].items():
        if c["redis_commands_per_page"] is not None:
            top = ", ".join(f"{k} {v:.2f}" for k, v in c["commands_per_page"].items() if v >= 0.01)
            lines.append(f"- {name}: {top}")
    return [*lines, "", d["note"]] if d.get("note") else lines


def write_section(d: dict) -> None:
    results = BENCH / "RESULTS.md"
    text = results.read_text()
    start, end = f"<!-- {SECTION}:start -->", f"<!-- {SECTION}:end -->"
    block = "\n".join([start, *render(d), end])
    if start in text and end in text:
        text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
    else:  # after the numbered sections (report.py keeps it as one), before the analysis
        first = (BENCH / "ANALYSIS.md").read_text().splitlines()[0]
        if ("\n" + first + "\n") in text:
            i = text.index("\n" + first + "\n") + 1
            text = text[:i] + block + "\n\n" + text[i:]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
    results.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", type=int, default=200)
    parser.add_argument("--pages", type=int, default=50, help="mean pages per host of the site")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--configs", default=",".join(CONFIGS), help="the base is always run")
    parser.add_argument("--name", default="foreign", help="results file name")
    parser.add_argument("--note", default="", help="a sentence for RESULTS.md (the machine)")
    parser.add_argument("--render", action="store_true")
    args = parser.parse_args()
    if args.render:  # --note replaces the run's note
        data = json.loads((RESULTS / f"{args.name}.json").read_text())
        write_section({**data, "note": args.note or data.get("note", "")})
        return
    names = [BASE, *[n for n in args.configs.split(",") if n and n != BASE]]  # no commas in names
    manifest = ensure_site(200, args.pages, SITE)
    results: dict[str, list[dict]] = {n: [] for n in names}
    started = time.monotonic()
    with Nginx(manifest) as nginx:
        for i in range(args.runs):
            order = list(enumerate(names))[::-1 if i % 2 else 1]
            for j, name in order:
                r = run_one(nginx, name, args.hosts, f"foreign-{i}-{j}")
                results[name].append(r)
                cmds = r["redis_commands_per_page"]
                print(f"round {i + 1} {name}: {r['pages']} pages, {r['pages_per_s']:.0f} pages/s"
                      + (f", {cmds:.2f} Redis commands/page" if cmds is not None else ""),
                      flush=True)
            # saved after every round: a run cut short keeps its whole rounds
            data = {"hosts": args.hosts, "pages": args.pages, "runs": i + 1,
                    "site_pages": sum(manifest["pages"][:args.hosts]), "note": args.note,
                    "minutes": (time.monotonic() - started) / 60,
                    "configs": summarize(results), "raw": results}
            save(args.name, data)
    data["commit"] = json.loads((RESULTS / f"{args.name}.json").read_text())["commit"]
    for name, c in data["configs"].items():
        cmds = c["redis_commands_per_page"]
        print(f"{name}: {c['ratio']:.2f}x ({', '.join(f'{r:.2f}' for r in c['ratios'])})"
              + (f", {cmds:.2f} commands/page: {c['commands_per_page']}" if cmds else ""))
    if args.name == "foreign":
        write_section(data)


if __name__ == "__main__":
    main()
