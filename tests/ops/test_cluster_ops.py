"""Operations on real node processes: metrics and probes during a crawl, status, pause,
drain, and one dataset exported from two nodes."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from crawler.frontier.keys import Keys
from tests.helpers import ROOT
from tests.helpers.ops import (
    OPS_SETTINGS,
    cli,
    get,
    health_port,
    ready,
    status_json,
    wait_until,
)
from tests.sitekit.site import SiteServer

pytestmark = pytest.mark.slow

COMMON = dict(CRAWLER_HEARTBEAT_INTERVAL=0.5, CRAWLER_NODE_TIMEOUT=3, CRAWLER_IDLE_CLOSE=2,
              CONCURRENT_REQUESTS=8, LOG_LEVEL="INFO", TELNETCONSOLE_ENABLED=False,
              **OPS_SETTINGS)


def metrics(port: int) -> dict[str, float]:
    status, text = get(port, "/metrics")
    assert status == 200
    return {(s.name + "".join(f"{{{k}={v}}}" for k, v in sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_metrics_probes_status_and_one_dataset_from_two_nodes(redis_server, nodes, tmp_path):
    settings = dict(COMMON, REDIS_URL=redis_server.url, DOWNLOAD_DELAY=0.05)
    with SiteServer(hosts=8, pages_per_host=30, latency=0.03, seed=21) as site:
        cluster = [nodes(f"crawler-{i}", site.base_urls, **settings) for i in range(2)]
        ports = [health_port(n) for n in cluster]
        wait_until(lambda: all(ready(p)[0] == 200 for p in ports), 30, what="both ready")
        assert site.wait_fetched(20, timeout=60)
        first = [metrics(p) for p in ports]
        for sample in first:
            assert sample["crawler_frontier_queued"] >= 0
            assert sample["crawler_member"] == 1.0 and sample["crawler_redis_reachable"] == 1.0
            assert sample["crawler_ring_members"] == 2.0
            assert sample["crawler_redis_round_trips_total"] > 0
        assert sum(s.get("crawler_pages_total", 0) for s in first) > 0
        wait_until(lambda: sum(metrics(p).get("crawler_pages_total", 0) for p in ports)
                   > sum(s.get("crawler_pages_total", 0) for s in first), 30,
                   what="pages_total to grow")
        status = status_json(redis_server.url)
        assert {n["node"]: n["state"] for n in status["nodes"]} == \
            {"crawler-0": "alive", "crawler-1": "alive"}
        assert status["totals"]["hosts_with_work"] == \
            sum(n["hosts_owned"] for n in status["nodes"]) + status["totals"]["orphan_hosts"]
        assert [n.wait(120) for n in cluster] == [0, 0], cluster[0].output()[-3000:]
        expected = site.expected_urls()
        fetched_by_server = site.fetch_counts()
    for node in cluster:
        assert "Progress: " in node.output() and "pages/s" in node.output()
        assert "Traceback" not in node.output()
    out = tmp_path / "items.jl"
    # --keep: the stream is read again below (by default, export trims what it wrote)
    result = cli("export", "-o", str(out), "--keep", "--redis-url", redis_server.url)
    assert result.returncode == 0, result.stderr
    urls = [json.loads(line)["url"] for line in out.read_text().splitlines()]
    assert len(urls) == len(set(urls)), "an item exported twice"
    assert set(urls) == expected
    assert sum(fetched_by_server.values()) == len(expected)
    writers = {fields[b"node"] for _, fields in redis_server.client().xrange("crawler:{follow}:items")}
    assert writers == {b"crawler-0", b"crawler-1"}, "one dataset from both nodes"
    final = status_json(redis_server.url)
    assert final["totals"]["queued"] == 0 and final["totals"]["leased"] == 0
    assert final["items_stream"] == len(expected)


def test_pause_and_drain_take_effect(redis_server, nodes):
    # (after the drain, one node crawls what is left alone: the pace and the site size set
    # this test's length, and neither is what it checks)
    settings = dict(COMMON, REDIS_URL=redis_server.url, DOWNLOAD_DELAY=0.05)
    url = ["--redis-url", redis_server.url]
    with SiteServer(hosts=6, pages_per_host=25, latency=0.05, seed=22) as site:
        cluster = [nodes(f"crawler-{i}", site.base_urls, **settings) for i in range(2)]
        ports = [health_port(n) for n in cluster]
        assert site.wait_fetched(15, timeout=60)

        # pause returns once every node acknowledged it, and /readyz says paused only
        # then: from the earlier of the two moments on, no request may start
        pause = subprocess.Popen([sys.executable, "-m", "crawler", "pause", *url], cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        paused_at = wait_until(lambda: all(ready(p)[1]["paused"] for p in ports)
                               and time.monotonic(), 30, interval=0.02, what="nodes paused")
        out, err = pause.communicate(timeout=60)
        returned_at = time.monotonic()
        assert pause.returncode == 0, err
        assert "2 live nodes acknowledged" in out, out
        assert all(ready(p)[1]["paused"] for p in ports)
        since = min(paused_at, returned_at)
        before = len(site.requests)

        def started() -> list[str]:
            return [r.url for r in site.requests if r.start > since]

        assert not site.wait_for(lambda: bool(started()), timeout=2), \
            f"started after pause returned: {started()}"
        assert status_json(redis_server.url)["totals"]["queued"] > 0  # work was waiting

        assert cli("resume", *url).returncode == 0
        assert site.wait_for(lambda: len(site.requests) > before, timeout=10)

        assert cli("drain", "crawler-1", *url).returncode == 0
        wait_until(lambda: ready(ports[1])[0] == 503, 10, what="crawler-1 not ready")
        body = ready(ports[1])[1]
        assert body["draining"] is True and "draining" in body["reasons"]
        assert ready(ports[0])[0] == 200
        nodes_now = {n["node"]: n for n in status_json(redis_server.url)["nodes"]}
        assert nodes_now["crawler-1"]["state"] == "draining"
        assert nodes_now["crawler-1"]["hosts_owned"] == 0 and nodes_now["crawler-1"]["weight"] == 0
        assert [n.wait(120) for n in cluster] == [0, 0]
        counts = site.fetch_counts()
        assert site.expected_urls() - set(counts) == set(), "pages lost"
        assert {u: c for u, c in counts.items() if c > 1} == {}


def test_pause_names_a_live_node_that_does_not_acknowledge(redis_server):
    # a member whose heartbeat is fresh but which never answers (a stalled process)
    keys = Keys("follow")
    client = redis_server.client()
    sec, usec = client.time()
    client.zadd(keys.members, {"stalled-node": sec * 1000 + usec // 1000 + 60_000})
    client.set(keys.epoch, 1)  # a crawl has a ring
    result = cli("pause", "--timeout", "0.5", "--redis-url", redis_server.url,
                 "--crawl", "follow")
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "stalled-node did not acknowledge within 0.5 s" in lines[0], lines
    assert client.hget(keys.control, "paused")  # the crawl stays paused
    client.hset(keys.control, "paused:stalled-node", client.hget(keys.control, "paused"))
    result = cli("pause", "--timeout", "0.5", "--redis-url", redis_server.url,
                 "--crawl", "follow")
    assert result.returncode == 2  # a new pause: the old answer does not count
    assert "stalled-node did not acknowledge" in result.stderr
