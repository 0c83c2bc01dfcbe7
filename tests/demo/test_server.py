"""The one local server, serving a small site defined here: routing, origins, robots.txt,
faults, latency, HEAD, keep-alive, binding, recording and a quick stop."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Sequence

import pytest

from crawler.demo.recorder import Recorder
from crawler.demo.server import LoopbackServer, Response
from tests.sitekit.faulty import FaultyServer

FIXED_DATE = "Sat, 02 Mar 2024 04:00:00 GMT"


class TwoHosts:
    """Host 0 links host 1 absolutely; host 1 has a page with a fixed Date; nothing else exists."""

    hosts = 2

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response:
        if (host, target) == (0, "/"):
            return Response(200, "text/html", f'<a href="{origins[1]}/page?x=1">b</a>'.encode())
        if (host, target) == (1, "/page?x=1"):
            return Response(200, "text/plain", b"page", {"Date": FIXED_DATE, "X-Site": "1"})
        if target == "/robots.txt":
            return Response(200, "text/plain", b"User-agent: *\nDisallow: /private\n")
        return Response(404, "text/plain", b"missing")


def get(netloc: str, target: str, method: str = "GET") -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection(netloc, timeout=5)
    conn.request(method, target)
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp


def body_of(netloc: str, target: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(netloc, timeout=5)
    conn.request("GET", target)
    resp = conn.getresponse()
    try:
        return resp.status, resp.read()
    finally:
        conn.close()


def test_routes_origins_headers_and_records() -> None:
    with LoopbackServer(TwoHosts()) as server:
        a, b = server.netlocs
        assert server.origins == [f"http://{a}", f"http://{b}"]
        assert body_of(a, "/") == (200, f'<a href="http://{b}/page?x=1">b</a>'.encode())
        resp = get(b, "/page?x=1")
        assert resp.status == 200 and resp.headers["Date"] == FIXED_DATE and resp.headers["X-Site"] == "1"
        assert resp.headers.get_all("Content-Type") == ["text/plain"]
        assert body_of(a, "/page?x=1") == (404, b"missing")  # hosts are separate sites
        records = server.recorder.requests
    assert [(r.host, r.path, r.status, r.size) for r in records] == [
        (0, "/", 200, len(f'<a href="http://{b}/page?x=1">b</a>')), (1, "/page?x=1", 200, 4), (0, "/page?x=1", 404, 7)]
    assert all(r.netloc == (a, b)[r.host] and r.start <= r.end for r in records)


def test_server_date_when_the_site_sets_none() -> None:
    with LoopbackServer(TwoHosts()) as server:
        date = get(server.netlocs[0], "/").headers["Date"]
    assert date != FIXED_DATE and date.endswith(" GMT")


def test_robots_overrides_and_the_sites_own() -> None:
    calls: list[int] = []

    def robots(host: int) -> int | None:
        calls.append(host)
        return 503 if host == 0 else None

    with FaultyServer(TwoHosts(), robots=robots) as server:
        assert body_of(server.netlocs[0], "/robots.txt") == (503, b"")
        assert body_of(server.netlocs[1], "/robots.txt") == (200, b"User-agent: *\nDisallow: /private\n")
        assert server.robots_for(1) == (200, "User-agent: *\nDisallow: /private\n")
    assert calls == [0, 1, 1]  # evaluated once per request, and once per robots_for()
    server = FaultyServer(TwoHosts(), robots={0: "User-agent: *\nAllow: /\n", 1: (410, "gone")})
    with server:
        assert body_of(server.netlocs[0], "/robots.txt") == (200, b"User-agent: *\nAllow: /\n")
        assert body_of(server.netlocs[1], "/robots.txt") == (410, b"gone")


def test_faults_count_hits_per_target_and_replace_the_content_type() -> None:
    hits: list[tuple[str, int]] = []

    def fault(target: str, hit: int):
        hits.append((target, hit))
        if hit == 0:
            return 429, {"Retry-After": "3", "content-type": "text/html; charset=latin-1"}, b"slow down"
        return None

    with FaultyServer(TwoHosts(), faults={0: fault}) as server:
        first = get(server.netlocs[0], "/")
        assert first.status == 429 and first.headers["Retry-After"] == "3"
        assert first.headers.get_all("Content-Type") == ["text/html; charset=latin-1"]
        assert body_of(server.netlocs[0], "/")[0] == 200
        assert body_of(server.netlocs[0], "/other") == (429, b"slow down")  # its own first hit
        assert body_of(server.netlocs[1], "/page?x=1")[0] == 200  # no fault on host 1
    assert hits == [("/", 0), ("/", 1), ("/other", 0)]
    assert [r.status for r in server.recorder.requests] == [429, 200, 429, 200]


def test_a_failing_fault_drops_the_connection_records_500_and_serving_goes_on() -> None:
    def broken(target: str, hit: int):
        if target == "/bug":
            raise ZeroDivisionError("a bug in a fault hook")
        return None

    with FaultyServer(TwoHosts(), faults={0: broken}) as server:
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            get(server.netlocs[0], "/bug")
        assert get(server.netlocs[0], "/").status == 200
    assert [(r.path, r.status) for r in server.recorder.requests] == [("/bug", 500), ("/", 200)]


def test_latency_per_host_head_and_keep_alive() -> None:
    with LoopbackServer(TwoHosts(), latency=0.15, host_latency={1: 0.0}) as server:
        conn = http.client.HTTPConnection(server.netlocs[0], timeout=5)
        conn.connect()
        local = conn.sock.getsockname()
        for method in ("GET", "HEAD", "GET"):
            conn.request(method, "/")
            resp = conn.getresponse()
            body = resp.read()
            assert resp.status == 200 and int(resp.headers["Content-Length"]) > 10
            assert bool(body) == (method == "GET")
            assert conn.sock.getsockname() == local  # the same connection throughout
        conn.close()
        get(server.netlocs[1], "/page?x=1")
    host0 = [r for r in server.recorder.requests if r.host == 0]
    assert [r.method for r in host0] == ["GET", "HEAD", "GET"] and host0[1].size == 0
    assert all(r.end - r.start >= 0.15 for r in host0)
    (host1,) = [r for r in server.recorder.requests if r.host == 1]
    assert host1.end - host1.start < 0.15


def test_binds_the_addresses_it_is_given() -> None:
    with LoopbackServer(TwoHosts(), addresses=[("127.0.0.2", 0), ("127.0.0.3", 0)]) as server:
        assert [n.split(":")[0] for n in server.netlocs] == ["127.0.0.2", "127.0.0.3"]
        assert get(server.netlocs[1], "/page?x=1").status == 200
        with socket.socket() as probe:  # nothing listens on 127.0.0.1 at that port
            assert probe.connect_ex(("127.0.0.1", int(server.netlocs[1].split(":")[1]))) != 0


def test_lifecycle_errors() -> None:
    server = LoopbackServer(TwoHosts())
    with pytest.raises(RuntimeError):
        server.netlocs  # noqa: B018
    server.stop()  # harmless before start
    server.stop()
    with pytest.raises(RuntimeError):
        server.start()  # a stopped server stays stopped
    with pytest.raises(ValueError):
        LoopbackServer(TwoHosts(), recorder=Recorder(3))
    with pytest.raises(ValueError):
        LoopbackServer(TwoHosts(), addresses=[("127.0.0.1", 0)])


def test_stop_ends_stalls_latencies_and_idle_connections_at_once() -> None:
    stalled = threading.Event()

    def stall(target: str, hit: int):
        stalled.set()
        server.stopping.wait(30)
        return None

    server = FaultyServer(TwoHosts(), latency=30, host_latency={0: 0}, faults={0: stall}).start()
    idle = http.client.HTTPConnection(server.netlocs[1], timeout=5)
    idle.connect()
    clients = [threading.Thread(target=lambda n=n: _quietly(n)) for n in server.netlocs]
    for client in clients:
        client.start()
    assert stalled.wait(5)
    assert server.recorder.wait_for(lambda: sum(server.recorder.peak_inflight()) == 2, timeout=5)
    began = time.monotonic()
    server.stop()
    assert time.monotonic() - began < 2
    for client in clients:
        client.join(timeout=5)
        assert not client.is_alive()
    assert len(server.recorder.requests) == 2
    address, port = server.netlocs[0].rsplit(":", 1)
    with socket.socket() as probe:
        assert probe.connect_ex((address, int(port))) != 0, "still listening after stop()"
    idle.close()


def _quietly(netloc: str) -> None:
    try:
        get(netloc, "/")
    except (OSError, http.client.HTTPException):  # the server may cut the connection,
        pass                                          # even mid-body, while stopping


class Validated:
    hosts = 1

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response:
        return Response(200, "text/html", b"v1", {"ETag": '"abc"', "Last-Modified": FIXED_DATE})


def test_a_matching_conditional_get_is_answered_304() -> None:
    def status(**headers: str) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(server.netlocs[0], timeout=5)
        conn.request("GET", "/", headers=headers)
        resp = conn.getresponse()
        result = resp.status, resp.read()
        conn.close()
        return result

    with LoopbackServer(Validated()) as server:
        assert status() == (200, b"v1")
        assert status(**{"If-None-Match": '"abc"'}) == (304, b"")
        assert status(**{"If-None-Match": '"old"', "If-Modified-Since": FIXED_DATE}) == (200, b"v1")
        assert status(**{"If-Modified-Since": FIXED_DATE}) == (304, b"")
        assert [r.status for r in server.recorder.requests] == [200, 304, 200, 304]
