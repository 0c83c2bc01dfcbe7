"""``/livez``, ``/readyz`` and ``/metrics`` of one node, served by the crawl's own event loop."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from typing import TYPE_CHECKING, Any, Self

from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import is_asyncio_available

from crawler.config import value
from crawler.ops.logs import disabled
from crawler.ops.metrics import registry_for, scheduler_health

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

LIVEZ, READYZ, METRICS = "/livez", "/readyz", "/metrics"
_READ_TIMEOUT = 5.0
_REASONS = {200: "OK", 404: "Not Found", 405: "Method Not Allowed", 500: "Internal Server Error",
            503: "Service Unavailable"}


def readiness(health: dict[str, Any] | None, node_timeout: float, *,
              shutting_down: bool = False) -> list[str]:
    """Why this node should not get work now; empty when it is ready."""
    reasons = ["shutting down"] if shutting_down else []
    if health is None:
        return reasons or ["the scheduler has not opened yet"]
    if not health["redis_reachable"]:
        reasons.append("Redis unreachable")
    age = health["seconds_since_heartbeat"]
    if age is None:
        reasons.append("no heartbeat yet")
    elif age > node_timeout:
        reasons.append(f"last heartbeat {age:.1f}s ago (over CRAWLER_NODE_TIMEOUT)")
    if health["draining"]:
        reasons.append("draining")
    elif not health["member"]:
        reasons.append("not a member of the ring")
    return reasons


class HealthExtension:
    """Serves the node's health on :setting:`CRAWLER_HEALTH_HOST`:
    :setting:`CRAWLER_HEALTH_PORT` (``None``: off; ``0``: any free port, logged).

    - ``/livez``: 200 while the event loop runs Scrapy: the answer comes from that
      loop, so a blocked or dead loop gets no answer and the probe times out.
    - ``/readyz``: 200 when Redis is reachable, the last heartbeat is younger than
      :setting:`CRAWLER_NODE_TIMEOUT`, the node owns hosts (a member, not draining)
      and is not shutting down; else 503 with the reasons. Body: the node's ``health()`` as JSON.
    - ``/metrics``: Prometheus text format (:mod:`crawler.ops.metrics`).

    The socket is bound when the extension is built, so a taken port fails the
    crawl at start.
    """

    def __init__(self, crawler: Crawler, sock: socket.socket, node_timeout: float) -> None:
        self.crawler = crawler
        self.sock = sock
        self.node_timeout = node_timeout
        self.registry = registry_for(crawler)
        self._server: asyncio.AbstractServer | None = None
        self._stopping = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        s = crawler.settings
        port = value(s, "CRAWLER_HEALTH_PORT")
        if port is None:
            raise disabled(cls, "CRAWLER_HEALTH_PORT is not set")
        try:
            asyncio_loop = is_asyncio_available()
        except RuntimeError:
            asyncio_loop = False
        if not asyncio_loop:
            raise NotConfigured("the health endpoints need the asyncio event loop "
                                "(TWISTED_REACTOR = AsyncioSelectorReactor, Scrapy's default)")
        host = value(s, "CRAWLER_HEALTH_HOST")
        try:
            sock = socket.create_server((host, int(port)), reuse_port=False)
        except (OSError, ValueError) as exc:
            raise ValueError(f"CRAWLER_HEALTH_HOST:CRAWLER_HEALTH_PORT ({host!r}:{port!r}) "
                             f"cannot be served: {exc}") from None
        sock.setblocking(False)
        ext = cls(crawler, sock, value(s, "CRAWLER_NODE_TIMEOUT"))
        crawler.signals.connect(ext.engine_started, signal=signals.engine_started)
        crawler.signals.connect(ext.engine_stopped, signal=signals.engine_stopped)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]

    async def engine_started(self) -> None:
        self._server = await asyncio.start_server(self._handle, sock=self.sock)
        logger.info("Health endpoints on http://%(host)s:%(port)d%(paths)s",
                    {"host": self.sock.getsockname()[0], "port": self.port,
                     "paths": f" ({LIVEZ} {READYZ} {METRICS})"}, extra={"crawler": self.crawler})

    def spider_closed(self) -> None:
        self._stopping = True

    def engine_stopped(self) -> None:
        if self._server is not None:
            self._server.close()
        else:
            self.sock.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _READ_TIMEOUT)
            method, target = _request_line(head)
            status, content_type, body = self.respond(method, target.split("?", 1)[0])
            writer.write(_response(status, content_type, body, send_body=method != "HEAD"))
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError,
                ConnectionError, ValueError):
            pass  # a client that hung up or spoke no HTTP gets nothing
        finally:
            writer.close()

    def respond(self, method: str, path: str) -> tuple[int, str, bytes]:
        if path not in (LIVEZ, READYZ, METRICS):
            return 404, "text/plain", b"not found: try /livez, /readyz, /metrics\n"
        if method not in ("GET", "HEAD"):
            return 405, "text/plain", b"GET only\n"
        try:
            if path == LIVEZ:
                return 200, "text/plain", b"ok\n"
            if path == METRICS:
                return 200, CONTENT_TYPE_LATEST, generate_latest(self.registry)
            return self._ready()
        except Exception:  # a bug in a probe must not take the node down
            logger.exception("Health endpoint %(path)s failed", {"path": path})
            return 500, "text/plain", b"internal error\n"

    def _ready(self) -> tuple[int, str, bytes]:
        health = scheduler_health(self.crawler)
        # SIGTERM or the crawl's end: not ready at once, before the drain at the next beat
        shutting_down = self._stopping or not self.crawler.crawling
        reasons = readiness(health, self.node_timeout, shutting_down=shutting_down)
        body = json.dumps({"ready": not reasons, "reasons": reasons, **(health or {})})
        return (503 if reasons else 200), "application/json", body.encode() + b"\n"


def _request_line(head: bytes) -> tuple[str, str]:
    parts = head.split(b"\r\n", 1)[0].decode("latin-1").split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise ValueError("not an HTTP request")
    return parts[0], parts[1]


def _response(status: int, content_type: str, body: bytes, *, send_body: bool) -> bytes:
    head = (f"HTTP/1.1 {status} {_REASONS[status]}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
    return head.encode() + (body if send_body else b"")
