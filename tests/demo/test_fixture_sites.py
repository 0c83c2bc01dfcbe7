"""Every routes.json fixture site (tests/fixtures/sites, written by tests/extract/sitegen and the
capture scripts) is served by the one server, through FixtureServer, exactly as its manifest says."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest

from crawler.demo.fixture_server import ORIGIN, FixtureServer, route_key
from tests.sitekit import SITES as SITES_DIR

SITES = sorted(p.parent for p in SITES_DIR.glob("*/routes.json"))


def request(base_url: str, target: str) -> tuple[int, http.client.HTTPMessage, bytes]:
    conn = http.client.HTTPConnection(base_url.removeprefix("http://"), timeout=5)
    conn.request("GET", target)
    resp = conn.getresponse()
    try:
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def test_there_are_fixture_sites() -> None:
    assert len(SITES) >= 10


@pytest.mark.parametrize("site_dir", SITES, ids=[p.name for p in SITES])
def test_every_route_is_served_as_its_manifest_says(site_dir: Path) -> None:
    manifest = json.loads((site_dir / "routes.json").read_text(encoding="utf-8"))
    with FixtureServer(site_dir) as server:
        assert server.routes == manifest["routes"] and server.date == manifest["date"]
        for target, route in manifest["routes"].items():
            status, headers, body = request(server.base_url, target)
            assert status == route.get("status", 200), target
            assert headers.get_all("Content-Type") == [route["content_type"]], target
            assert headers["Date"] == manifest["date"], target
            for name, value in (route.get("headers") or {}).items():
                assert headers[name] == value, (target, name)
            assert body == (site_dir / route["file"]).read_bytes().replace(ORIGIN, server.base_url.encode())
            assert ORIGIN not in body
        assert server.requests == list(manifest["routes"])
        assert request(server.base_url, manifest["start"])[0] == 200


def test_lookup_is_canonical_but_forgives_nothing_else() -> None:
    site_dir = SITES_DIR / "wordpress"
    routes = json.loads((site_dir / "routes.json").read_text(encoding="utf-8"))["routes"]
    target = next(t for t in routes if t.count("&") >= 2)
    path, query = target.split("?")
    shuffled = f"{path}?{'&'.join(reversed(query.split('&')))}"
    assert shuffled != target and route_key(shuffled) == target
    with FixtureServer(site_dir) as server:
        assert request(server.base_url, shuffled)[0] == 200
        status, headers, body = request(server.base_url, f"{target}&sid=0123")
        assert (status, body) == (404, b"not found")
        assert headers["Date"] == server.date
        assert server.requests == [shuffled, f"{target}&sid=0123"]
