"""Several node processes, one real Redis, a real multi-host site on 127.0.0.1.

The site records every request it serves; these tests assert on what the server saw:
every page fetched, each once, per-host concurrency and gaps between request starts.
"""

from __future__ import annotations

import signal
from collections import Counter
from urllib.parse import urlsplit

import pytest

from crawler.frontier.keys import Keys
from crawler.frontier.ring import Ring
from crawler.settings_defaults import DEFAULTS
from tests.helpers import forked
from tests.helpers.nodes import COMMON, assert_each_page_once, assert_polite, embedded_servers
from tests.sitekit.site import SiteServer

pytestmark = pytest.mark.slow

DELAY = 0.15
HOST_BATCH = DEFAULTS["CRAWLER_HOST_BATCH"]


def cluster_settings(redis_server, **extra):
    return {**COMMON, "REDIS_URL": redis_server.url, "DOWNLOAD_DELAY": DELAY, **extra}


def test_three_nodes_fetch_every_page_once_and_politely(redis_server, nodes):
    # (Scrapy's slot, 127.0.0.1 for every host, spaces a node's requests by DELAY: the
    # site's size sets this test's length, its 15 hosts the sharing and the politeness)
    with SiteServer(hosts=15, pages_per_host=12, latency=0.01, seed=11) as site:
        cluster = [nodes(f"crawler-{i}", site.base_urls, **cluster_settings(redis_server))
                   for i in range(3)]
        assert [n.wait(180) for n in cluster] == [0, 0, 0], cluster[0].output()[-3000:]
        assert_each_page_once(site)
        assert_polite(site, DELAY)
    per_node = [set(n.pages()) for n in cluster]
    assert sum(len(p) for p in per_node) == len(set().union(*per_node)), "a page processed twice"
    assert sum(1 for p in per_node if p) >= 2, "the work was not shared"
    # a node hands out the requests it pushed itself without decoding them again: the
    # pages above were each fetched once, so the right request went with each lease
    assert all(n.stats().get("frontier/decode_skipped", 0) > 0 for n in cluster if n.pages())
    for node in cluster:
        assert "Traceback" not in node.output()
        assert "frontier/lease_leaked" not in node.output()


def test_host_batches_use_the_in_flight_limit_and_never_pass_it(redis_server, nodes):
    with SiteServer(hosts=6, pages_per_host=30, latency=0.05, seed=17) as site:
        settings = cluster_settings(redis_server, DOWNLOAD_DELAY=0, CRAWLER_HOST_MAX_INFLIGHT=2)
        cluster = [nodes(f"crawler-{i}", site.base_urls, **settings) for i in range(2)]
        assert [n.wait(120) for n in cluster] == [0, 0]
        assert_each_page_once(site)
        peaks = site.max_concurrency()
        assert max(peaks.values()) == 2, peaks
    leased = sum(n.stats().get("frontier/leased", 0) for n in cluster)
    batches = sum(n.stats().get("frontier/host_batches", 0) for n in cluster)
    assert leased >= 6 * 30 and batches < leased / 2, (leased, batches)


def test_a_killed_node_loses_nothing(redis_server, nodes):
    # 24 pages a host: three host batches each, so a kill finds batches leased and unacked
    with SiteServer(hosts=12, pages_per_host=24, latency=0.05, seed=12) as site:
        settings = cluster_settings(redis_server, DOWNLOAD_DELAY=0.05)
        cluster = [nodes(f"crawler-{i}", site.base_urls, **settings) for i in range(3)]
        assert site.wait_fetched(len(site.expected_urls()) // 3, timeout=120)
        victim = cluster[1]
        victim.kill()
        victim.wait(10)
        survivors = [cluster[0], cluster[2]]
        assert [n.wait(180) for n in survivors] == [0, 0]
        counts = site.fetch_counts()
        assert site.expected_urls() - set(counts) == set(), "pages lost with the killed node"
        # only what the victim had leased and not acked can be fetched twice: the acks
        # of a host batch go together, so at most one batch per host
        twice = Counter(urlsplit(u).netloc for u, c in counts.items() for _ in range(c - 1))
        assert max(twice.values(), default=0) <= HOST_BATCH, twice
        assert_polite(site, 0.05)
    assert any("crawler-1 is dead" in n.output() for n in survivors)


def test_a_joining_node_takes_its_share(redis_server, nodes):
    with SiteServer(hosts=18, pages_per_host=15, latency=0.05, seed=13) as site:
        settings = cluster_settings(redis_server, DOWNLOAD_DELAY=0.05)
        first = [nodes(f"crawler-{i}", site.base_urls, **settings) for i in range(2)]
        assert site.wait_fetched(len(site.expected_urls()) // 4, timeout=120)
        # paused while the late node starts: on a loaded machine its start-up could
        # otherwise outlast the crawl, and it would join with nothing left to take
        control = Keys("follow").control
        client = redis_server.client()
        client.hset(control, "paused", "1")
        late = nodes("crawler-2", site.base_urls, **settings)
        assert late.wait_for_log("joined the ring", 120), late.output()[-3000:]
        client.hdel(control, "paused")
        assert [n.wait(180) for n in [*first, late]] == [0, 0, 0]
        assert_each_page_once(site)
        assert_polite(site, 0.05)
    assert late.pages(), "the new node fetched nothing"
    assert any("moved" in n.output() and "hosts away" in n.output() for n in first)


def test_a_leaving_node_hands_off_at_once(redis_server, nodes):
    # slow responses, so SIGTERM finds requests in flight: the node must hand off
    # its hosts and unstarted work at once, then finish what it started
    with SiteServer(hosts=12, pages_per_host=12, latency=0.6, seed=14) as site:
        settings = cluster_settings(redis_server, DOWNLOAD_DELAY=0.05)
        cluster = [nodes(f"crawler-{i}", site.base_urls, **settings) for i in range(2)]
        # the leaving node owns most hosts, so that it surely has requests in flight
        cluster.append(nodes("crawler-2", site.base_urls, **settings, CRAWLER_NODE_WEIGHT=4))
        assert site.wait_fetched(len(site.expected_urls()) // 3, timeout=120)
        leaving = cluster[2]
        leaving.signal(signal.SIGTERM)
        assert leaving.wait(30) == 0
        assert [n.wait(180) for n in cluster[:2]] == [0, 0]
        assert_each_page_once(site)
        assert_polite(site, 0.05)
    output = leaving.output()
    # SIGTERM found requests in flight: it drained first, then left; or it found none
    # (between responses): Scrapy closed at once and leaving handed back its unstarted
    # leases. Either way the node handed off itself: no other node had to find it dead.
    assert "Draining node crawler-2" in output or "handing back" in output
    assert "left the ring" in output
    assert not any("crawler-2 is dead" in n.output() for n in cluster[:2])


def test_an_idle_node_takes_over_hosts_its_busy_owner_leaves_waiting(redis_server, nodes):
    # one node fetches one page at a time, the other sixteen, more than its own hosts
    # need: without stealing each fetches exactly the hosts the ring gives it (24
    # hosts: each owns several)
    with SiteServer(hosts=24, pages_per_host=10, latency=0.1, seed=17) as site:
        # The hosts' ports are random: the slow node is named so that it owns about half of
        # them (with a third, it had its own pages done before much was left to take).
        name = min((f"crawler-slow-{i}" for i in range(20)),
                   key=lambda n: abs(_share(n, "crawler-fast", site.netlocs) - 0.5))
        settings = cluster_settings(redis_server, DOWNLOAD_DELAY=0.05, CRAWLER_STEAL_AFTER=0.05)
        slow = nodes(name, site.base_urls, **{**settings, "CONCURRENT_REQUESTS": 1})
        fast = nodes("crawler-fast", site.base_urls, **{**settings, "CONCURRENT_REQUESTS": 16})
        assert [n.wait(180) for n in (slow, fast)] == [0, 0]
        assert_each_page_once(site)
        assert_polite(site, 0.05)
    ring = Ring({name: 1, "crawler-fast": 1}, vnodes=2000)
    slow_hosts = [u for u in site.expected_urls() if ring.owner(urlsplit(u).netloc) == name]
    taken = [u for u in fast.pages() if ring.owner(urlsplit(u).netloc) == name]
    print(f"the fast node took {len(taken)} of the slow node's {len(slow_hosts)} pages")
    assert len(taken) >= 0.4 * len(slow_hosts), (len(taken), len(slow_hosts))
    assert "'frontier/stolen'" in fast.output()


def _share(name: str, other: str, netlocs: list[str]) -> float:
    """The share of ``netlocs`` that ``name`` owns on a ring of ``name`` and ``other``."""
    ring = Ring({name: 1, other: 1}, vnodes=2000)
    return sum(ring.owner(n) == name for n in netlocs) / len(netlocs)


def test_an_interrupted_embedded_crawl_resumes_without_refetching(tmp_path, nodes):
    state = tmp_path / "state"
    # named: without it the embedded crawl's id is per site (follow-<host>-3-sites-<digest>)
    settings = {**COMMON, "CRAWLER_STATE_DIR": state, "DOWNLOAD_DELAY": 0.05,
                "CRAWLER_CRAWL_ID": "follow"}
    with SiteServer(hosts=3, pages_per_host=40, latency=0.05, seed=15) as site:
        first = nodes("laptop", site.base_urls, **settings)
        assert site.wait_fetched(len(site.expected_urls()) // 2, timeout=120)
        first.signal(signal.SIGINT)  # Ctrl-C once
        assert first.wait(60) == 0
        assert embedded_servers(state) == [], "the embedded Redis outlived its crawl"
        fetched_before = len(site.fetch_counts())
        assert fetched_before < len(site.expected_urls())
        second = nodes("laptop-again", site.base_urls, **settings)
        assert second.wait(120) == 0
        assert_each_page_once(site)
    status = forked.run("crawler", ["status", "--state-dir", str(state)])
    assert status.returncode == 0 and "crawl follow" in status.stdout, status.stderr
    assert embedded_servers(state) == [], "an embedded Redis outlived its crawl or command"
    assert first.pages() and second.pages()
    assert (state / "follow" / "appendonly.aof").exists()


def test_robots_crawl_delay_spaces_its_host_across_nodes(redis_server, nodes):
    robots = {0: "User-agent: *\nCrawl-delay: 0.5\nDisallow: /board/2\n"}
    with SiteServer(hosts=3, pages_per_host=12, latency=0.01, seed=16, robots=robots) as site:
        settings = cluster_settings(redis_server, DOWNLOAD_DELAY=0.05)
        cluster = [nodes(f"crawler-{i}", site.base_urls, **settings) for i in range(2)]
        assert [n.wait(120) for n in cluster] == [0, 0]
        slow = site.netlocs[0]
        assert site.min_gap(slow) >= 0.5
        assert min(g for h, g in site.min_gap().items() if h != slow) >= 0.05
        fetched = site.fetch_counts()
        assert not [u for u in fetched if u.startswith(site.base_urls[0] + "board/2")]
        assert site.expected_urls(respect_robots=True) == set(fetched)
        # once per host by each node that owned it (hosts move while nodes join)
        robots_fetches = Counter(r.host for r in site.requests if r.is_robots)
        assert set(robots_fetches) == {0, 1, 2} and max(robots_fetches.values()) <= 2


def test_unreachable_redis_is_one_line_and_non_zero_exit():
    result = forked.run("scrapy", ["crawl", "follow", "-a", "start_urls=http://127.0.0.1:9/",
                                   "-s", "REDIS_URL=redis://127.0.0.1:9/0",
                                   "-s", "CRAWLER_REDIS_CONNECT_TIMEOUT=0.3"])
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: cannot reach Redis at REDIS_URL ('redis://127.0.0.1:9/0')")
