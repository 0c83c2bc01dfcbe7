"""Part 6: does the frontier's cost stay flat as it grows (issue 14)?

A real redis-server is filled with the frontier's own key layout (``crawler.frontier.keys``):
H hosts with R queued requests each, every host due in node n1's ready set. Then, at
each size, the operations a node runs on its hot and idle paths are timed through
``Frontier`` and counted in Redis commands:

- refill: a flush (16 new links pushed, the previous refill's 16 leases acked) and the
  lease that follows (16 due hosts), as ``Exchange.refill`` does;
- work_left (the idle path's recount), heartbeat, a ring refresh with no change (the
  idle path), and the status command's read.

Flat: the larger size costs about what the smaller does (within ~2x); an operation that
scans all hosts would cost 100x more at 100x the hosts.

    python bench/scale_cost.py [--hosts 10000,1000000] [--per-host 10] [--cycles 200]
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time

from common import ExternalRedis, save

# Bench-only filler: the queues, ready set and totals counter exactly as refill.lua writes
# them, generated inside Redis (10 M requests from Python would take minutes).
FILL = """
local ready, totals, prefix, payload = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local first, last, per = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local items, scores = {}, {}
for j = 1, per do items[j] = payload end
for i = first, last do
  local host = 'h' .. i .. '.example.org'
  redis.call('RPUSH', prefix .. 'q:' .. host, unpack(items))
  scores[#scores + 1] = '0'
  scores[#scores + 1] = host
end
redis.call('ZADD', ready, unpack(scores))
redis.call('HINCRBY', totals, 'queued', (last - first + 1) * per)
return last - first + 1
"""
PAYLOAD = "2|" + "x" * 84  # the size of a follow request encoded by our codec


def fill(client, keys, hosts: int, per_host: int) -> float:
    start, chunk = time.perf_counter(), 2000  # unpack() in Lua takes < 8000 values
    fill_sha = client.script_load(FILL)
    for first in range(0, hosts, chunk):
        last = min(hosts, first + chunk) - 1
        client.evalsha(fill_sha, 2, keys.ready("n1"), keys.totals, f"{keys.prefix}:", PAYLOAD,
                       first, last, per_host)
    return time.perf_counter() - start


def redis_totals(client) -> tuple[int, float]:
    """Commands processed and CPU seconds used by Redis so far."""
    info = client.info()
    return info["total_commands_processed"], info["used_cpu_user"] + info["used_cpu_sys"]


def timed(client, operation, repeat: int) -> dict:
    """Median and max milliseconds of *operation*, and Redis commands and Redis CPU
    milliseconds per call (the INFO call that counts them is left out)."""
    times, (commands, cpu) = [], redis_totals(client)
    for _ in range(repeat):
        start = time.perf_counter()
        operation()
        times.append((time.perf_counter() - start) * 1000)
    commands_after, cpu_after = redis_totals(client)
    return {"ms_median": statistics.median(times), "ms_max": max(times),
            "commands": (commands_after - commands - 1) / repeat,
            "redis_cpu_ms": 1000 * (cpu_after - cpu) / repeat}


def measure(hosts: int, per_host: int, cycles: int) -> dict:
    from crawler.frontier.frontier import Ack, Frontier, LeaseAsk, Pending  # noqa: PLC0415
    from crawler.frontier.keys import Keys  # noqa: PLC0415
    from crawler.frontier.membership import Membership  # noqa: PLC0415
    from crawler.frontier.status import read_status  # noqa: PLC0415

    with ExternalRedis(f"scale-{hosts}") as redis:
        client = redis.client()
        keys = Keys("scale")
        f = Frontier(client, keys, "n1", delay_ms=0, max_inflight=1, host_limit=0,
                     bloom_capacity=10_000_000, bloom_error_rate=1e-4)
        membership = Membership(f, weight=1, vnodes=2000, timeout_ms=60_000)
        # joined before the fill: a node id that joins again hands its hosts to the
        # orphans and claims them back, which is O(its hosts) (see docs/cluster-ceiling.md)
        membership.join()
        took = fill(client, keys, hosts, per_host)
        memory = client.info("memory")["used_memory"]
        ready = membership.ready_key
        acks: list = []
        serial = [0]

        def refill() -> None:
            links = []
            for _ in range(16):
                serial[0] += 1
                host = f"h{serial[0] * 7919 % hosts}.example.org"
                url = f"http://{host}/new/{serial[0]}"
                links.append(Pending(host, hashlib.sha1(url.encode()).hexdigest(),
                                     PAYLOAD.encode(), url))
            _, (leased, _) = f.send(links, acks, membership.epoch, ready, lease=LeaseAsk(16))
            acks[:] = [Ack(x.lease_id, x.host, f.now_ms()) for x in leased]

        out = {"hosts": hosts, "queued": hosts * per_host, "fill_s": took,
               "used_memory_mb": memory / 2**20,
               "refill": timed(client, refill, cycles),
               "work_left": timed(client, f.work_left, 20),
               "heartbeat": timed(client, lambda: f.heartbeat(60_000), 20),
               "ring_refresh": timed(client, membership.refresh, 20),
               "status": timed(client, lambda: read_status(client, keys, node_timeout=60), 5)}
        out["leased_per_refill"] = len(acks)
        return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", default="10000,1000000")
    parser.add_argument("--per-host", type=int, default=10, help="queued requests per host")
    parser.add_argument("--cycles", type=int, default=200, help="refills timed at each size")
    args = parser.parse_args()
    sizes = [int(h) for h in args.hosts.split(",")]
    results = []
    for hosts in sizes:
        results.append(measure(hosts, args.per_host, args.cycles))
        r = results[-1]
        print(f"{hosts} hosts, {r['queued']} queued ({r['used_memory_mb']:.0f} MB, filled in "
              f"{r['fill_s']:.1f} s):", flush=True)
        for op in ("refill", "work_left", "heartbeat", "ring_refresh", "status"):
            print(f"  {op}: {r[op]['ms_median']:.2f} ms median, {r[op]['ms_max']:.1f} max, "
                  f"{r[op]['commands']:.1f} Redis commands, {r[op]['redis_cpu_ms']:.2f} ms "
                  "Redis CPU", flush=True)
    save("scale_cost", {"per_host": args.per_host, "cycles": args.cycles, "sizes": results})


if __name__ == "__main__":
    main()
