"""The Bloom filter's Redis memory with the proposed fix: create each layer's bit string
at its exact size (SET of zero bytes) before the first SETBIT, instead of letting
SETBIT grow it (Redis' sds growth doubles the allocation below 1 MB and adds 1 MB
above). Same fill as redis_cost.py; writes work/results/bloom_fix.json.

    python bench/bloom_fix.py [--sizes 100000,1000000]
"""

from __future__ import annotations

import argparse

from common import ExternalRedis, save
from redis_cost import fill_ours, memory_of, urls


def presized(size: int, hosts: int) -> dict:
    from crawler.scheduler.bloom import BloomLayer  # noqa: PLC0415
    from crawler.scheduler.keys import Keys  # noqa: PLC0415

    with ExternalRedis(f"bloomfix-{size}") as redis:
        client = redis.client()
        layer = BloomLayer.of(size, 1e-4, 0)
        # what the fix would do when a layer starts (NX: never clobber a live filter)
        client.set(Keys("bench").bloom_bits(0), b"\0" * layer.size_bytes, nx=True)
        fill_ours(client, urls(size, hosts))
        bloom = memory_of(client, "crawler:{bench}:bloom:*")
        return {"urls": size, "logical_bytes_per_url": layer.size_bytes / size,
                "bytes_per_url": bloom / size}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--hosts", type=int, default=10_000)
    args = parser.parse_args()
    rows = [presized(int(s), args.hosts) for s in args.sizes.split(",")]
    print(rows)
    save("bloom_fix", {"rows": rows})


if __name__ == "__main__":
    main()
