"""A deterministic, generated multi-host forum served on 127.0.0.1.

Each host is its own ThreadingHTTPServer (ephemeral port).  Every request is
recorded so tests can assert on what the *server* saw: fetch counts, per-host
in-flight concurrency, gaps between request starts.  ``expected_urls()`` is
the oracle for "every page was fetched"; it is computed from the generator's
own link graph (the same one the HTML is rendered from), not by crawling.

Run ``python -m crawler.demo.site --hosts 4 --pages 30`` to serve until Ctrl-C.
"""
from __future__ import annotations

import argparse
import contextlib
import html
import logging
import random
import signal
import socket
import socketserver
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise
from typing import Any, overload

logger = logging.getLogger(__name__)

DEFAULT_ROBOTS = "User-agent: *\nAllow: /\n"
# str -> 200 with that body; int -> that status, empty body; (status, body); None -> default.
RobotsSpec = str | int | tuple[int, str] | None
RobotsConfig = Mapping[int, RobotsSpec] | Callable[[int], RobotsSpec] | None
Node = tuple[int, str]  # (host index, path-with-query)
Fault = Callable[[str, int], "tuple[int, Mapping[str, str], bytes] | None"]  # see SiteServer

_WORDS = (
    "crawler forum thread reply board post moderator question answer python redis "
    "scrapy cache queue worker lease host politeness delay robots sitemap archive "
    "index page link spider request response server client latency throughput hash "
    "ring bloom filter duplicate frontier priority depth retry timeout error status "
    "header cookie session proxy mirror shard replica failover backoff the a of to "
    "and is in it that for with on we this was"
).split()
_NAMES = "alice bob carol dave erin frank grace heidi ivan judy mallory olivia peggy rupert sybil trent victor".split()


@dataclass(frozen=True)
class RequestRecord:
    host: int
    netloc: str
    method: str
    path: str  # as sent on the request line, query included
    status: int
    start: float  # time.monotonic() in the server process
    end: float

    @property
    def url(self) -> str:
        return f"http://{self.netloc}{self.path}"

    @property
    def is_robots(self) -> bool:
        return self.path == "/robots.txt"


@dataclass
class _Forum:
    """Port-independent structure of one host."""

    boards: list[list[int]]  # boards[b - 1] = thread ids on board b, in listing order
    npages: dict[int, int]  # thread id -> number of thread pages
    titles: dict[int, str]
    pages: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # path -> page spec
    cross: dict[int, list[Node]] = field(default_factory=dict)  # thread id -> foreign pages
    broken: list[str] = field(default_factory=list)  # linked paths that 404


def _board_path(b: int, page: int) -> str:
    return f"/board/{b}" if page == 1 else f"/board/{b}?page={page}"


def _thread_path(t: int, page: int) -> str:
    return f"/thread/{t}" if page == 1 else f"/thread/{t}/page/{page}"


def _shutdown_socket(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # crawler bursts open many connections at once
    block_on_close = True  # server_close() joins handler threads; stop() unblocks them first

    def __init__(self, site: SiteServer, host: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.site, self.host = site, host

    def server_bind(self) -> None:
        # HTTPServer.server_bind() does a reverse DNS lookup (getfqdn) that can stall for seconds.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def handle_error(self, request: Any, client_address: Any) -> None:
        logger.debug("connection error from %s", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    disable_nagle_algorithm = True  # headers and body go out in separate writes
    timeout = 60  # idle keep-alive connections must not pin threads forever
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.server.site._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.site._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # per-request stderr logging is far too slow for benchmarks

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def _serve(self, send_body: bool) -> None:
        site, host, path = self.server.site, self.server.host, self.path
        start, status, logged = site._begin(host), 500, False
        try:
            status, ctype, body = site._respond(host, path)
            headers: Mapping[str, str] = {}
            if (fault := site._fault(host, path)) is not None:
                status, headers, body = fault
            site._delay(host)
            self.send_response(status)  # buffered until end_headers()
            self.send_header("Content-Type", ctype)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            # Log before writing anything: a client holding the response always finds it logged.
            logged = True
            site._end(host, self.command, path, start, status)
            self.end_headers()
            if send_body:
                self.wfile.write(body)
        finally:
            if not logged:
                site._end(host, self.command, path, start, status)


class SiteServer:
    """Generated forum on ``hosts`` local HTTP servers; see module docstring.

    ``faults``: {host: ``callable(path, hit) -> (status, headers, body) | None``}, called
    before serving (``hit`` counts earlier requests for that path), to make a host misbehave:
    answer 429 with Retry-After, fail with 503, stall (wait on ``site.stopping``), ...
    ``robots``: {host: spec} or ``callable(host) -> spec`` (evaluated per request), where spec is
    a body (200), a status (empty body), ``(status, body)`` or None (``DEFAULT_ROBOTS``).
    ``latency`` (overridable per host via ``host_latency``) delays every response, robots
    included.  ``broken_links`` adds links from each index to threads that 404.
    Times are ``time.monotonic()``; a request is logged (``end``) just before its response is written.
    """

    def __init__(
        self,
        hosts: int = 3,
        pages_per_host: int = 40,
        boards: int = 2,
        seed: int = 0,
        latency: float = 0.0,
        cross_links: bool = True,
        robots: RobotsConfig = None,
        *,
        host_latency: Mapping[int, float] | None = None,
        broken_links: bool = False,
        faults: Mapping[int, Fault] | None = None,
        threads_per_page: int = 5,
        posts_per_page: int = 6,
        max_thread_pages: int = 3,
    ) -> None:
        if hosts < 1 or boards < 1 or threads_per_page < 1 or max_thread_pages < 1:
            raise ValueError("hosts, boards, threads_per_page, max_thread_pages must be >= 1")
        self.hosts, self.seed, self.latency = hosts, seed, latency
        self.host_latency = dict(host_latency or {})
        self.faults = dict(faults or {})
        self._hits: Counter[Node] = Counter()
        self.robots = robots
        self.cross_links = cross_links and hosts > 1
        self._tpp, self._ppp = threads_per_page, posts_per_page
        pool_rng = random.Random(f"{seed}:pool")
        self._paragraphs = [self._sentence_block(pool_rng) for _ in range(48)]
        self._forums = [
            self._generate(random.Random(f"{seed}:{h}"), pages_per_host, boards, max_thread_pages)
            for h in range(hosts)
        ]
        if self.cross_links:
            self._add_cross_links(random.Random(f"{seed}:cross"))
        if broken_links:
            self._add_broken_links(random.Random(f"{seed}:broken"))
        self._graph: dict[Node, list[Node]] | None = None
        self._bodies: dict[Node, bytes] = {}
        self._servers: list[_Server] = []
        self._netlocs: list[str] = []
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        # RLock so wait_for() predicates may call the (locking) query methods.
        self._cond = threading.Condition(threading.RLock())
        self._log: list[RequestRecord] = []
        self._fetched: set[str] = set()
        self._inflight = [0] * hosts
        self._max_inflight = [0] * hosts

    # -- generation -------------------------------------------------------

    @staticmethod
    def _sentence_block(rng: random.Random) -> str:
        sentences = []
        for _ in range(rng.randint(3, 6)):
            words = rng.choices(_WORDS, k=rng.randint(6, 14))
            sentences.append(" ".join(words).capitalize() + rng.choice(".?!"))
        return " ".join(sentences)

    def _generate(self, rng: random.Random, target: int, nboards: int, max_tp: int) -> _Forum:
        forum = _Forum(boards=[[] for _ in range(nboards)], npages={}, titles={})
        total, tid = 1 + nboards, 0  # index + first page of every board
        while total < target:
            tid += 1
            board = forum.boards[rng.randrange(nboards)]
            board.append(tid)
            forum.npages[tid] = rng.randint(1, max_tp)
            forum.titles[tid] = " ".join(rng.choices(_WORDS[:60], k=rng.randint(3, 7))).capitalize()
            total += forum.npages[tid] + (len(board) > 1 and (len(board) - 1) % self._tpp == 0)
        forum.pages["/"] = ("index",)
        for b, tids in enumerate(forum.boards, 1):
            for p in range(1, self._board_page_count(tids) + 1):
                forum.pages[_board_path(b, p)] = ("board", b, p)
            for i, t in enumerate(tids):
                for p in range(1, forum.npages[t] + 1):
                    forum.pages[_thread_path(t, p)] = ("thread", t, p, b, i // self._tpp + 1)
        return forum

    def _board_page_count(self, tids: list[int]) -> int:
        return max(1, -(-len(tids) // self._tpp))

    def _add_cross_links(self, rng: random.Random) -> None:
        # ~30% of threads point at a random page of another host (deep cross-host discovery);
        # every index also links the next host's index (render), so each host has one.
        targets = [sorted(f.pages) for f in self._forums]
        for h, forum in enumerate(self._forums):
            for t in forum.npages:
                if rng.random() < 0.3:
                    other = (h + rng.randrange(1, self.hosts)) % self.hosts
                    forum.cross[t] = [(other, rng.choice(targets[other]))]

    def _add_broken_links(self, rng: random.Random) -> None:
        for forum in self._forums:
            first_missing = max(forum.npages, default=0) + 1
            forum.broken = [_thread_path(first_missing + k, 1) for k in range(rng.randint(1, 3))]

    # -- rendering --------------------------------------------------------

    def _render(self, host: int, path: str) -> tuple[str, list[Node]]:
        """HTML for a page plus the exact list of pages it links to."""
        forum, spec = self._forums[host], self._forums[host].pages[path]
        rng = random.Random(f"{self.seed}:{host}:{path}")
        links: list[Node] = []

        def a(target: str, text: str, to_host: int = host) -> str:
            links.append((to_host, target))
            href = target if to_host == host else self._base(to_host) + target[1:]
            return f'<a href="{html.escape(href)}">{html.escape(text)}</a>'

        nav = "".join(f"<li>{a(_board_path(b, 1), f'Board {b}')}</li>" for b in range(1, len(forum.boards) + 1))
        if spec[0] == "index":
            title, body = "Index", self._index_body(host, forum, a)
        elif spec[0] == "board":
            title, body = f"Board {spec[1]} - page {spec[2]}", self._board_body(forum, spec, a, rng)
        else:
            title, body = f"{forum.titles[spec[1]]} - page {spec[2]}", self._thread_body(forum, spec, a, rng)
        page = (
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)} | Forum {host}</title>"
            f'<meta name="description" content="{html.escape(self._paragraphs[rng.randrange(48)][:150])}">'
            f'</head>\n<body><header><h1>Forum {host}</h1><nav><ul><li>{a("/", "Home")}</li>{nav}</ul></nav></header>\n'
            f"<main>\n{body}\n</main>\n<footer><p>Forum {host} &middot; generated with seed {self.seed}</p></footer>"
            f"</body></html>\n"
        )
        return page, links

    def _index_body(self, host: int, forum: _Forum, a: Callable[..., str]) -> str:
        rows = [f"<p>{self._paragraphs[host % 48]}</p>"]
        for b, tids in enumerate(forum.boards, 1):
            latest = "".join(f"<li>{a(_thread_path(t, 1), forum.titles[t])}</li>" for t in tids[:3])
            rows.append(f"<h3>{a(_board_path(b, 1), f'Board {b}')} ({len(tids)} threads)</h3>"
                        f"<p>{self._paragraphs[(host + b) % 48]}</p><ul>{latest}</ul>")
        extra = [a(p, "Recently removed thread") for p in forum.broken]
        if self.cross_links:
            extra.append(a("/", "Sister forum", (host + 1) % self.hosts))
        return f"<h2>Boards</h2>{''.join(rows)}<p>{' | '.join(extra)}</p>"

    def _board_body(self, forum: _Forum, spec: tuple[Any, ...], a: Callable[..., str], rng: random.Random) -> str:
        _, b, p = spec
        tids = forum.boards[b - 1][(p - 1) * self._tpp: p * self._tpp]
        rows = []
        for t in tids:
            last = forum.npages[t]
            jump = f" &middot; {a(_thread_path(t, last), 'last page')}" if last > 1 else ""
            rows.append(f"<tr><td>{a(_thread_path(t, 1), forum.titles[t])}{jump}</td>"
                        f"<td>{rng.choice(_NAMES)}</td><td>{last * self._ppp - rng.randrange(self._ppp)}</td></tr>"
                        f"<tr><td colspan=\"3\">{self._paragraphs[rng.randrange(48)]}</td></tr>")
        pager = self._pager(p, self._board_page_count(forum.boards[b - 1]), lambda n: _board_path(b, n), a)
        intro = "".join(f"<p>{self._paragraphs[(b * 7 + i) % 48]}</p>" for i in range(2))  # same on every page
        return (f"<h2>Board {b}</h2>{intro}"
                f"<table><tr><th>Thread</th><th>Author</th><th>Replies</th></tr>{''.join(rows)}</table>{pager}")

    def _thread_body(self, forum: _Forum, spec: tuple[Any, ...], a: Callable[..., str], rng: random.Random) -> str:
        _, t, p, b, board_page = spec
        board_link = a(_board_path(b, board_page), f"Board {b}")
        crumbs = f'<p class="crumbs">{board_link} &rsaquo; {html.escape(forum.titles[t])}</p>'
        posts = []
        for i in range(self._ppp):
            paras = "".join(f"<p>{self._paragraphs[rng.randrange(48)]}</p>" for _ in range(rng.randint(1, 2)))
            day = 1 + (t * 7 + p * self._ppp + i) % 28
            posts.append(f'<article class="post"><h3>#{(p - 1) * self._ppp + i + 1} by {rng.choice(_NAMES)}'
                         f" on 2024-03-{day:02d}</h3>{paras}</article>")
        related = ""
        if p == 1 and forum.cross.get(t):
            related = f"<p>Related elsewhere: {', '.join(a(path, 'discussion', h) for h, path in forum.cross[t])}</p>"
        pager = self._pager(p, forum.npages[t], lambda n: _thread_path(t, n), a)
        return f"<h2>{html.escape(forum.titles[t])}</h2>{crumbs}{''.join(posts)}{related}{pager}"

    @staticmethod
    def _pager(page: int, last: int, path: Callable[[int], str], a: Callable[..., str]) -> str:
        if last == 1:
            return ""
        items = [a(path(1), "first")] if page > 1 else []
        items += [a(path(page - 1), "prev")] if page > 1 else []
        items += [f"page {page} of {last}"]
        items += [a(path(page + 1), "next"), a(path(last), "last")] if page < last else []
        return f'<nav class="pager">{" | ".join(items)}</nav>'

    # -- serving ----------------------------------------------------------

    def _base(self, host: int) -> str:
        # Before start() ports are unknown; links rendered then are only used for the graph.
        return f"http://{self._netlocs[host]}/" if self._netlocs else f"http://host{host}.invalid/"

    def _respond(self, host: int, path: str) -> tuple[int, str, bytes]:
        if path == "/robots.txt":
            status, text = self.robots_for(host)
            return status, "text/plain; charset=utf-8", text.encode()
        if path not in self._forums[host].pages:
            return 404, "text/html; charset=utf-8", b"<!DOCTYPE html><html><body><h1>Not found</h1></body></html>\n"
        body = self._bodies.get((host, path))
        if body is None:  # benign race: two threads may render the same page once each
            body = self._bodies[(host, path)] = self._render(host, path)[0].encode()
        return 200, "text/html; charset=utf-8", body

    def _fault(self, host: int, path: str) -> tuple[int, Mapping[str, str], bytes] | None:
        fault = self.faults.get(host)
        if fault is None:
            return None
        with self._cond:
            hit = self._hits[(host, path)]
            self._hits[(host, path)] += 1
        return fault(path, hit)

    @property
    def stopping(self) -> threading.Event:
        """Set by stop(); faults that stall should wait on it."""
        return self._stopping

    def robots_for(self, host: int) -> tuple[int, str]:
        """(status, body) served at ``/robots.txt`` of ``host``; re-evaluated per request."""
        robots = self.robots
        spec = robots(host) if callable(robots) else (robots or {}).get(host)
        if spec is None:
            return 200, DEFAULT_ROBOTS
        if isinstance(spec, str):
            return 200, spec
        if isinstance(spec, int):
            return spec, ""
        return spec

    def _delay(self, host: int) -> None:
        delay = self.host_latency.get(host, self.latency)
        if delay > 0:
            self._stopping.wait(delay)  # an Event, so stop() cuts the delay short

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._conns_lock:
            if not add:
                self._conns.discard(conn)
            elif self._stopping.is_set():  # checked under the lock stop() snapshots with
                _shutdown_socket(conn)
            else:
                self._conns.add(conn)

    # -- recording --------------------------------------------------------

    def _begin(self, host: int) -> float:
        with self._cond:
            self._inflight[host] += 1
            self._max_inflight[host] = max(self._max_inflight[host], self._inflight[host])
            self._cond.notify_all()  # lets wait_for() observe in-flight requests
            return time.monotonic()

    def _end(self, host: int, method: str, path: str, start: float, status: int) -> None:
        record = RequestRecord(host, self._netlocs[host], method, path, status, start, time.monotonic())
        with self._cond:
            self._inflight[host] -= 1
            self._log.append(record)
            if not record.is_robots:
                self._fetched.add(record.url)
            self._cond.notify_all()

    @property
    def requests(self) -> list[RequestRecord]:
        """Snapshot of all recorded requests, in completion order."""
        with self._cond:
            return list(self._log)

    log = requests

    def reset_log(self) -> None:
        with self._cond:
            self._log.clear()
            self._fetched.clear()
            self._max_inflight = list(self._inflight)

    def fetch_counts(self, include_robots: bool = False) -> Counter[str]:
        """Absolute URL -> number of requests (any method, any status)."""
        return Counter(r.url for r in self.requests if include_robots or not r.is_robots)

    def fetched_urls(self) -> set[str]:
        """Distinct non-robots URLs requested so far."""
        with self._cond:
            return set(self._fetched)

    @overload
    def max_concurrency(self, netloc: None = None) -> dict[str, int]: ...
    @overload
    def max_concurrency(self, netloc: str | int) -> int: ...

    def max_concurrency(self, netloc: str | int | None = None) -> dict[str, int] | int:
        """Peak number of requests in flight at the server (tracked live), per host."""
        with self._cond:
            peaks = dict(zip(self.netlocs, self._max_inflight, strict=True))
        return peaks if netloc is None else peaks[self._netloc(netloc)]

    @overload
    def min_gap(self, netloc: None = None) -> dict[str, float]: ...
    @overload
    def min_gap(self, netloc: str | int) -> float: ...

    def min_gap(self, netloc: str | int | None = None) -> dict[str, float] | float:
        """Per host, smallest gap in seconds between consecutive request starts (robots.txt included)."""
        starts: dict[str, list[float]] = {n: [] for n in self.netlocs}
        for r in self.requests:
            starts[r.netloc].append(r.start)
        gaps = {}
        for n, ts in starts.items():
            ts.sort()
            gaps[n] = min((b - a for a, b in pairwise(ts)), default=float("inf"))
        return gaps if netloc is None else gaps[self._netloc(netloc)]

    def _netloc(self, netloc: str | int) -> str:
        return self.netlocs[netloc] if isinstance(netloc, int) else netloc

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` is true (re-checked after every request); False on timeout."""
        with self._cond:
            return self._cond.wait_for(predicate, timeout)

    def wait_fetched(self, n: int, timeout: float) -> bool:
        """Block until at least ``n`` distinct non-robots URLs have been requested."""
        return self.wait_for(lambda: len(self._fetched) >= n, timeout)

    # -- oracle -----------------------------------------------------------

    def link_graph(self) -> dict[Node, list[Node]]:
        """(host, path) -> pages it links to, exactly as rendered (broken targets included)."""
        if self._graph is None:
            self._graph = {
                (h, path): self._render(h, path)[1] for h, forum in enumerate(self._forums) for path in forum.pages
            }
        return self._graph

    def expected_paths(self, respect_robots: bool = False, user_agent: str = "*") -> set[Node]:
        """(host, path) of every page reachable from the host roots; usable before start()."""
        graph = self.link_graph()
        allowed = self._robots_checker(user_agent) if respect_robots else (lambda h, p: True)
        roots = [(h, "/") for h in range(self.hosts) if allowed(h, "/")]
        seen, queue = set(roots), deque(roots)
        while queue:
            for node in graph[queue.popleft()]:
                if node in graph and node not in seen and allowed(*node):
                    seen.add(node)
                    queue.append(node)
        return seen

    def expected_urls(self, respect_robots: bool = False, user_agent: str = "*") -> set[str]:
        """Absolute URLs of every reachable page (robots.txt and broken links excluded).

        With ``respect_robots`` disallowed pages are neither counted nor followed; the
        robots body is obeyed whatever its status, as Scrapy's RobotsTxtMiddleware does.
        """
        self._require_started()
        return {self.base_urls[h] + path[1:] for h, path in self.expected_paths(respect_robots, user_agent)}

    def broken_urls(self) -> set[str]:
        """Linked URLs that deliberately 404 (empty unless ``broken_links=True``)."""
        self._require_started()
        return {self.base_urls[h] + p[1:] for h, f in enumerate(self._forums) for p in f.broken}

    def _robots_checker(self, user_agent: str) -> Callable[[int, str], bool]:
        from protego import Protego  # what Scrapy obeys (longest match wins); a Scrapy dependency

        parsers = [Protego.parse(self.robots_for(h)[1]) for h in range(self.hosts)]
        return lambda h, path: parsers[h].can_fetch(f"http://x{path}", user_agent)

    # -- lifecycle --------------------------------------------------------

    @property
    def base_urls(self) -> list[str]:
        self._require_started()
        return [f"http://{n}/" for n in self.netlocs]

    @property
    def netlocs(self) -> list[str]:
        self._require_started()
        return list(self._netlocs)

    def _require_started(self) -> None:
        if not self._netlocs:
            raise RuntimeError("SiteServer not started")

    def start(self) -> SiteServer:
        if self._servers or self._stopping.is_set():
            raise RuntimeError("SiteServer can only be started once")
        self._servers = [_Server(self, h) for h in range(self.hosts)]
        self._netlocs = [f"127.0.0.1:{s.server_address[1]}" for s in self._servers]
        for h, server in enumerate(self._servers):
            thread = threading.Thread(
                target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"site-host-{h}", daemon=True
            )
            thread.start()
            self._threads.append(thread)
        logger.info("site serving %d hosts: %s", self.hosts, " ".join(self.base_urls))
        return self

    def stop(self) -> None:
        with self._conns_lock:
            self._stopping.set()
            conns = list(self._conns)
        for server in self._servers:
            server.shutdown()  # stop accepting; returns once serve_forever exits
        for conn in conns:  # wake handlers blocked reading idle keep-alive connections
            _shutdown_socket(conn)
        for server in self._servers:
            server.server_close()  # joins handler threads
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads.clear()

    def __enter__(self) -> SiteServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the generated demo forum site until Ctrl-C.")
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--pages", type=int, default=40, help="approximate pages per host")
    parser.add_argument("--boards", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per response")
    parser.add_argument("--no-cross-links", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt  # same clean shutdown as Ctrl-C

    signal.signal(signal.SIGTERM, on_term)
    site = SiteServer(args.hosts, args.pages, args.boards, args.seed, args.latency, not args.no_cross_links)
    try:  # KeyboardInterrupt may arrive anywhere, even before the wait
        with site:
            logger.info("%d pages on %d hosts; Ctrl-C to stop", len(site.expected_paths()), args.hosts)
            print("\n".join(site.base_urls), flush=True)
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    logger.info("stopped after %d requests", len(site.requests))


if __name__ == "__main__":
    main()
