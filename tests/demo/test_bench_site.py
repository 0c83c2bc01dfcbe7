"""The benchmark's site: bench/site_gen.py writes the shared generated forum as static files
for nginx, and bench/latency_server.py serves the same forum through the one server."""

from __future__ import annotations

import http.client
import importlib.util
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit

import pytest

from tests.sitekit.content import with_origins

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def site_gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("site_gen", BENCH / "site_gen.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(site_gen: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("bench") / "site"
    return out, site_gen.generate(out, hosts=3, pages=40)


def test_files_are_the_forums_pages_with_nginx_origins(site_gen: ModuleType, site: tuple[Path, dict]) -> None:
    out, manifest = site
    forum = site_gen.bench_forum(3, 40)
    origins = [f"http://{site_gen.host_address(h)}:{site_gen.PORT}" for h in range(3)]
    assert manifest["addresses"] == ["127.0.1.1", "127.0.1.2", "127.0.1.3"]
    assert manifest["pages"] == [len(forum.paths(h)) for h in range(3)]
    assert all(24 <= n <= 60 for n in manifest["pages"])  # 60-140% of 40, give or take a thread
    files = set(out.rglob("*.html"))
    assert len(files) == manifest["total_pages"]
    for host in range(3):
        for path in forum.paths(host):
            assert "?" not in path
            written = (out / manifest["addresses"][host] / site_gen.file_of(path)).read_bytes()
            assert written == with_origins(forum.page(host, path), origins)
    # Every link, on its own host or another, names a file nginx has: the crawl finds every page.
    for (_, _), links in forum.link_graph().items():
        for host, path in links:
            assert (out / manifest["addresses"][host] / site_gen.file_of(path)).is_file(), (host, path)
    assert site_gen.generate(out, hosts=3, pages=40) == manifest  # the same site is kept


def test_page_sizes_are_those_of_real_forum_pages(site_gen: ModuleType) -> None:
    forum = site_gen.bench_forum(1, 205)
    sizes = [len(forum.page(0, p)) for p in forum.paths(0)]
    assert 4_000 <= min(sizes) and max(sizes) <= 20_000
    assert 9_000 <= sum(sizes) / len(sizes) <= 14_000
    links = [len(set(targets)) for targets in forum.link_graph().values()]
    assert sum(links) / len(links) <= 6  # the link load per page the bench was tuned with


def free_port(address: str) -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def test_latency_server_serves_the_same_pages_late_and_logs_like_nginx(site: tuple[Path, dict]) -> None:
    out, manifest = site
    port, log = free_port("127.0.1.3"), out.parent / "latency.log"
    proc = subprocess.Popen(
        [sys.executable, "latency_server.py", "--site", str(out), "--port", str(port), "--delay", "0.2",
         "--log", str(log)], cwd=BENCH, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        conn = http.client.HTTPConnection("127.0.1.3", port, timeout=5)
        conn.request("GET", "/")
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        nginx_file = (out / "127.0.1.3" / "index.html").read_bytes()
        assert resp.status == 200 and body == nginx_file.replace(b":18480/", f":{port}/".encode())
        links = re.findall(rb'href="(http://[^"]+)"', body)  # the index links the next host's
        assert links and {urlsplit(u.decode()).port for u in links} == {port}
        end, took, addr, status, size, uri = log.read_text().split()
        assert (addr, status, size, uri) == ("127.0.1.3", "200", str(len(body)), "/")
        assert float(took) >= 0.2 and float(end) > 1e9  # wall clock, as nginx's $msec
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()
        proc.wait()

