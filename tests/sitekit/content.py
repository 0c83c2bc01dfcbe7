"""The deterministic generated forum: hosts, pages, their HTML, the link graph, expected URLs.

A :class:`GeneratedForum` is a :class:`~crawler.demo.server.Site`: it knows nothing of ports.
Links to other hosts are rendered with a placeholder origin per host (``http://host3.invalid``),
which :meth:`GeneratedForum.respond` (or a writer of static files, like ``bench/site_gen.py``)
swaps for the real one with :func:`with_origins`. :meth:`GeneratedForum.expected_paths` is
computed from the same link graph the HTML is rendered from, not by crawling, so it is the
oracle for "every page was fetched".

The same seed and shape give the same forum, byte for byte.
"""

from __future__ import annotations

import html
import random
import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from crawler.demo.server import Response

__all__ = ["DEFAULT_ROBOTS", "ForumShape", "GeneratedForum", "Node", "placeholder_origin", "with_origins"]

DEFAULT_ROBOTS = "User-agent: *\nAllow: /\n"
Node = tuple[int, str]  # (host index, path with query)

_HTML = "text/html; charset=utf-8"
_NOT_FOUND = b"<!DOCTYPE html><html><body><h1>Not found</h1></body></html>\n"
_PLACEHOLDER = re.compile(rb"http://host(\d+)\.invalid")
_WORDS = (
    "crawler forum thread reply board post moderator question answer python redis "
    "scrapy cache queue worker lease host politeness delay robots sitemap archive "
    "index page link spider request response server client latency throughput hash "
    "ring bloom filter duplicate frontier priority depth retry timeout error status "
    "header cookie session proxy mirror shard replica failover backoff the a of to "
    "and is in it that for with on we this was"
).split()
_NAMES = "alice bob carol dave erin frank grace heidi ivan judy mallory olivia peggy rupert sybil trent victor".split()


def placeholder_origin(host: int) -> str:
    """The origin links to ``host`` carry in rendered pages, until :func:`with_origins`."""
    return f"http://host{host}.invalid"


def with_origins(body: bytes, origins: Sequence[str]) -> bytes:
    """``body`` with each host's placeholder origin replaced by ``origins[host]``."""
    return _PLACEHOLDER.sub(lambda m: origins[int(m[1])].encode(), body)


@dataclass(frozen=True)
class ForumShape:
    """How each host's forum is laid out; the defaults are the demo's."""

    boards: int = 2
    threads_per_page: int = 5  # threads listed per board page
    posts_per_page: int = 6
    max_thread_pages: int = 3
    #: ``/t/7/p2.html`` rather than ``/thread/7/page/2``: no query strings, and no path that is
    #: both a page and a folder, so the pages can be written out as files for a static server.
    static_paths: bool = False
    #: Words of sidebar on every page: real forum templates carry a few KB of it.
    template_words: int = 0
    #: A link to every board in each page's navigation bar (else only to the index).
    board_nav: bool = True

    def __post_init__(self) -> None:
        if min(self.boards, self.threads_per_page, self.max_thread_pages) < 1:
            raise ValueError("boards, threads_per_page, max_thread_pages must be >= 1")

    def board_path(self, board: int, page: int) -> str:
        if self.static_paths:
            return f"/b/{board}/" if page == 1 else f"/b/{board}/p{page}.html"
        return f"/board/{board}" if page == 1 else f"/board/{board}?page={page}"

    def thread_path(self, thread: int, page: int) -> str:
        if self.static_paths:
            return f"/t/{thread}/" if page == 1 else f"/t/{thread}/p{page}.html"
        return f"/thread/{thread}" if page == 1 else f"/thread/{thread}/page/{page}"

    def board_pages(self, threads: int) -> int:
        return max(1, -(-threads // self.threads_per_page))


@dataclass
class _Forum:
    """Port-independent structure of one host."""

    boards: list[list[int]]  # boards[b - 1] = thread ids on board b, in listing order
    npages: dict[int, int]  # thread id -> number of thread pages
    titles: dict[int, str]
    pages: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # path -> page spec
    cross: dict[int, list[Node]] = field(default_factory=dict)  # thread id -> foreign pages
    broken: list[str] = field(default_factory=list)  # linked paths that 404

    @classmethod
    def plan(cls, rng: random.Random, target: int, shape: ForumShape) -> _Forum:
        """Add threads until the host has about ``target`` pages."""
        forum = cls(boards=[[] for _ in range(shape.boards)], npages={}, titles={})
        total, tid = 1 + shape.boards, 0  # index + first page of every board
        while total < target:
            tid += 1
            board = forum.boards[rng.randrange(shape.boards)]
            board.append(tid)
            forum.npages[tid] = rng.randint(1, shape.max_thread_pages)
            forum.titles[tid] = " ".join(rng.choices(_WORDS[:60], k=rng.randint(3, 7))).capitalize()
            total += forum.npages[tid] + (len(board) > 1 and (len(board) - 1) % shape.threads_per_page == 0)
        forum.pages["/"] = ("index",)
        for b, tids in enumerate(forum.boards, 1):
            for p in range(1, shape.board_pages(len(tids)) + 1):
                forum.pages[shape.board_path(b, p)] = ("board", b, p)
            for i, t in enumerate(tids):
                for p in range(1, forum.npages[t] + 1):
                    forum.pages[shape.thread_path(t, p)] = ("thread", t, p, b, i // shape.threads_per_page + 1)
        return forum


def _sentence_block(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(3, 6)):
        words = rng.choices(_WORDS, k=rng.randint(6, 14))
        sentences.append(" ".join(words).capitalize() + rng.choice(".?!"))
    return " ".join(sentences)


class GeneratedForum:
    """A forum on each of ``hosts`` hosts, about ``pages_per_host`` pages each (one number, or
    one per host), generated from ``seed``.

    Each host has an index, paginated boards and paginated threads. With ``cross_links``, about
    30% of threads link a page of another host, and each index links the next host's index.
    ``broken_links`` adds links from each index to threads that 404. Pages are rendered on
    first use and kept; safe to use from many threads.
    """

    def __init__(
        self,
        hosts: int = 3,
        pages_per_host: int | Sequence[int] = 40,
        seed: int = 0,
        *,
        shape: ForumShape = ForumShape(),  # noqa: B008 - frozen
        cross_links: bool = True,
        broken_links: bool = False,
    ) -> None:
        if hosts < 1:
            raise ValueError("hosts must be >= 1")
        targets = [pages_per_host] * hosts if isinstance(pages_per_host, int) else list(pages_per_host)
        if len(targets) != hosts:
            raise ValueError(f"{len(targets)} page counts for {hosts} hosts")
        self.hosts, self.seed, self.shape = hosts, seed, shape
        self.cross_links = cross_links and hosts > 1
        pool_rng = random.Random(f"{seed}:pool")
        self._paragraphs = [_sentence_block(pool_rng) for _ in range(48)]
        self._template = ""
        if shape.template_words:
            sidebar = " ".join(random.Random(f"{seed}:template").choices(_WORDS, k=shape.template_words))
            self._template = f"<aside>{sidebar}</aside>"
        self._forums = [_Forum.plan(random.Random(f"{seed}:{h}"), targets[h], shape) for h in range(hosts)]
        if self.cross_links:
            self._add_cross_links(random.Random(f"{seed}:cross"))
        if broken_links:
            self._add_broken_links(random.Random(f"{seed}:broken"))
        self._graph: dict[Node, list[Node]] | None = None
        self._bodies: dict[Node, bytes] = {}

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
            forum.broken = [self.shape.thread_path(first_missing + k, 1) for k in range(rng.randint(1, 3))]

    # -- the site ------------------------------------------------------------

    def paths(self, host: int) -> list[str]:
        """Paths (with query) of the pages of ``host``: its index, board and thread pages."""
        return list(self._forums[host].pages)

    def page(self, host: int, path: str, *, keep: bool = True) -> bytes:
        """The HTML of a page, links to other hosts with placeholder origins; KeyError if none.
        ``keep=False`` renders without keeping it (a writer of every page of a large site)."""
        body = self._bodies.get((host, path))
        if body is None:  # benign race: two threads may render the same page once each
            body = self._render(host, path)[0].encode()
            if keep:
                self._bodies[(host, path)] = body
        return body

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response:
        if target == "/robots.txt":
            return Response(200, "text/plain; charset=utf-8", DEFAULT_ROBOTS.encode())
        if target not in self._forums[host].pages:
            return Response(404, _HTML, _NOT_FOUND)
        return Response(200, _HTML, with_origins(self.page(host, target), origins))

    # -- the oracle ------------------------------------------------------------

    def link_graph(self) -> dict[Node, list[Node]]:
        """(host, path) -> pages it links to, exactly as rendered (broken targets included)."""
        if self._graph is None:
            self._graph = {
                (h, path): self._render(h, path)[1] for h, forum in enumerate(self._forums) for path in forum.pages
            }
        return self._graph

    def expected_paths(self, allowed: Callable[[int, str], bool] | None = None) -> set[Node]:
        """(host, path) of every page reachable from the host roots, following only the links
        ``allowed(host, path)`` accepts (a robots.txt, say)."""
        graph = self.link_graph()
        allowed = allowed or (lambda h, p: True)
        roots = [(h, "/") for h in range(self.hosts) if allowed(h, "/")]
        seen, queue = set(roots), deque(roots)
        while queue:
            for node in graph[queue.popleft()]:
                if node in graph and node not in seen and allowed(*node):
                    seen.add(node)
                    queue.append(node)
        return seen

    def broken_paths(self) -> set[Node]:
        """Linked (host, path) that deliberately 404 (none unless ``broken_links``)."""
        return {(h, p) for h, forum in enumerate(self._forums) for p in forum.broken}

    @staticmethod
    def urls(nodes: Iterable[Node], origins: Sequence[str]) -> set[str]:
        """Absolute URLs of (host, path) pairs, given each host's origin."""
        return {origins[h] + path for h, path in nodes}

    # -- rendering ---------------------------------------------------------------

    def _render(self, host: int, path: str) -> tuple[str, list[Node]]:
        """HTML for a page plus the exact list of pages it links to."""
        forum, spec = self._forums[host], self._forums[host].pages[path]
        rng = random.Random(f"{self.seed}:{host}:{path}")
        links: list[Node] = []

        def a(target: str, text: str, to_host: int = host) -> str:
            links.append((to_host, target))
            href = target if to_host == host else placeholder_origin(to_host) + target
            return f'<a href="{html.escape(href)}">{html.escape(text)}</a>'

        shape = self.shape
        boards = range(1, len(forum.boards) + 1) if shape.board_nav else range(0)
        nav = "".join(f"<li>{a(shape.board_path(b, 1), f'Board {b}')}</li>" for b in boards)
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
            f"<main>\n{body}\n</main>\n{self._template}"
            f"<footer><p>Forum {host} &middot; generated with seed {self.seed}</p></footer>"
            f"</body></html>\n"
        )
        return page, links

    def _index_body(self, host: int, forum: _Forum, a: Callable[..., str]) -> str:
        rows = [f"<p>{self._paragraphs[host % 48]}</p>"]
        for b, tids in enumerate(forum.boards, 1):
            latest = "".join(f"<li>{a(self.shape.thread_path(t, 1), forum.titles[t])}</li>" for t in tids[:3])
            rows.append(f"<h3>{a(self.shape.board_path(b, 1), f'Board {b}')} ({len(tids)} threads)</h3>"
                        f"<p>{self._paragraphs[(host + b) % 48]}</p><ul>{latest}</ul>")
        extra = [a(p, "Recently removed thread") for p in forum.broken]
        if self.cross_links:
            extra.append(a("/", "Sister forum", (host + 1) % self.hosts))
        return f"<h2>Boards</h2>{''.join(rows)}<p>{' | '.join(extra)}</p>"

    def _board_body(self, forum: _Forum, spec: tuple[Any, ...], a: Callable[..., str], rng: random.Random) -> str:
        _, b, p = spec
        shape = self.shape
        tids = forum.boards[b - 1][(p - 1) * shape.threads_per_page: p * shape.threads_per_page]
        rows = []
        for t in tids:
            last = forum.npages[t]
            jump = f" &middot; {a(shape.thread_path(t, last), 'last page')}" if last > 1 else ""
            rows.append(f"<tr><td>{a(shape.thread_path(t, 1), forum.titles[t])}{jump}</td>"
                        f"<td>{rng.choice(_NAMES)}</td>"
                        f"<td>{last * shape.posts_per_page - rng.randrange(shape.posts_per_page)}</td></tr>"
                        f"<tr><td colspan=\"3\">{self._paragraphs[rng.randrange(48)]}</td></tr>")
        last_page = shape.board_pages(len(forum.boards[b - 1]))
        pager = _pager(p, last_page, lambda n: shape.board_path(b, n), a)
        intro = "".join(f"<p>{self._paragraphs[(b * 7 + i) % 48]}</p>" for i in range(2))  # same on every page
        return (f"<h2>Board {b}</h2>{intro}"
                f"<table><tr><th>Thread</th><th>Author</th><th>Replies</th></tr>{''.join(rows)}</table>{pager}")

    def _thread_body(self, forum: _Forum, spec: tuple[Any, ...], a: Callable[..., str], rng: random.Random) -> str:
        _, t, p, b, board_page = spec
        shape, ppp = self.shape, self.shape.posts_per_page
        board_link = a(shape.board_path(b, board_page), f"Board {b}")
        crumbs = f'<p class="crumbs">{board_link} &rsaquo; {html.escape(forum.titles[t])}</p>'
        posts = []
        for i in range(ppp):
            paras = "".join(f"<p>{self._paragraphs[rng.randrange(48)]}</p>" for _ in range(rng.randint(1, 2)))
            day = 1 + (t * 7 + p * ppp + i) % 28
            posts.append(f'<article class="post"><h3>#{(p - 1) * ppp + i + 1} by {rng.choice(_NAMES)}'
                         f" on 2024-03-{day:02d}</h3>{paras}</article>")
        related = ""
        if p == 1 and forum.cross.get(t):
            related = f"<p>Related elsewhere: {', '.join(a(path, 'discussion', h) for h, path in forum.cross[t])}</p>"
        pager = _pager(p, forum.npages[t], lambda n: shape.thread_path(t, n), a)
        return f"<h2>{html.escape(forum.titles[t])}</h2>{crumbs}{''.join(posts)}{related}{pager}"


def _pager(page: int, last: int, path: Callable[[int], str], a: Callable[..., str]) -> str:
    if last == 1:
        return ""
    items = [a(path(1), "first")] if page > 1 else []
    items += [a(path(page - 1), "prev")] if page > 1 else []
    items += [f"page {page} of {last}"]
    items += [a(path(page + 1), "next"), a(path(last), "last")] if page < last else []
    return f'<nav class="pager">{" | ".join(items)}</nav>'
