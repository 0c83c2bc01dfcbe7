"""Redis restarting (AOF on) and Redis stalled (SIGSTOP) mid-crawl: nodes keep their
work, buffer what they discover, resume, and lose nothing."""

from __future__ import annotations

import json
import threading

import pytest

from tests.helpers.nodes import COMMON, cluster_outcomes
from tests.helpers.ops import wait_until
from tests.sitekit.site import SiteServer

pytestmark = pytest.mark.slow

SETTINGS = {**COMMON, "DOWNLOAD_DELAY": 0.02, "CRAWLER_REDIS_SOCKET_TIMEOUT": 1,
            "CRAWLER_NODE_TIMEOUT": 3}


def crawl_through(redis_server, nodes, outage) -> None:
    with SiteServer(hosts=6, pages_per_host=40, latency=0.03, seed=51) as site:
        cluster = [nodes(f"crawler-{i}", site.base_urls,
                         **{**SETTINGS, "REDIS_URL": redis_server.url}) for i in range(2)]
        assert site.wait_fetched(len(site.expected_urls()) // 3, timeout=120)
        outage(site, cluster)
        assert [n.wait(180) for n in cluster] == [0, 0], cluster[0].output()[-2000:]
        counts = site.fetch_counts()
        assert site.expected_urls() - set(counts) == set(), "pages lost in the outage"
        assert max(counts.values()) == 1, "pages fetched twice"
    for node in cluster:
        log = node.output()
        assert "Traceback" not in log
        assert log.count("Redis unreachable") <= 1, "the outage is logged once"
    assert any("Redis is reachable again" in n.output() for n in cluster)
    totals = cluster_outcomes(cluster)
    assert totals["discovered"] == totals["fetched"] + totals["filtered"] + totals["failed"]


def noticed(cluster) -> None:
    """Every node saw the outage (and went on with the work it holds)."""
    wait_until(lambda: all("Redis unreachable" in n.output() for n in cluster), 20,
               what="both nodes to notice the outage")


def test_redis_restart_mid_crawl(redis_server, nodes):
    def restart(site: SiteServer, cluster) -> None:
        redis_server.stop()
        noticed(cluster)
        redis_server.start()

    crawl_through(redis_server, nodes, restart)


def test_redis_stalled_mid_crawl(redis_server, nodes):
    def stall(site: SiteServer, cluster) -> None:
        redis_server.pause()
        noticed(cluster)
        redis_server.resume()

    crawl_through(redis_server, nodes, stall)


def test_redis_back_empty_the_node_rejoins_says_so_and_goes_on(redis_server, nodes):
    """FLUSHALL (a Redis restarted without persistence, or purged): the frontier is gone.
    The node must not freeze: it rejoins, says loudly what was lost, and goes on with the
    work it holds and the links it finds from then on."""
    held, release = threading.Event(), threading.Event()

    def hold_the_start_page(target: str, hit: int) -> None:
        if target == "/":  # host 2's start page is in flight while Redis is flushed
            held.set()
            release.wait(60)

    with SiteServer(hosts=3, pages_per_host=40, latency=0.05, seed=52, cross_links=False,
                    faults={2: hold_the_start_page}) as site:
        node = nodes("crawler-0", site.base_urls, **{**SETTINGS, "REDIS_URL": redis_server.url})
        assert held.wait(120), node.output()[-3000:]
        assert site.wait_fetched(len(site.expected_urls()) // 4, timeout=120)
        redis_server.client().flushall()
        release.set()
        assert node.wait(120) == 0, node.output()[-3000:]
        host = site.netlocs[2]
        lost = {u for u in site.expected_urls() if f"//{host}/" in u} - set(site.fetch_counts())
    assert lost == set(), "the page held across the loss: its links were not crawled"
    log = node.output()
    assert "Traceback" not in log
    assert log.count("The frontier in Redis was lost") == 1
    assert node.stats()["frontier/frontier_lost"] == 1
    assert node.stats()["finish_reason"] == "finished"


def test_redis_back_without_its_last_writes_loses_no_page(redis_server, nodes, tmp_path):
    """Redis restarts from an older AOF (its last writes lost): the leases whose acks
    were lost are fetched again, and the links found there are queued again, not dropped
    by the node's seen cache as if Redis still had them."""
    aof = redis_server.directory / "appendonly.aof"
    with SiteServer(hosts=3, pages_per_host=40, latency=0.03, seed=53) as site:
        node = nodes("crawler-0", site.base_urls, **{**SETTINGS, "REDIS_URL": redis_server.url})
        total = len(site.expected_urls())
        assert site.wait_fetched(total // 4, timeout=120)
        snapshot = aof.read_bytes()
        assert site.wait_fetched(total // 2, timeout=120)
        redis_server.stop()
        aof.write_bytes(snapshot)
        redis_server.start()
        assert node.wait(180) == 0, node.output()[-3000:]
        fetched = set(site.fetch_counts())
        assert site.expected_urls() - fetched == set(), "pages lost with Redis' last writes"
    assert "Traceback" not in node.output()


def test_items_survive_a_redis_that_refuses_writes(redis_server, nodes):
    """OOM under noeviction (also READONLY, MISCONF): Redis answers but refuses. The item
    sink keeps its batch and its flush timer, and writes every item once Redis takes
    writes again."""
    from crawler.frontier.keys import Keys  # noqa: PLC0415

    client = redis_server.client()
    with SiteServer(hosts=2, pages_per_host=30, latency=0.03, seed=54) as site:
        node = nodes("crawler-0", site.base_urls, **{**SETTINGS, "REDIS_URL": redis_server.url,
                                                     "CRAWLER_ITEMS_STREAM": True})
        assert site.wait_fetched(len(site.expected_urls()) // 3, timeout=120)
        client.config_set("maxmemory", 1)  # every write is refused: OOM
        wait_until(lambda: "Redis unreachable or failing" in node.output(), 30,
                   what="the node to be refused")
        # pages finished meanwhile (in flight or leased when the refusals began) made
        # items, which the sink could not write; the node may then stall, rightly: its
        # new links cannot be stored, and its acks wait behind them
        wait_until(lambda: "to the item stream" in node.output(), 30,
                   what="items refused by Redis")
        client.config_set("maxmemory", 0)
        assert node.wait(120) == 0, node.output()[-3000:]
        fetched = site.fetch_counts()
    urls = [json.loads(fields[b"item"])["url"]
            for _, fields in client.xrange(Keys("follow").items)]
    assert sorted(urls) == sorted(fetched), "items lost while Redis refused writes"
    assert "Traceback" not in node.output()
