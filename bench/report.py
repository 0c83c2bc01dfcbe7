"""Write bench/RESULTS.md and its PNG plots from bench/work/results/*.json.

Parts that were not run are left out; ANALYSIS.md (hand-written: profile evidence and
proposed fixes) is appended as is, because a profile is read by a person.
"""

from __future__ import annotations

import json
import re
import time
from statistics import median

import matplotlib

matplotlib.use("Agg")  # no display on a bench machine
import matplotlib.pyplot as plt  # noqa: E402

from common import BENCH, RESULTS  # noqa: E402

PLOTS = BENCH / "plots"


def load(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def bar_plot(path: str, labels: list[str], values: list[float], ylabel: str, title: str) -> str:
    fig, ax = plt.subplots(figsize=(8, 3.6))
    ax.bar(range(len(values)), values, color="#4a7ab0")
    ax.set_xticks(range(len(values)), labels, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(PLOTS / path, dpi=110)
    plt.close(fig)
    return f"![{title}](plots/{path})"


#: (config, config it is compared with, what the ratio says, target): one build against another
PAIRS = (
    ("ours (embedded Redis)", "ours (embedded Redis) before issue 27 (2763f94)",
     "pages/s of ours (embedded Redis) vs its code before issue 27 (2763f94)", 1.0),
    ("ours (embedded Redis, WARC)", "ours (embedded Redis)",
     "pages/s with the web archive on (CRAWLER_WARC_DIR), vs without", 0.9),
)


def _round_ratios(a: dict, b: dict) -> list[float]:
    """*a*'s pages/s over *b*'s, round by round (throughput.py interleaves them)."""
    return [x / y for x, y in zip(a["runs_pages_per_s"], b["runs_pages_per_s"])]


def _paired(a: dict, b: dict) -> float:
    """The median of :func:`_round_ratios`."""
    return median(_round_ratios(a, b))


def throughput(d: dict) -> list[str]:
    c = d["configs"]
    lines = [
        "## 1. Throughput, one node", "",
        f"`follow` spider over the first {d['hosts']} hosts of the nginx site ({d['site_pages']} "
        f"pages), {d['runs']} interleaved runs per configuration, medians. CONCURRENT_REQUESTS=16, "
        "CONCURRENT_ITEMS=8, DOWNLOAD_DELAY=0, ROBOTSTXT_OBEY=False for all; 1 request per host "
        "in flight unless marked 8/host (CONCURRENT_REQUESTS_PER_DOMAIN=8, and "
        "CRAWLER_HOST_MAX_INFLIGHT=8 for ours). Baselines run with our add-on off "
        "(`ADDONS={}`); ours with `CRAWLER_ITEMS_STREAM=False` (nobody else stores items in Redis).",
        "",
        "Vs Scrapy memory: the ratio of the medians, and in brackets the median of the per-round "
        "ratios (each run against Scrapy memory's run of the same round, minutes apart: the "
        "machine's drift over the whole bench cancels out).", "",
        "| configuration | pages/s | vs Scrapy memory | CPU s / 1000 pages (of which external Redis) "
        "| of which garbage collector | Redis round trips / page | Redis commands / page "
        "| runs (pages/s) |",
        "|---|---|---|---|---|---|---|---|"]
    for name, r in c.items():
        cmds = r.get("redis_commands_per_page")
        lines.append(
            f"| {name} | {r['pages_per_s']:.0f} | {r['ratio']:.2f}x"
            + (f" ({r['paired_ratio']:.2f}x)" if "paired_ratio" in r else "")
            + f" | {r['cpu_per_1000']:.2f} "
            f"({r['redis_cpu_per_1000']:.2f}) | "
            + (f"{r['gc_cpu_per_1000']:.2f}" if "gc_cpu_per_1000" in r else "-")
            + f" | {r['round_trips_per_page']:.3f} | "
            + (f"{cmds:.1f}" if cmds else "-") + " | "
            + ", ".join(f"{v:.0f}" for v in r["runs_pages_per_s"]) + " |")
    lines += ["", bar_plot("throughput.png", list(c), [r["pages_per_s"] for r in c.values()],
                           "pages/s (median)", "One node, nginx site"), "",
              "Pages/s: nginx access log, non-robots requests / (last response end - first "
              "request start). CPU: RUSAGE_CHILDREN of the crawl process (with its embedded "
              "redis-server) plus the external redis-server's `INFO cpu`. Round trips: socket "
              "writes by redis-py in the node (one per command or pipeline), counted by "
              "`bench/benchext.py`; ours also counts them itself (`frontier/redis_round_trips`, "
              "same figure within 2%). Redis commands: `INFO stats total_commands_processed` "
              "delta, which also counts every command run inside our Lua scripts.", ""]
    if p := load("throughput_paired"):
        lines += [f"The two comparisons of one build with another, in a run of their own with "
                  f"more and shorter rounds ({p['runs']} rounds of the first {p['hosts']} hosts, "
                  "every other round in reverse order, so each pair runs back to back: "
                  "`bench/run throughput --pairs`). Each round's ratio, sorted:", ""]
        for num, den, figure, _ in PAIRS:
            on, off = p["configs"][num], p["configs"][den]
            ratios = sorted(_round_ratios(on, off))
            lines += [f"- {figure}: median {median(ratios):.2f}x; "
                      + ", ".join(f"{r:.2f}" for r in ratios)]
        lines.append("")
    if (ext := c.get("ours (external Redis)")) and ext.get("redis_cpu_net_per_1000") is not None:
        lines += [f"Redis CPU of ours (external Redis): {ext['redis_cpu_per_1000']:.3f} s per "
                  f"1,000 pages in all, {ext['redis_cpu_net_per_1000']:.3f} s net of what the "
                  f"same Redis spends idle ({ext['redis_idle_cpu_ms_per_s']:.2f} ms per second, "
                  f"its timers; measured for {d['idle_probe_s']:g} s before each crawl and charged "
                  "for the crawl's whole run). A Redis serving a cluster at its ceiling pays "
                  "those timers once, not per page.", ""]
    return lines


def request_kind(d: dict) -> str:
    ours = d["ours"][0]["payload_bytes_mean"]
    if "payload_bytes_mean" not in d["scrapy_redis_queue"]:  # a run with bare requests
        return (f"The requests are bare `Request(url)` ({ours:.0f} bytes encoded by ours); "
                "what the `follow` spider queues is larger: see the analysis below.")
    return (f"{ours:.0f} bytes encoded by ours and "
            f"{d['scrapy_redis_queue']['payload_bytes_mean']:.0f} pickled by scrapy-redis, "
            "built as the `follow` spider queues them (errback, depth meta, Referer header).")


def redis_cost(d: dict) -> list[str]:
    lines = ["## 2. Redis memory", "",
             "| URLs | ours: Bloom bytes / URL | layers | false positives measured (estimated) "
             "| scrapy-redis: fingerprint set bytes / URL |", "|---|---|---|---|---|"]
    for o, s in zip(d["ours"], d["scrapy_redis_dedup"]):
        lines.append(f"| {o['urls']:,} | {o['bloom_bytes_per_url']:.2f} | {o['bloom_layers']} | "
                     f"{o['bloom_fp_measured']:.1e} ({o['bloom_fp_estimated']:.1e}) | "
                     f"{s['bytes_per_url']:.1f} |")
    q = d["scrapy_redis_queue"]
    lines += ["", "| queued requests | ours: bytes / request | scrapy-redis: bytes / request |",
              "|---|---|---|"]
    for o in d["ours"]:
        sr = f"{q['bytes_per_request']:.0f}" if o["urls"] == q["requests"] else "-"
        lines.append(f"| {o['urls']:,} over {o['hosts']:,} hosts | "
                     f"{o['queue_bytes_per_request']:.0f} | {sr} |")
    lines += ["", "Filled through each system's own code: ours with `Frontier.flush` "
              "(CRAWLER_BLOOM_CAPACITY = the URL count, p = 1e-4, requests encoded by "
              "`crawler.frontier.codec`), scrapy-redis with its `RFPDupeFilter` fingerprints "
              "(40-hex SHA1, SADD) and `PriorityQueue` entries (pickled, ZADD). Bloom bytes: "
              "`MEMORY USAGE` of the bit strings; queue bytes: `used_memory` growth minus the "
              "Bloom filter, so host hashes and ready sets are included. URLs are forum-like (about 70 characters). "
              + request_kind(d) + " False positives: "
              "100,000 fresh fingerprints probed against the filled bits.", ""]
    return lines


def moves(d: dict, sweep: dict | None) -> list[str]:
    rows = d["moves"]
    lines = ["## 3. Rebalancing", "",
             f"{d['hosts']:,} host names, `Ring` with {d['vnodes']} vnodes (the project default).",
             "", "| n -> n+1 | ideal 1/(n+1) | ours, join | ours, leave back | hash mod n |",
             "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['n']} -> {r['n'] + 1} | {r['ideal']:.3f} | {r['ring_join']:.3f} "
                     f"({r['ring_join'] / r['ideal'] - 1:+.0%}) | {r['ring_leave']:.3f} | "
                     f"{r['mod_join']:.3f} |")
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ns = [r["n"] for r in rows]
    ax.plot(ns, [r["ideal"] for r in rows], "k--", label="ideal 1/(n+1)")
    ax.plot(ns, [r["ring_join"] for r in rows], "o-", label="ours (ring)")
    ax.plot(ns, [r["mod_join"] for r in rows], "s-", label="hash mod n")
    ax.set_xlabel("n (nodes before the join)")
    ax.set_ylabel("share of hosts moved")
    ax.legend()
    fig.tight_layout()
    fig.savefig(PLOTS / "rebalance.png", dpi=110)
    plt.close(fig)
    lines += ["", "![hosts moved](plots/rebalance.png)", ""]
    if sweep:
        m = sweep["move_requests"]
        lines += [
            f"Moving work when a 2nd node joins a frontier of {sweep['requests_total']:,} queued "
            f"requests over {sweep['hosts']:,} hosts: {sweep['hosts_moved']:,} hosts move, with "
            f"{sweep['requests_behind_moved_hosts']:,} requests queued behind them.", "",
            "| | time | round trips | Redis commands | Redis CPU | bytes over the wire |",
            "|---|---|---|---|---|---|",
            f"| ours: `Frontier.sweep` (one ready-set entry per host) | "
            f"{sweep['seconds'] * 1000:.0f} ms | {sweep['round_trips']} | "
            f"{sweep['redis_commands']:,} | {sweep['redis_cpu_s'] * 1000:.0f} ms | host names only |",
            f"| moving the requests themselves (LRANGE + RPUSH + DEL, pipelined) | "
            f"{m['seconds'] * 1000:.0f} ms | {m['round_trips']} | {m['redis_commands']:,} | "
            f"{m['redis_cpu_s'] * 1000:.0f} ms | {2 * m['bytes'] / 1e6:.0f} MB |", ""]
    lines += ["Load balance of the ring by host count (variance of share x n over nodes; "
              "ideal 0; a random split gives (n-1)/hosts):", "",
              "| hosts | nodes | ours (ring) | hash mod n | random split, expected |",
              "|---|---|---|---|---|"]
    for b in d["balance"]:
        lines.append(f"| {b['hosts']:,} | {b['nodes']} | {b['ring']:.1e} | {b['mod']:.1e} | "
                     f"{b['random_expected']:.1e} |")
    return lines + [""]


def scaleout(d: dict) -> list[str]:
    base = d["scale"][0]["pages_per_s"]
    lines = ["## 4. Scale-out (latency-bound)", "",
             f"Ours, external Redis, on the latency server ({d['latency_s'] * 1000:.0f} ms per "
             f"response), {d['hosts']} hosts with CRAWLER_HOST_PAGE_LIMIT={d['pages_per_host']}, "
             f"CONCURRENT_REQUESTS={d['concurrency']} per node, 1 request per host in flight. "
             "**This machine has 2 cores**: 4 nodes share them, which is why the site is "
             "latency-bound (a node waits, it does not compute).", "",
             "| nodes | pages | pages/s | speedup | target 0.9 n | pages per node | "
             "variance of share x n |", "|---|---|---|---|---|---|---|"]
    for r in d["scale"]:
        lines.append(f"| {r['nodes']} | {r['pages']} | {r['pages_per_s']:.1f} | "
                     f"{r['pages_per_s'] / base:.2f}x | {0.9 * r['nodes']:.1f}x | "
                     f"{', '.join(map(str, r['per_node_pages']))} | {r['share_variance']:.1e} |")
    fig, ax = plt.subplots(figsize=(5, 3.6))
    ns = [r["nodes"] for r in d["scale"]]
    ax.plot(ns, [r["pages_per_s"] / base for r in d["scale"]], "o-", label="ours")
    ax.plot(ns, ns, "k--", label="linear")
    ax.plot([1, 2, 4], [1, 1.85, 4.40], "s:", label="WebGather (published)")
    ax.set_xlabel("nodes")
    ax.set_ylabel("speedup")
    ax.legend()
    fig.tight_layout()
    fig.savefig(PLOTS / "scaleout.png", dpi=110)
    plt.close(fig)
    return lines + ["", "![speedup](plots/scaleout.png)", "",
                    "Pages per node: each node's `response_received_count`. Pages/s: the "
                    "latency server's log, first request start to last response end.", ""]


def politeness(d: dict) -> list[str]:
    lines = ["## 5. Politeness under load", "",
             f"4 processes, DOWNLOAD_DELAY={d['delay_s']} s, CONCURRENT_REQUESTS_PER_DOMAIN=1, "
             f"{d['hosts']} hosts of the latency server ({d['latency_s'] * 1000:.0f} ms per "
             f"response), {d['seconds']} s (CLOSESPIDER_TIMEOUT). A polite crawler keeps 1 "
             "request per host in flight and starts them at least latency + delay apart "
             "(ours counts the delay from the response, as Nutch does).", "",
             "| system | pages | max in flight on one host | min gap between starts "
             "| median over hosts of each host's min gap |", "|---|---|---|---|---|"]
    for r in d["runs"]:
        lines.append(f"| {r['system']} | {r['pages']} | {r['max_inflight_per_host']} | "
                     f"{r['min_start_gap_s']:.3f} s | "
                     + (f"{r['median_host_min_gap_s']:.3f} s |"
                        if r["median_host_min_gap_s"] != float("inf")
                        else "- (most hosts got 1 request) |"))
    return lines + ["", "Measured from the server's log: each request's arrival and "
                    "response times per host address.", ""]


def targets(previous: list[str]) -> list[str]:
    """The brief's targets against what this run measured; *previous*: the lines of the
    Targets section of the RESULTS.md in the tree."""
    rows = []
    if t := load("throughput"):
        c = t["configs"]
        for name in ("ours (embedded Redis)", "ours (external Redis)"):
            if name in c:
                rows.append((f"pages/s vs Scrapy memory, {name}", "0.52x (scrapy-redis)",
                             ">= 1.0x", f"{c[name]['ratio']:.2f}x", c[name]["ratio"] >= 1.0))
        if "ours (embedded Redis)" in c:  # issue 27: no slower than before its fixes
            ours = c["ours (embedded Redis)"]
            ratio, paired = ours["ratio"], ours.get("paired_ratio", ours["ratio"])
            rows.append(("pages/s vs Scrapy memory, ours (embedded Redis), after issue 27: "
                         "median of the per-round ratios (ratio of the medians)",
                         "1.22-1.26x (before it)", ">= 1.22x", f"{paired:.2f}x ({ratio:.2f}x)",
                         paired >= 1.22))
        runs = [(c, "")]  # the full run, then the same pairs in many short rounds
        if p := load("throughput_paired"):
            runs.append((p["configs"], f", in a run of its own ({p['runs']} rounds of "
                                       f"{p['hosts']} hosts)"))
        for configs, where in runs:
            for num, den, figure, target in PAIRS:
                if num in configs and den in configs:
                    on, off = configs[num], configs[den]
                    paired, ratio = _paired(on, off), on["pages_per_s"] / off["pages_per_s"]
                    rows.append((f"{figure}{where}: median of the per-round ratios (ratio of "
                                 "the medians)", "-", f">= {target}x",
                                 f"{paired:.2f}x ({ratio:.2f}x)", paired >= target))
        if "ours (external Redis)" in c:
            rtt = c["ours (external Redis)"]["round_trips_per_page"]
            sr = c.get("scrapy-redis", {}).get("round_trips_per_page", float("nan"))
            rows.append(("Redis round trips per page", f"{sr:.1f} (scrapy-redis, measured)",
                         "<= 0.5", f"{rtt:.2f}", rtt <= 0.5))
            ext = c["ours (external Redis)"]
            if ext.get("redis_commands_per_page"):
                cmds = ext["redis_commands_per_page"]
                rows.append(("Redis commands per page (Lua-internal included)", "33 (issue 14)",
                             "<= 15", f"{cmds:.1f}", cmds <= 15))
            cpu, net = ext["redis_cpu_per_1000"], ext.get("redis_cpu_net_per_1000")
            if net is None:  # a run from before the idle probe
                rows.append(("Redis CPU s per 1,000 pages (external Redis)", "0.15 (issue 14)",
                             "<= 0.05", f"{cpu:.3f}", cpu <= 0.05))
            else:  # per page: Redis' own timers run whether it serves pages or not
                rows.append(("Redis CPU s per 1,000 pages (external Redis), net of its idle "
                             "timers (all of it in brackets)", "0.15 (issue 14)", "<= 0.05",
                             f"{net:.3f} ({cpu:.3f})", net <= 0.05))
    if r := load("redis_cost"):
        o, s = r["ours"][-1], r["scrapy_redis_dedup"][-1]
        rows.append((f"dedup bytes per seen URL ({o['urls']:,}, p=1e-4)",
                     f"{s['bytes_per_url']:.0f} (scrapy-redis set)", "<= 3",
                     f"{o['bloom_bytes_per_url']:.2f}", o["bloom_bytes_per_url"] <= 3))
        rows.append((f"Redis bytes per queued request ({o['urls']:,} on {o['hosts']:,} hosts)",
                     f"{r['scrapy_redis_queue']['bytes_per_request']:.0f} (scrapy-redis)",
                     "<= 120", f"{o['queue_bytes_per_request']:.0f}",
                     o["queue_bytes_per_request"] <= 120))
    if m := load("rebalance"):
        worst = max(abs(x["ring_join"] / x["ideal"] - 1) for x in m["moves"])
        rows.append(("hosts moved when the (n+1)th node joins, worst n", "n/(n+1) (mod n)",
                     "within 10% of 1/(n+1)", f"{worst:.0%} off", worst <= 0.10))
    if sc := load("scaleout"):
        four = [x for x in sc["scale"] if x["nodes"] == 4]
        base = sc["scale"][0]["pages_per_s"]
        if four:
            v = four[0]["share_variance"]
            rows.append((f"load balance, 4 nodes ({sc['hosts']} hosts), variance of share x n",
                         "~1e-3 (WebGather)", "< 1e-3", f"{v:.1e}", v < 1e-3))
        for x in sc["scale"][1:]:
            sp = x["pages_per_s"] / base
            rows.append((f"speedup at {x['nodes']} nodes (latency-bound)",
                         "1.85x / 4.40x (WebGather)", f">= {0.9 * x['nodes']:.1f}x",
                         f"{sp:.2f}x", sp >= 0.9 * x["nodes"]))
    if sc := load("scale_cost"):
        small, large = sc["sizes"][0], sc["sizes"][-1]
        worst = max(large[op]["commands"] / max(small[op]["commands"], 1)
                    for op in SCALE_OPS)
        rows.append((f"frontier cost, {small['hosts']:,} -> {large['hosts']:,} hosts "
                     f"({large['queued']:,} queued), worst ratio of Redis commands",
                     "work_left 6.75 s at 200,000 hosts (issue 14)", "flat (within 2x)",
                     f"{worst:.2f}x", worst <= 2))
    if (ex := load("extract_cost")) and ex.get("spider"):
        worst = max(x["profile_per_core"] / x["reading_per_core"] for x in ex["spider"])
        rows.append(("`forum` spider pages/s per core, read by a learned template vs by the engine's "
                     "profile, worst engine (learning itself: section 9)", "not measured (issue 14)",
                     "learned within 2x", f"{worst:.2f}x the cost", worst <= 2))
    table = {a: f"| {a} | {b} | {c} | {d} | {'yes' if ok else '**no**'} |" for a, b, c, d, ok in rows}
    # the rows of parts not measured here stay as the RESULTS.md in the tree has them
    kept = {line.split(" | ")[0].removeprefix("| "): line for line in previous
            if line.startswith("| ") and not line.startswith(("| figure ", "|---"))}
    table = {**kept, **table}
    if not table:
        return []
    out = ["## Targets (from `../shared/docs/brief.md`)", "",
           "| figure | baseline | target | ours, this run | met |", "|---|---|---|---|---|"]
    return [*out, *table.values(), ""]


SCALE_OPS = ("refill", "work_left", "heartbeat", "ring_refresh", "status")


def scale_cost(d: dict) -> list[str]:
    sizes = d["sizes"]
    head = " | ".join(f"{x['hosts']:,} hosts ({x['queued']:,} queued)" for x in sizes)
    lines = ["## 6. Cost as the frontier grows", "",
             "A redis-server filled with the frontier's key layout "
             f"({d['per_host']} queued requests per host, every host due), then each "
             "operation timed through `Frontier` (`bench/scale_cost.py`): a refill is a flush "
             "(16 new links, 16 acks) and a lease of 16; work_left is the idle path's recount; "
             "a ring refresh with nothing changed is the idle heartbeat's; status is "
             "`python -m crawler status`'s read.", "",
             f"| operation | {head} |", "|---|" + "---|" * len(sizes)]
    for op in SCALE_OPS:
        cells = " | ".join(f"{x[op]['ms_median']:.2f} ms, {x[op]['commands']:.0f} commands, "
                           f"{x[op].get('redis_cpu_ms', float('nan')):.2f} ms Redis CPU"
                           for x in sizes)
        lines.append(f"| {op} | {cells} |")
    lines += ["", "Median wall time per call (this machine is shared and noisy); Redis commands "
              "and CPU per call from `INFO`. Flat means the same commands at every size.", ""]
    return lines


def profile(d: dict) -> list[str]:
    p, a = d["plain"], d["attributed"]
    lines = ["## 7. Redis' cost per page, per part of the refill", "",
             f"`bench/profile_redis.py`: a synthetic follow crawl of {d['hosts']} hosts x "
             f"{d['pages_per_host']} pages through `Frontier`, {d['want']} hosts in flight, "
             f"leased {d.get('host_batch', 1)} requests at a time per host (CRAWLER_HOST_BATCH) "
             f"and acked together, {d['batch']} pages done per refill"
             + (", AOF everysec" if d.get("aof") else "")
             + f": {p['pages']:,} pages, {p['commands_per_page']:.1f} Redis commands per page, "
             f"{p['redis_cpu_per_1000']:.3f} s Redis CPU per 1,000 pages (median of "
             + ", ".join(f"{c:.3f}" for c in p.get("redis_cpu_per_1000_runs", [])) + ").", "",
             "Below, each part of `refill.lua` called on its own to attribute it (one call "
             "per part costs more than the one call per refill the plain passes make).", "",
             "| part of refill.lua | commands / page | us / page inside it | by command |",
             "|---|---|---|---|"]
    for name, c in a["per_script"].items():
        top = ", ".join(f"{k} {v:.2f}" for k, v in c.items() if k not in ("total", "evalsha_usec"))
        lines.append(f"| {name} | {c['total']:.2f} | {c['evalsha_usec']:.0f} | {top} |")
    if counted := d.get("instructions"):
        lines += ["", f"Instructions: a shorter crawl of the same hosts ({counted['pages']:,} pages) "
                  "with redis-server under callgrind, counted while it handles requests: "
                  f"**{counted['per_page'] / 1000:.0f}k instructions per page**, within 0.5% run "
                  "to run (CPU seconds here vary by 30%). Where they go, inclusive (the rows "
                  "overlap):", "",
                  "| where | instructions / page |", "|---|---|"]
        lines += [f"| {label} | {n / 1000:.1f}k |" for label, n in counted["where"].items()]
        lines += [f"| {name} | {n / 1000:.1f}k |" for name, n in counted["commands"].items()]
    return lines + [""]


def incremental(d: dict) -> list[str]:
    """The incremental re-crawl table (``bench/recrawl.py``, which prints it too)."""
    lines = ["## 8. Incremental re-crawl", "",
             f"`bench/recrawl.py`: the changing phpBB test forum (2 boards x {d['threads']} "
             "threads x 5 pages, ETag and 304 from the project's test server) crawled, then "
             f"changed (version 2 adds or edits {d.get('wanted', 8)} items: a new thread of 2 "
             "posts, 4 replies, one of them on a new page, and an edit) and crawled again "
             "by each configuration. Crawl s is Scrapy's `elapsed_time_seconds`; wall s "
             "the whole command.", "",
             "| configuration | first run: requests | second run: requests | of the first | "
             "304s | second run: crawl s (wall s) | items emitted (wanted: "
             f"{d.get('wanted', 8)}) |", "|---|---|---|---|---|---|---|"]
    for run in d["runs"]:
        one, two = run["first"], run["second"]
        lines.append(f"| {run['configuration']} | {one['requests']} | {two['requests']} | "
                     f"{two['requests'] / one['requests']:.1%} | {two['not_modified']} | "
                     f"{two['crawl_s']} ({two['wall_s']}) | {two['items']} |")
    return lines + [""]


def extraction(d: dict) -> list[str]:
    """The forum spider's cost with a profile and with a learned template (``bench/extract_cost.py``)."""
    lines = ["## 9. Extraction: engine profile vs learned template", "",
             "`bench/extract_cost.py --spider`: the thread pages captured from the lab engines "
             "(`tests/fixtures/sites/learned_<engine>`), read by the engine's profile and by the "
             f"template learned on the same site (median of {d['rounds']} rounds).", "",
             "| engine | thread pages | posts (profile / template) | profile ms / page | template ms / page | "
             "template / profile | learning the site, ms |", "|---|---|---|---|---|---|---|"]
    for x in d["pages"]:
        lines.append(f"| {x['engine']} | {x['pages']} | {x['posts_profile']} / {x['posts_template']} | "
                     f"{x['profile_ms']:.2f} | {x['template_ms']:.2f} | "
                     f"{x['template_ms'] / x['profile_ms']:.2f} | {x['learn_ms']:.0f} |")
    if spider := d.get("spider"):
        lines += ["", "The whole `forum` spider on the same fixture forums served on loopback, with "
                  "extraction and the embedded Redis: pages per CPU second of the crawl (its process "
                  "and children) less a crawl that fetches nothing (start-up, idle close), median of "
                  f"{d.get('repeat', 3)} crawls. Learned is `-a profile=none`: with learning (the "
                  "pages read while learning, the refetch of the first pages and the links followed "
                  "while learning), and reading alone (the crawl's `learn/cpu_ms`, the CPU of the "
                  "pages read while learning, subtracted: what a site costs once learned).", "",
                  "| engine | pages (profile / learned) | profile pages/s/core | learned, with learning | "
                  "learning CPU s | learned, reading | cost reading / profile |", "|---|---|---|---|---|---|---|"]
        for x in spider:
            lines.append(f"| {x['engine']} | {x['pages_profile']} / {x['pages_learned']} | "
                         f"{x['profile_per_core']:.1f} | {x['learned_per_core']:.1f} | "
                         f"{x['learning_cpu_s']:.2f} | {x['reading_per_core']:.1f} | "
                         f"{x['profile_per_core'] / x['reading_per_core']:.2f} |")
    return lines + [""]


def _section(text: str, heading: str) -> list[str]:
    """The lines of the section of *text* whose heading starts with *heading*."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    if start is None:
        return []
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(("# ", "## "))),
               len(lines))
    return lines[start:end]


def numbered_sections(text: str) -> dict[int, list[str]]:
    """The ``## N. Title`` sections of *text*, by number, each up to the next heading."""
    sections: dict[int, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(("# ", "## ")):
            match = re.match(r"## (\d+)\. ", line)
            current = sections.setdefault(int(match[1]), []) if match else None
        if current is not None:
            current.append(line)
    return sections


def main() -> None:
    PLOTS.mkdir(exist_ok=True)
    lines = [f"# Benchmarks ({time.strftime('%Y-%m-%d')})", "",
             "Regenerated by `bench/run` (parts: `bench/run PART [flags]`, see bench/README.md). "
             "Machine: 2 cores; everything (server, Redis, nodes) shares them.", ""]
    before = (BENCH / "RESULTS.md").read_text() if (BENCH / "RESULTS.md").exists() else ""
    # part -> the commit that measured it: the RESULTS.md in the tree's, then this run's
    measured_by = {part: commit for commit, names in re.findall(
        r"`([0-9a-f]{7,40}|unknown)` \(([^)]*)\)", _section(before, "Code under test")[0]
        if _section(before, "Code under test") else "") for part in names.split(", ")}
    for path in sorted(RESULTS.glob("*.json")):
        measured_by[path.stem] = json.loads(path.read_text()).get("commit", "unknown")
    parts: dict[str, list[str]] = {}  # commit -> the parts that measured it
    for part, commit in sorted(measured_by.items()):
        parts.setdefault(commit, []).append(part)
    if parts:
        which = "; ".join(f"`{c}` ({', '.join(names)})" for c, names in parts.items()) \
            if len(parts) > 1 else f"`{next(iter(parts))}`"
        lines += [f"Code under test: commit {which} (a `git archive` snapshot in "
                  "bench/work/code, so edits made during a run do not mix in).", ""]
    manifest = BENCH / "work" / "site" / "manifest.json"
    site = json.loads(manifest.read_text()) if manifest.exists() else None
    lines += [] if site is None else [f"Site: {site['total_pages']:,} static forum pages on {site['hosts']} hosts "
              f"(127.0.x.y, one nginx with a listening socket per address), pages "
              f"{site['bytes_min'] / 1000:.1f}-{site['bytes_max'] / 1000:.1f} KB (mean "
              f"{site['bytes_mean'] / 1000:.1f} KB), paginated boards and threads, 30% of "
              "threads link to a page of another host. Latency mode: the same forum from "
              "`bench/latency_server.py` (the project's test server), answering each request "
              "after a fixed delay.",
              ""]
    lines += targets(_section(before, "## Targets"))
    measured: list[str] = []
    if (d := load("throughput")) is not None:
        measured += throughput(d)
    if (d := load("redis_cost")) is not None:
        measured += redis_cost(d)
    if (d := load("rebalance")) is not None:
        cost = load("redis_cost")
        sweep = cost["ours"][-1].get("sweep") if cost else None
        if sweep:
            sweep["requests_total"] = cost["ours"][-1]["urls"]
        measured += moves(d, sweep)
    for name, render in (("scaleout", scaleout), ("politeness", politeness),
                         ("scale_cost", scale_cost), ("profile_redis", profile),
                         ("incremental", incremental), ("extract_cost", extraction)):
        if (d := load(name)) is not None:
            measured += render(d)
    # the numbered sections of parts not measured here stay as they were (a run of one
    # part must not drop the others' results, nor the Scrapy suite's section)
    sections = {**numbered_sections(before), **numbered_sections("\n".join(measured))}
    for number in sorted(sections):
        lines += sections[number]
    analysis = BENCH / "ANALYSIS.md"
    if analysis.exists():
        lines += [analysis.read_text()]
    (BENCH / "RESULTS.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {BENCH / 'RESULTS.md'}")


if __name__ == "__main__":
    main()
