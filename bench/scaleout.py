"""Part 4 and part 6: several node processes on one Redis, on the latency-bound site.

Scale-out: 1, 2 and 4 nodes of ours (external Redis), each with the same settings, on the
latency server (every response --delay late), with a per-host page budget so that no
single host's serial chain bounds the crawl. Pages/s from the server log; each node's
pages from its own stats; load balance as WebGather reports it: variance of each node's
share of pages times n (ideal 1).

Politeness: 4 nodes with DOWNLOAD_DELAY over a few hosts, ours and scrapy-redis
(4 processes sharing one queue), for a fixed time. From the server log: the most
requests one host had in flight at once, and the smallest gap between two request
starts on one host.

    python bench/scaleout.py [--pages-per-host 20] [--delay 0.2] [--polite-seconds 20]
"""

from __future__ import annotations

import argparse
import statistics

from common import (Crawl, ExternalRedis, LatencyServer, LogWindow, ensure_site, max_concurrency,
                    min_start_gap, pages_per_s, per_host, run_crawls, save)

NODE_FLAGS = ["-s", "CRAWLER_ITEMS_STREAM=False", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1",
              "-s", "CRAWLER_IDLE_CLOSE=3"]


def scale_run(server: LatencyServer, nodes: int, budget: int, concurrency: int) -> dict:
    window = LogWindow(server.log)
    with ExternalRedis(f"scale-{nodes}") as redis:
        flags = [*NODE_FLAGS, "-s", f"REDIS_URL={redis.url}", "-s", f"CRAWLER_HOST_PAGE_LIMIT={budget}",
                 "-s", f"CONCURRENT_REQUESTS={concurrency}"]
        crawls = [(Crawl("follow", server.base_urls(), [*flags, "-s", f"CRAWLER_NODE_ID=node-{i}"],
                         f"node-{i}"), f"scale-{nodes}-{i}") for i in range(nodes)]
        stats, cpu = run_crawls(crawls)
    hits = window.hits()
    per_node = [s["stats"].get("response_received_count", 0) for s in stats]
    shares = [count * nodes / sum(per_node) for count in per_node]
    return {"nodes": nodes, "pages": len(hits), "pages_per_s": pages_per_s(hits),
            "per_node_pages": per_node, "shares": shares,
            "share_variance": statistics.pvariance(shares, mu=1.0), "cpu_s": cpu}


def polite_run(server: LatencyServer, system: str, hosts: int, delay: float, seconds: int) -> dict:
    window = LogWindow(server.log)
    with ExternalRedis(f"polite-{system}") as redis:
        flags = ["-s", f"REDIS_URL={redis.url}", "-s", f"DOWNLOAD_DELAY={delay}",
                 "-s", f"CLOSESPIDER_TIMEOUT={seconds}", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1",
                 "-s", "CRAWLER_ITEMS_STREAM=False"]
        spider = "follow" if system == "ours" else "follow_sr"
        crawls = [(Crawl(spider, server.base_urls(hosts), [*flags, "-s", f"CRAWLER_NODE_ID=p{i}"],
                         f"{system}-{i}"), f"polite-{system}-{i}") for i in range(4)]
        run_crawls(crawls)
    by_host = per_host(window.hits())
    gaps = {h: min_start_gap(v) for h, v in by_host.items() if len(v) > 1}
    # with per-response latency L and delay d, a polite host sees starts >= L + d apart
    return {"system": system, "hosts": len(by_host), "pages": sum(map(len, by_host.values())),
            "max_inflight_per_host": max(max_concurrency(v) for v in by_host.values()),
            "min_start_gap_s": min(gaps.values()),
            "median_host_min_gap_s": statistics.median(gaps.values()),
            "hosts_with_2_or_more": len(gaps)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages-per-host", type=int, default=20)
    parser.add_argument("--delay", type=float, default=0.2, help="server latency (s)")
    parser.add_argument("--concurrency", type=int, default=8, help="CONCURRENT_REQUESTS per node")
    parser.add_argument("--polite-hosts", type=int, default=50)
    parser.add_argument("--polite-delay", type=float, default=0.5)
    parser.add_argument("--polite-seconds", type=int, default=20)
    parser.add_argument("--parts", default="scale,polite")
    args = parser.parse_args()
    manifest = ensure_site()
    out: dict = {"latency_s": args.delay, "pages_per_host": args.pages_per_host,
                 "concurrency": args.concurrency, "hosts": manifest["hosts"]}
    with LatencyServer(manifest, args.delay) as server:
        if "scale" in args.parts:
            out["scale"] = []
            for nodes in (1, 2, 4):
                out["scale"].append(scale_run(server, nodes, args.pages_per_host, args.concurrency))
                print(out["scale"][-1], flush=True)
            save("scaleout", out)
        if "polite" in args.parts:
            polite = {"hosts": args.polite_hosts, "delay_s": args.polite_delay,
                      "latency_s": args.delay, "seconds": args.polite_seconds, "runs": []}
            for system in ("ours", "scrapy-redis"):
                polite["runs"].append(polite_run(server, system, args.polite_hosts,
                                                 args.polite_delay, args.polite_seconds))
                print(polite["runs"][-1], flush=True)
            save("politeness", polite)


if __name__ == "__main__":
    main()
