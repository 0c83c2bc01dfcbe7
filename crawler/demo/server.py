"""The one local HTTP server for test sites: the demo forum, routes.json fixture sites, the bench.

A :class:`Site` maps, for each of its hosts, a request target to a :class:`Response`; it may be
generated (:class:`crawler.demo.content.GeneratedForum`) or loaded from a folder
(:class:`crawler.demo.fixture_server.RoutesSite`). :class:`LoopbackServer` gives every host
its own listening socket (127.0.0.1 on a free port unless told otherwise) and answers from the
site, with optional per-host latency. Every request goes to a
:class:`~crawler.demo.recorder.Recorder`. (Tests add fault hooks and robots.txt overrides:
``tests/sitekit/faulty.py``.)

One thread accepts on all listening sockets; each connection gets a thread (HTTP/1.1 keep-alive),
so a latency (or a test's fault hook) may simply block. :meth:`LoopbackServer.stop` cuts
latencies short, unblocks idle connections and joins every thread, so it returns at once.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import Any, Protocol, Self

from crawler.demo.recorder import Recorder, RequestRecord

logger = logging.getLogger(__name__)

__all__ = ["LoopbackServer", "Response", "Site"]


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    content_type: str
    body: bytes
    #: Further headers. A ``Date`` here replaces the server's clock (fixture sites fix "now").
    headers: Mapping[str, str] = field(default_factory=dict)


class Site(Protocol):
    """What a server serves: for each host index below ``hosts``, a request target -> a response.

    ``origins`` are the served origins of all hosts (``http://127.0.0.1:<port>``, no slash), for
    sites whose pages hold absolute links; a site renders them with placeholders it swaps here.
    ``respond`` is called from many threads at once.
    """

    @property
    def hosts(self) -> int: ...

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response: ...


class LoopbackServer:
    """Serve ``site`` on one listening socket per host; use as a context manager.

    ``latency`` (``host_latency`` per host) delays every response, robots.txt included.
    ``addresses``: (address, port) per host, default ``("127.0.0.1", 0)``. Can be started once.
    """

    def __init__(
        self,
        site: Site,
        *,
        latency: float = 0.0,
        host_latency: Mapping[int, float] | None = None,
        recorder: Recorder | None = None,
        addresses: Sequence[tuple[str, int]] | None = None,
    ) -> None:
        self.site: Site = site
        self.recorder: Recorder = recorder or Recorder(site.hosts)
        if self.recorder.hosts != site.hosts:
            raise ValueError(f"recorder for {self.recorder.hosts} hosts, site has {site.hosts}")
        self.addresses = list(addresses or [("127.0.0.1", 0)] * site.hosts)
        if len(self.addresses) != site.hosts:
            raise ValueError(f"{len(self.addresses)} addresses for {site.hosts} hosts")
        self.latency = latency
        self.host_latency = dict(host_latency or {})
        self._listeners: list[socket.socket] = []
        self._netlocs: list[str] = []
        self._origins: list[str] = []
        self._wake_r, self._wake_w = socket.socketpair()  # wakes the accept loop at stop()
        self._acceptor: threading.Thread | None = None
        self._stopping = threading.Event()
        self._stopped = False
        self._lock = threading.Lock()  # guards the two sets below against stop()'s snapshot
        self._conns: set[socket.socket] = set()
        self._workers: set[threading.Thread] = set()

    # -- lifecycle ----------------------------------------------------------

    def start(self) -> Self:
        if self._acceptor is not None or self._stopping.is_set():
            raise RuntimeError("a server can only be started once")
        try:
            for address, port in self.addresses:
                # a big backlog: crawlers open many connections at once
                listener = socket.create_server((address, port), backlog=512)
                listener.setblocking(False)  # one thread accepts on all of them
                self._listeners.append(listener)
        except OSError:
            self.stop()
            raise
        self._netlocs = ["%s:%d" % s.getsockname()[:2] for s in self._listeners]
        self._origins = [f"http://{n}" for n in self._netlocs]
        self._acceptor = threading.Thread(target=self._accept_loop, name="site-accept", daemon=True)
        self._acceptor.start()
        return self

    def stop(self) -> None:
        """Stop serving and join every thread; in-flight latencies and stalls end at once."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            self._stopping.set()
            conns, workers = list(self._conns), list(self._workers)
        self._wake_w.send(b"x")
        if self._acceptor is not None:
            self._acceptor.join()
        for listener in self._listeners:
            listener.close()
        for conn in conns:  # wakes handlers blocked reading idle keep-alive connections
            _shutdown(conn)
        for worker in workers:
            worker.join(timeout=5)
        self._wake_r.close()
        self._wake_w.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    @property
    def netlocs(self) -> list[str]:
        """``address:port`` of each host, once started."""
        self._require_started()
        return list(self._netlocs)

    @property
    def origins(self) -> list[str]:
        """``http://address:port`` of each host, once started."""
        self._require_started()
        return list(self._origins)

    def _require_started(self) -> None:
        if not self._netlocs:
            raise RuntimeError("server not started")

    @property
    def stopping(self) -> threading.Event:
        """Set by stop(); a handler that stalls should wait on it."""
        return self._stopping

    # -- answering ----------------------------------------------------------

    def respond(self, host: int, target: str) -> Response:
        """The response to ``target`` on ``host``."""
        return self.site.respond(host, target, self._origins)

    def delay(self, host: int) -> None:
        if (seconds := self.host_latency.get(host, self.latency)) > 0:
            self._stopping.wait(seconds)  # an Event, so stop() cuts the delay short

    # -- connections ----------------------------------------------------------

    def _accept_loop(self) -> None:
        try:
            self._accept_all()
        except Exception:  # without this thread nothing is served: say why, loudly
            logger.exception("the accept loop failed; no further connections are accepted")
            raise

    def _accept_all(self) -> None:
        with selectors.DefaultSelector() as selector:
            for host, listener in enumerate(self._listeners):
                selector.register(listener, selectors.EVENT_READ, host)
            selector.register(self._wake_r, selectors.EVENT_READ, None)
            while True:
                for key, _ in selector.select():
                    if key.data is None:
                        return
                    try:
                        conn, client = key.fileobj.accept()  # type: ignore[union-attr]
                    except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                        continue  # another event already took it, or the client gave up
                    conn.setblocking(True)  # the handler sets its own timeout
                    self._spawn(conn, client, key.data)

    def _spawn(self, conn: socket.socket, client: Any, host: int) -> None:
        with self._lock:
            if self._stopping.is_set():  # checked under the lock stop() snapshots with
                conn.close()
                return
            worker = threading.Thread(target=self._serve_connection, args=(conn, client, host),
                                      name=f"site-host-{host}", daemon=True)
            self._conns.add(conn)
            self._workers.add(worker)
        worker.start()

    def _serve_connection(self, conn: socket.socket, client: Any, host: int) -> None:
        try:
            _Handler(conn, client, _Listener(self, host))
        except OSError:
            logger.debug("connection error from %s", client, exc_info=True)
        except Exception:  # a bug in a site or a fault hook: the client sees a dropped connection
            logger.exception("error answering %s", client)
        finally:
            _shutdown(conn)
            conn.close()
            with self._lock:
                self._conns.discard(conn)
                self._workers.discard(threading.current_thread())


@dataclass(frozen=True, slots=True)
class _Listener:
    """What a handler is given as its ``server``: the server and the host of the socket."""

    server: LoopbackServer
    host: int


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    disable_nagle_algorithm = True  # headers and body go out in separate writes
    timeout = 60  # idle keep-alive connections must not pin threads forever
    server: _Listener  # type: ignore[assignment]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # per-request stderr logging is far too slow for benchmarks; the recorder has it all

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def _serve(self, send_body: bool) -> None:
        server, host, target = self.server.server, self.server.host, self.path
        recorder = server.recorder
        start, status, size, recorded = recorder.begin(host), 500, 0, False

        def record() -> None:
            recorder.end(RequestRecord(host, server._netlocs[host], self.command, target, status,
                                       start, time.monotonic(), size))

        try:
            response = _conditional(server.respond(host, target), self.headers)
            server.delay(host)
            status, size = response.status, len(response.body) if send_body else 0
            self.send_response_only(status)  # buffered until end_headers()
            self.send_header("Server", self.version_string())
            headers = {"Date": self.date_time_string(), "Content-Type": response.content_type,
                       **response.headers, "Content-Length": str(len(response.body))}
            for name, value in headers.items():
                self.send_header(name, value)
            # Record before writing anything: a client holding the response finds it recorded.
            recorded = True
            record()
            self.end_headers()
            if send_body:
                self.wfile.write(response.body)
        finally:
            if not recorded:
                record()


def _conditional(response: Response, request: Any) -> Response:
    """304 Not Modified when the request's validators match the response's (RFC 9110 13.1:
    ``If-None-Match`` first; an exact ``Last-Modified`` match is enough for test sites)."""
    etag, modified = response.headers.get("ETag"), response.headers.get("Last-Modified")
    if response.status != 200 or not (etag or modified):
        return response
    if_none_match, if_modified = request.get("If-None-Match"), request.get("If-Modified-Since")
    fresh = (if_none_match == etag) if if_none_match is not None and etag \
        else (if_modified is not None and if_modified == modified)
    if not fresh:
        return response
    kept = {k: v for k, v in response.headers.items() if k in ("ETag", "Last-Modified", "Date")}
    return Response(304, response.content_type, b"", kept)


def _shutdown(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)
