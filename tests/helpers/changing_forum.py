"""A phpBB forum that changes between two crawls: version 1, then version 2.

Rendered with the phpBB fixture builder (:mod:`tests.extract.sitegen.phpbb`) from a larger
content model than the extraction fixtures: 2 boards (or more) of 12 threads, each thread 13 to 15
posts (5 pages). Version 2 is version 1 plus what the incremental re-crawl must find:
replies in three threads (one spilling onto a new page), a new thread on top of the first
board, and an edited post (on the last page of a thread that got a reply); boards after the
second stay as they were. Every page has an
ETag and a Last-Modified, and :class:`~crawler.demo.server.LoopbackServer` answers a
matching conditional GET with 304.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Sequence
from datetime import datetime, timedelta

from crawler.demo.fixture_server import route_key
from crawler.demo.server import Response
from tests.extract.sitegen import phpbb
from tests.extract.sitegen.content import HTTP_DATE, SHANGHAI, FBoard, FPost, FThread, User

USERS = [User(20 + i, name) for i, name in enumerate(("ann", "ben", "cai", "dan", "eve"))]
START = datetime(2024, 1, 1, 8, 0, tzinfo=SHANGHAI)
_HTML = "text/html; charset=utf-8"


def _post(pid: int, n: int, text: str) -> FPost:
    return FPost(pid, USERS[n % len(USERS)], START + timedelta(hours=pid % 10_000), [text])


def version1(threads: int = 12, boards_count: int = 2) -> list[FBoard]:
    boards = []
    for b in range(boards_count):
        board = FBoard(10 + b, f"Board {b}", f"board-{b}", f"The board number {b}")
        for t in range(threads):
            tid = 1000 * (b + 1) + t if threads > 99 else 100 * (b + 1) + t
            count = 15 if t == 0 else 13  # thread 0 fills its 5 pages exactly
            posts = [_post(tid * 100 + p, p, f"Post {p} of thread {tid}.") for p in range(count)]
            board.threads.append(FThread(tid, f"Thread {tid}", f"t{tid}", posts, views=tid))
        boards.append(board)
    return boards


def version2(threads: int = 12, boards_count: int = 2) -> list[FBoard]:
    boards = copy.deepcopy(version1(threads, boards_count))
    first, second = boards[:2]  # the others do not change
    spill, replied, other = first.threads[0], first.threads[5], second.threads[3]
    spill.posts.append(_post(spill.id * 100 + 50, 1, "A reply that opens page 6."))
    replied.posts.append(_post(replied.id * 100 + 50, 2, "A new reply."))
    other.posts += [_post(other.id * 100 + 50 + i, i, f"New reply {i}.") for i in range(2)]
    edited = replied.posts[-2]  # on the thread's last page, which is read again
    edited.paragraphs = [edited.paragraphs[0] + " (edited: more detail)"]
    for thread in (spill, replied, other):
        thread.views += 100  # views change too, without the thread changing
    new = FThread(999, "A new thread", "t999",
                  [_post(99_900 + p, p, f"Post {p} of the new thread.") for p in range(2)], views=1)
    first.threads.insert(0, new)
    return boards


def render(boards: list[FBoard]) -> dict[str, bytes]:
    """route key -> page, as :func:`tests.extract.sitegen.phpbb.render` lays them out."""
    pages = {"/index.php": phpbb.index(boards)}
    for board in boards:
        for page in range(1, len(board.pages()) + 1):
            pages[phpbb.board_href(board, page)[1:].replace("&amp;", "&")] = phpbb.board_page(board, page)
        for thread in board.threads:
            for page in range(1, len(thread.pages()) + 1):
                target = phpbb.thread_href(thread, page)[1:].replace("&amp;", "&")
                pages[target] = phpbb.thread_page(board, thread, page)
    return {route_key(target): body.encode() for target, body in pages.items()}


class ChangingForum:
    """A one-host :class:`~crawler.demo.server.Site` serving :attr:`version` 1 or 2."""

    hosts = 1
    start = "/index.php"

    def __init__(self, threads: int = 12, boards: int = 2) -> None:
        """*threads* per board (the bench takes more); boards after the second never change."""
        self.versions = {1: render(version1(threads, boards)), 2: render(version2(threads, boards))}
        self.version = 1

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response:
        body = self.versions[self.version].get(route_key(target))
        if body is None:
            return Response(404, "text/plain", b"not found", {"Date": HTTP_DATE})
        tag = hashlib.sha1(body).hexdigest()[:16]
        # the same day for every page: If-None-Match decides (as it does on real servers)
        return Response(200, _HTML, body, {"Date": HTTP_DATE, "ETag": f'"{tag}"',
                                          "Last-Modified": HTTP_DATE})

    def pages(self, version: int) -> int:
        return len(self.versions[version])
