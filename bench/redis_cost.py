"""Part 3 (memory) and part 5 (moving queued work): Redis filled through each system's code.

- dedup bytes per seen URL: ours, the Bloom filter sized for N (CRAWLER_BLOOM_CAPACITY=N,
  p=1e-4), filled by ``Frontier.flush``; scrapy-redis, its fingerprint set, 40-hex SHA1s
  added as its ``RFPDupeFilter.request_seen`` adds them (SADD, here pipelined);
- bytes per queued request: ours, ``Frontier.flush`` of requests encoded by our codec
  (queues, host hashes, ready set: everything but the Bloom filter); scrapy-redis, its
  ``PriorityQueue`` entries (pickled ``request_to_dict``), ZADD as its ``push`` does;
- moving the hosts a joining node takes, over a frontier of N queued requests on H hosts:
  ``Frontier.sweep`` (what ``Membership`` runs), against moving the requests themselves.

Memory is ``used_memory`` growth of a fresh redis-server and ``MEMORY USAGE ... SAMPLES 0``.

    python bench/redis_cost.py [--sizes 100000,1000000] [--hosts 10000]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time

from common import ExternalRedis, save

ERROR_RATE = 1e-4
BATCH = 5000


def urls(count: int, hosts: int, seed: int = 1) -> list[tuple[str, str]]:
    """(host, url) pairs that look like forum URLs (about 70 characters)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        host = f"forum{rng.randrange(hosts)}.example.org"
        slug = "-".join(rng.choices(("redis", "scrapy", "help", "crawler", "python", "bug",
                                     "question", "release", "howto", "error"), k=3))
        out.append((host, f"https://{host}/threads/{slug}.{i}/page-{rng.randint(1, 9)}"))
    return out


def spider_request(url: str, spider):
    """A request as the follow spider queues it: its errback (the callback is parse), the depth
    DepthMiddleware adds, the Referer header RefererMiddleware adds (its parent page)."""
    from scrapy import Request  # noqa: PLC0415
    parent = url.rsplit("/", 1)[0] + "/"
    return Request(url, errback=spider.failed, meta={"depth": 3},
                   headers={"Referer": parent})


def make_spider():
    from crawler.spiders.follow import FollowSpider  # noqa: PLC0415
    return FollowSpider(start_urls="https://forum0.example.org/")


def fingerprint(url: str) -> str:
    return hashlib.sha1(url.encode()).hexdigest()


def used(client) -> int:
    return client.info("memory")["used_memory"]


def memory_of(client, pattern: str) -> int:
    return sum(client.memory_usage(k, samples=0) or 0 for k in client.scan_iter(pattern, 1000))


# -- ours -----------------------------------------------------------------------

def fill_ours(client, pairs: list[tuple[str, str]]):
    from crawler.frontier.codec import encode  # noqa: PLC0415
    from crawler.frontier.frontier import Frontier, Pending  # noqa: PLC0415
    from crawler.frontier.keys import Keys  # noqa: PLC0415

    keys = Keys("bench")
    f = Frontier(client, keys, "n1", delay_ms=0, max_inflight=1, host_limit=0,
                 bloom_capacity=len(pairs), bloom_error_rate=ERROR_RATE)
    epoch = f.join(1)
    spider = make_spider()
    start, trips = time.perf_counter(), f.link.round_trips
    for i in range(0, len(pairs), BATCH):
        pushes = [Pending(h, fingerprint(u), encode(spider_request(u, spider), spider, h), u)
                  for h, u in pairs[i:i + BATCH]]
        f.flush(pushes, [], epoch, lambda host: keys.ready("n1"))
    return f, epoch, time.perf_counter() - start, f.link.round_trips - trips


def payload_mean(pairs: list[tuple[str, str]]) -> float:
    from crawler.frontier.codec import encode  # noqa: PLC0415
    spider = make_spider()
    return sum(len(encode(spider_request(u, spider), spider, h)) for h, u in pairs) / len(pairs)


def measured_false_positive_rate(client, f, probes: int = 100_000) -> float:
    # a layer started but not yet written to has no bits (and matches nothing)
    layers = [(layer, client.get(f.keys.bloom_bits(layer.index))) for layer in f.bloom.layers]
    layers = [(layer, bits) for layer, bits in layers if bits]

    def found(fp: str) -> bool:
        return any(layer.found(bits, fp) for layer, bits in layers)

    return sum(found(fingerprint(f"fresh-{i}")) for i in range(probes)) / probes


def ours(size: int, hosts: int, sweep: bool) -> dict:
    with ExternalRedis(f"cost-ours-{size}") as redis:
        client = redis.client()
        base = used(client)
        pairs = urls(size, hosts)
        f, epoch, took, trips = fill_ours(client, pairs)
        total = used(client) - base
        bloom = memory_of(client, "crawler:{bench}:bloom:*")
        out = {"urls": size, "hosts": hosts, "fill_s": took, "fill_round_trips": trips,
               "bloom_bytes": bloom, "bloom_bytes_per_url": bloom / size,
               "bloom_layers": len(f.bloom.layers),
               "bloom_fp_estimated": f.bloom.false_positive_rate(),
               "bloom_fp_measured": measured_false_positive_rate(client, f),
               "queue_bytes_per_request": (total - bloom) / size,
               "payload_bytes_mean": payload_mean(pairs[:1000])}
        if sweep:
            out["sweep"] = sweep_cost(redis, f)
        return out


def sweep_cost(redis: ExternalRedis, f) -> dict:
    """A second node joins: move the hosts it now owns, as Membership does, then (for
    contrast) move those hosts' queued requests as a per-node-queue design must."""
    from crawler.frontier.frontier import Frontier  # noqa: PLC0415
    from crawler.frontier.ring import Ring  # noqa: PLC0415
    from crawler.settings_defaults import DEFAULTS  # noqa: PLC0415

    client = redis.client()
    keys = f.keys
    other = Frontier(client, keys, "n2", delay_ms=0, max_inflight=1, host_limit=0,
                     bloom_capacity=f.bloom.capacity, bloom_error_rate=ERROR_RATE)
    epoch = other.join(1)
    ring = Ring({"n1": 1, "n2": 1}, int(DEFAULTS["CRAWLER_RING_VNODES"]))
    before, trips, start = redis.snapshot(), f.link.round_trips, time.perf_counter()
    hosts = f.hosts_in(keys.ready("n1"))
    moves = {h: keys.ready("n2") for h in hosts if ring.owner(h) == "n2"}
    moved = f.sweep(keys.ready("n1"), moves, epoch)
    took = time.perf_counter() - start
    after = redis.snapshot()
    queued = sum(client.pipeline().llen(keys.queue(h)).execute()[0] for h in moves)
    contrast = move_requests(redis, keys, list(moves))
    return {"hosts": len(hosts), "hosts_moved": moved, "requests_behind_moved_hosts": queued,
            "seconds": took, "round_trips": f.link.round_trips - trips,
            "redis_commands": after["commands"] - before["commands"],
            "redis_cpu_s": after["cpu"] - before["cpu"], "move_requests": contrast}


def move_requests(redis: ExternalRedis, keys, hosts: list[str]) -> dict:
    """What moving the queued requests themselves costs: read each moved host's queue
    and push it to the new owner's queue (pipelined, 100 hosts per round trip)."""
    client = redis.client()
    before, start, trips, moved_bytes, moved = redis.snapshot(), time.perf_counter(), 0, 0, 0
    for i in range(0, len(hosts), 100):
        chunk = hosts[i:i + 100]
        pipe = client.pipeline(transaction=False)
        for h in chunk:
            pipe.lrange(keys.queue(h), 0, -1)
        queues = pipe.execute()
        pipe = client.pipeline(transaction=False)
        for h, items in zip(chunk, queues):
            if items:
                pipe.rpush(f"moved:{{bench}}:n2:{h}", *items)
            pipe.delete(keys.queue(h))
            moved_bytes += sum(len(x) for x in items)
            moved += len(items)
        pipe.execute()
        trips += 2
    after = redis.snapshot()
    return {"requests": moved, "bytes": moved_bytes, "seconds": time.perf_counter() - start,
            "round_trips": trips, "redis_commands": after["commands"] - before["commands"],
            "redis_cpu_s": after["cpu"] - before["cpu"]}


# -- scrapy-redis ----------------------------------------------------------------

def scrapy_redis_dedup(size: int) -> dict:
    with ExternalRedis(f"cost-sr-df-{size}") as redis:
        client = redis.client()
        base = used(client)
        for i in range(0, size, BATCH):
            pipe = client.pipeline(transaction=False)
            for n in range(i, min(size, i + BATCH)):
                pipe.sadd("follow:dupefilter", fingerprint(f"u{n}"))
            pipe.execute()
        return {"urls": size, "bytes_per_url": (used(client) - base) / size,
                "memory_usage_per_url": client.memory_usage("follow:dupefilter", samples=0) / size}


def scrapy_redis_queue(pairs: list[tuple[str, str]]) -> dict:
    from scrapy_redis.queue import PriorityQueue  # noqa: PLC0415

    with ExternalRedis("cost-sr-q") as redis:
        client = redis.client()
        spider = make_spider()
        queue = PriorityQueue(client, spider, "follow:requests")
        base = used(client)
        for i in range(0, len(pairs), BATCH):
            pipe = client.pipeline(transaction=False)
            for _, url in pairs[i:i + BATCH]:
                request = spider_request(url, spider)
                # exactly PriorityQueue.push, pipelined
                pipe.execute_command("ZADD", queue.key, -request.priority,
                                     queue._encode_request(request))
            pipe.execute()
        return {"requests": len(pairs), "payload_bytes_mean": sum(
                    len(queue._encode_request(spider_request(u, spider))) for _, u in pairs[:1000]) / 1000,
                "bytes_per_request": (used(client) - base) / len(pairs),
                "memory_usage_per_request": client.memory_usage(queue.key, samples=0) / len(pairs)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--hosts", type=int, default=10_000)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    result: dict = {"ours": [], "scrapy_redis_dedup": []}
    for size in sizes:
        result["ours"].append(ours(size, args.hosts, sweep=size == sizes[-1]))
        print("ours", size, {k: v for k, v in result["ours"][-1].items() if k != "sweep"}, flush=True)
        result["scrapy_redis_dedup"].append(scrapy_redis_dedup(size))
        print("scrapy-redis dedup", result["scrapy_redis_dedup"][-1], flush=True)
    result["scrapy_redis_queue"] = scrapy_redis_queue(urls(sizes[0], args.hosts))
    print("scrapy-redis queue", result["scrapy_redis_queue"])
    print("sweep", result["ours"][-1].get("sweep"))
    save("redis_cost", result)


if __name__ == "__main__":
    main()
