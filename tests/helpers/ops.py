"""Shared pieces of the operations tests: enabling the ops components, probing nodes."""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

from tests.helpers import forked

if TYPE_CHECKING:
    from tests.helpers.nodes import Node

# Until the add-on enables them (and carries their defaults), tests turn the ops
# components on and pass every CRAWLER_* setting they read explicitly.
EXTENSIONS = {"crawler.ops.health.HealthExtension": 0,
              "crawler.ops.progress.ProgressExtension": 0}
PIPELINES = {"crawler.ops.sink.RedisStreamSink": 900}
OPS_SETTINGS = {
    "EXTENSIONS": json.dumps(EXTENSIONS),
    "ITEM_PIPELINES": json.dumps(PIPELINES),
    "CRAWLER_HEALTH_PORT": 0,
    "CRAWLER_HEALTH_HOST": "127.0.0.1",
    "CRAWLER_PROGRESS_INTERVAL": 1,
    "CRAWLER_ITEMS_STREAM": True,
}
HEALTH_LINE = re.compile(r"Health endpoints on http://[\d.]+:(\d+)")


def health_port(node: Node, timeout: float = 30) -> int:
    assert node.wait_for_log("Health endpoints on", timeout), node.output()[-3000:]
    return int(HEALTH_LINE.search(node.output()).group(1))


def get(port: int, path: str, timeout: float = 5) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def ready(port: int) -> tuple[int, dict[str, Any]]:
    status, body = get(port, "/readyz")
    return status, json.loads(body)


def wait_until(predicate, timeout: float, interval: float = 0.1, what: str = "condition"):
    """Poll *predicate* until it returns something truthy; fail after *timeout*."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m crawler ARGS`` in its own process, as an operator runs it (forked from
    one that imported the project: :mod:`tests.helpers.forked`)."""
    return forked.run("crawler", list(args), env=env)


def status_json(redis_url: str, crawl: str = "follow") -> dict[str, Any]:
    result = cli("status", "--json", "--redis-url", redis_url, "--crawl", crawl)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)
