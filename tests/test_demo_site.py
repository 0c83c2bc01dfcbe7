from __future__ import annotations

import contextlib
import http.client
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Iterator
from html.parser import HTMLParser
from itertools import pairwise
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest

from tests.sitekit.site import DEFAULT_ROBOTS, SiteServer


class _LinkParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs += [v for k, v in attrs if k == "href" and v]


def links_of(url: str, body: bytes) -> set[str]:
    parser = _LinkParser()
    parser.feed(body.decode())
    return {urldefrag(urljoin(url, href))[0] for href in parser.hrefs}


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def fetch_quietly(url: str) -> None:
    # the server may cut the connection while stopping, in the middle of a body too
    with contextlib.suppress(OSError, http.client.HTTPException):
        fetch(url)


def fetch_all(site: SiteServer) -> dict[str, bytes]:
    bodies = {}
    for url in sorted(site.expected_urls()):
        status, bodies[url] = fetch(url)
        assert status == 200, url
    return bodies


def normalized(site: SiteServer, bodies: dict[str, bytes]) -> dict[str, bytes]:
    """Replace ephemeral ports by host indices so two sites can be compared."""
    out = {}
    for url, body in bodies.items():
        for h, netloc in enumerate(site.netlocs):
            url, body = url.replace(netloc, f"host{h}"), body.replace(netloc.encode(), f"host{h}".encode())
        out[url] = body
    return out


@pytest.fixture
def site() -> Iterator[SiteServer]:
    with SiteServer(hosts=3, pages_per_host=30, seed=1) as s:
        yield s


def test_oracle_matches_html(site: SiteServer) -> None:
    bodies = fetch_all(site)
    expected = site.expected_urls()
    graph = {url: links_of(url, body) for url, body in bodies.items()}
    for url, links in graph.items():
        assert links <= expected, (url, links - expected)
    # Reachability from the roots over the *served* HTML equals the oracle.
    seen, queue = set(site.base_urls), deque(site.base_urls)
    while queue:
        for link in graph[queue.popleft()] - seen:
            seen.add(link)
            queue.append(link)
    assert seen == expected
    assert all(len(body) > 1500 for body in bodies.values())
    assert site.fetch_counts() == {url: 1 for url in expected}


def test_shape(site: SiteServer) -> None:
    expected = site.expected_urls()
    for base in site.base_urls:
        on_host = {u for u in expected if u.startswith(base)}
        assert 30 <= len(on_host) <= 36
        assert any("?page=2" in u for u in on_host) and any("/page/2" in u for u in on_host)
    graph = site.content.link_graph()
    assert all((h, "/") in links for (h, _), links in graph.items())  # nav bar on every page
    assert any(h2 != h for (h, _), links in graph.items() for h2, _ in links)  # cross-host links


def test_no_cross_links_and_unknown_path() -> None:
    with SiteServer(hosts=2, pages_per_host=20, cross_links=False) as site:
        assert all(h2 == h for (h, _), links in site.content.link_graph().items() for h2, _ in links)
        status, _ = fetch(site.base_urls[0] + "nope")
        assert status == 404
        assert site.requests[0].status == 404 and site.fetch_counts() == {site.base_urls[0] + "nope": 1}


def test_broken_links() -> None:
    with SiteServer(hosts=2, pages_per_host=20, broken_links=True) as site:
        broken = site.broken_urls()
        assert broken and not broken & site.expected_urls()
        linked = {site.base_urls[h] + p[1:] for links in site.content.link_graph().values() for h, p in links}
        assert broken <= linked
        assert {fetch(u)[0] for u in broken} == {404}
        assert {r.status for r in site.requests} == {404}


def test_deterministic_by_seed() -> None:
    a, b, c = SiteServer(seed=5), SiteServer(seed=5), SiteServer(seed=6)
    assert a.content.link_graph() == b.content.link_graph() != c.content.link_graph()  # before start: no ports needed
    with a, b:
        assert normalized(a, fetch_all(a)) == normalized(b, fetch_all(b))


def test_not_started() -> None:
    site = SiteServer(hosts=1, pages_per_host=10)
    assert len(site.content.expected_paths()) >= 10
    with pytest.raises(RuntimeError):
        site.expected_urls()
    site.stop()  # harmless


def test_concurrency_and_gaps() -> None:
    with SiteServer(hosts=2, pages_per_host=20, latency=0.2, host_latency={1: 0.05}) as site:
        urls = sorted(u for u in site.expected_urls() if u.startswith(site.base_urls[0]))[:4]
        barrier = threading.Barrier(len(urls))
        workers = [threading.Thread(target=lambda u=u: (barrier.wait(), fetch(u))) for u in urls]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert site.max_concurrency(site.netlocs[0]) == 4
        assert site.max_concurrency() == {site.netlocs[0]: 4, site.netlocs[1]: 0}
        assert site.min_gap(0) < 0.2  # concurrent starts
        assert site.min_gap(1) == float("inf")
        assert all(r.end - r.start >= 0.19 and r.method == "GET" for r in site.requests)

        for _ in range(3):
            fetch(site.base_urls[1])
        assert site.max_concurrency(1) == 1
        host1 = [r for r in site.requests if r.host == 1]
        assert len(host1) == 3 and all(0.04 <= r.end - r.start < 0.2 for r in host1)
        starts = sorted(r.start for r in host1)
        assert site.min_gap(1) == min(b - a for a, b in pairwise(starts)) >= 0.04
        assert site.fetch_counts()[site.base_urls[1]] == 3


def test_keep_alive_and_head(site: SiteServer) -> None:
    conn = http.client.HTTPConnection(site.netlocs[0], timeout=5)
    for method in ("GET", "HEAD", "GET"):
        conn.request(method, "/")
        resp = conn.getresponse()
        body = resp.read()
        assert resp.status == 200 and int(resp.headers["Content-Length"]) > 1000
        assert bool(body) == (method == "GET")
    conn.close()
    assert [r.method for r in site.requests] == ["GET", "HEAD", "GET"]


def test_robots_variants() -> None:
    disallow = "User-agent: *\nDisallow: /board/2\n"
    rules: dict[int, str | int | tuple[int, str]] = {0: disallow, 1: 404, 2: (500, "oops")}
    with SiteServer(hosts=4, pages_per_host=30, robots=rules) as site:
        got = [fetch(base + "robots.txt") for base in site.base_urls]
        assert got == [(200, disallow.encode()), (404, b""), (500, b"oops"), (200, DEFAULT_ROBOTS.encode())]
        assert site.fetch_counts() == {}
        assert len(site.fetch_counts(include_robots=True)) == 4
        assert site.min_gap(0) == float("inf") and len(site.requests) == 4

        allowed = site.expected_urls(respect_robots=True)
        assert allowed < site.expected_urls()
        assert not any(u.startswith(site.base_urls[0] + "board/2") for u in allowed)
        assert any(u.startswith(site.base_urls[0] + "board/1") for u in allowed)

    state = {"status": 503}
    with SiteServer(hosts=2, pages_per_host=10, robots=lambda h: state["status"] if h == 0 else None) as site:
        assert fetch(site.base_urls[0] + "robots.txt")[0] == 503
        state["status"] = 200  # the callable is re-evaluated on every request
        assert fetch(site.base_urls[0] + "robots.txt")[0] == 200
        assert fetch(site.base_urls[1] + "robots.txt") == (200, DEFAULT_ROBOTS.encode())


def test_robots_disallow_all_removes_host() -> None:
    with SiteServer(hosts=2, pages_per_host=20, robots={1: "User-agent: *\nDisallow: /\n"}) as site:
        allowed = site.expected_urls(respect_robots=True)
        assert allowed and not any(u.startswith(site.base_urls[1]) for u in allowed)


def test_wait_and_reset() -> None:
    with SiteServer(hosts=2, pages_per_host=30, latency=0.005) as site:
        urls = sorted(site.expected_urls())
        worker = threading.Thread(target=lambda: [fetch(u) for u in urls])
        worker.start()
        assert site.wait_fetched(len(urls) // 2, timeout=5)
        assert site.wait_for(lambda: len(site.fetch_counts()) == len(urls), timeout=5)
        worker.join()
        assert not site.wait_fetched(len(urls) + 1, timeout=0.05)
        assert site.fetched_urls() == set(urls)
        site.recorder.reset()
        assert site.requests == [] and site.fetch_counts() == {} and site.fetched_urls() == set()
        assert site.max_concurrency() == {n: 0 for n in site.netlocs}


def test_stop_is_quick_with_open_and_inflight_connections() -> None:
    site = SiteServer(hosts=2, pages_per_host=10, latency=30).start()
    idle = http.client.HTTPConnection(site.netlocs[1], timeout=5)
    idle.connect()
    inflight = threading.Thread(target=fetch_quietly, args=(site.base_urls[0],))
    inflight.start()
    assert site.wait_for(lambda: site.max_concurrency(0) == 1, timeout=5)
    began = time.monotonic()
    site.stop()
    assert time.monotonic() - began < 2
    inflight.join(timeout=5)
    assert not inflight.is_alive()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(site.base_urls[0], timeout=2)
    idle.close()


def test_main_prints_base_urls() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.sitekit.site", "--hosts", "2", "--pages", "10"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        assert proc.stdout is not None
        bases = [proc.stdout.readline().strip() for _ in range(2)]
        assert all(urlsplit(b).hostname == "127.0.0.1" for b in bases)
        assert fetch(bases[1])[0] == 200
        proc.terminate()
        assert proc.wait(timeout=5) == 0
    finally:
        proc.kill()
