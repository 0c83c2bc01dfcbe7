"""Part 5 (hosts moved) and the static half of part 4 (how evenly the ring splits hosts).

Hosts moved going from n to n+1 nodes and back, for the project's ring
(``crawler.frontier.ring.Ring`` with CRAWLER_RING_VNODES from settings_defaults) and for
hash mod n (crc32, as Frontera partitions), against the ideal 1/(n+1). And the variance
of each node's normalized share of hosts (share * n, ideal 1) for several host counts:
with whole hosts as the unit, no partition can be more even than the host count allows.

    python bench/rebalance.py [--hosts 10000] [--max-nodes 8]
"""

from __future__ import annotations

import argparse
import random
import statistics
import zlib
from collections import Counter

from common import save

from crawler.frontier.ring import Ring
from crawler.settings_defaults import DEFAULTS

VNODES = int(DEFAULTS["CRAWLER_RING_VNODES"])


def host_names(count: int) -> list[str]:
    # random names: crc32 is linear, so sequential names would split unrealistically evenly
    rng = random.Random(7)
    return [f"{''.join(rng.choices('abcdefghijklmnopqrstuvwxyz', k=rng.randint(5, 12)))}{i}.org"
            for i in range(count)]


def ring_owners(nodes: int, hosts: list[str]) -> list[str]:
    ring = Ring({f"node-{i}": 1 for i in range(nodes)}, VNODES)
    return [ring.owner(h) for h in hosts]


def mod_owners(nodes: int, hosts: list[str]) -> list[int]:
    return [zlib.crc32(h.encode()) % nodes for h in hosts]


def bounded_owners(nodes: int, hosts: list[str], epsilon: float = 0.05) -> list[str]:
    """Consistent hashing with bounded loads (Mirrokni et al., 2018), the proposed fix for
    few hosts: walk the ring clockwise from each host, skipping nodes already holding
    ceil((1 + epsilon) * hosts / nodes) hosts. Hosts are placed in ring order of their
    own hash, so every node computes the same assignment from the same host list."""
    import bisect  # noqa: PLC0415
    import hashlib  # noqa: PLC0415

    def h(key: str) -> int:
        return int.from_bytes(hashlib.md5(key.encode()).digest()[:8], "big")

    points = sorted((h(f"node-{i}-{v}"), f"node-{i}") for i in range(nodes) for v in range(VNODES))
    keys = [p for p, _ in points]
    cap = -(-int((1 + epsilon) * len(hosts)) // nodes)
    load: Counter = Counter()
    owner: dict[str, str] = {}
    for host in sorted(hosts, key=h):
        i = bisect.bisect(keys, h(host))
        while load[points[i % len(points)][1]] >= cap:
            i += 1
        owner[host] = points[i % len(points)][1]
        load[owner[host]] += 1
    return [owner[x] for x in hosts]


def moved(a: list, b: list) -> float:
    return sum(x != y for x, y in zip(a, b)) / len(a)


def share_variance(owners: list, nodes: int) -> float:
    """Variance of (node's share of hosts) * n: 0 is a perfect split."""
    counts = Counter(owners)
    shares = [counts.get(node, 0) * nodes / len(owners) for node in counts]
    shares += [0.0] * (nodes - len(shares))
    return statistics.pvariance(shares, mu=1.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", type=int, default=10_000)
    parser.add_argument("--max-nodes", type=int, default=8)
    args = parser.parse_args()
    hosts = host_names(args.hosts)
    ring = {n: ring_owners(n, hosts) for n in range(1, args.max_nodes + 1)}
    rows = []
    for n in range(1, args.max_nodes):
        rows.append({"n": n, "ideal": 1 / (n + 1), "ring_join": moved(ring[n], ring[n + 1]),
                     "ring_leave": moved(ring[n + 1], ring[n]),
                     "mod_join": moved(mod_owners(n, hosts), mod_owners(n + 1, hosts)),
                     "bounded_join": moved(bounded_owners(n, hosts), bounded_owners(n + 1, hosts))})
        print(rows[-1], flush=True)
    balance = []
    for count in (200, 1000, 10_000, 100_000):
        names = host_names(count)
        for nodes in (2, 4):
            balance.append({"hosts": count, "nodes": nodes,
                            "ring": share_variance(ring_owners(nodes, names), nodes),
                            "mod": share_variance(mod_owners(nodes, names), nodes),
                            "bounded": share_variance(bounded_owners(nodes, names), nodes),
                            "random_expected": (nodes - 1) / count})
            print(balance[-1], flush=True)
    save("rebalance", {"hosts": args.hosts, "vnodes": VNODES, "moves": rows, "balance": balance})


if __name__ == "__main__":
    main()
