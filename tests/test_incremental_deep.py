"""Issue 39, item 7: an edit that changes no thread-list row is found by the deep
revisits. A phpBB forum (tests/helpers/changing_forum.py's version 1) gets one post edited
in every thread and nothing else: no row changes. With ``CRAWLER_REVISIT_DEEP_PASSES=3``
each of the next three passes reads about a third of the threads again, in full, and
every edit comes out, once, within those three passes."""

from __future__ import annotations

import copy
from urllib.parse import parse_qs, urlsplit

from crawler.demo.server import LoopbackServer
from tests.extract.sitegen.content import FBoard
from tests.helpers.changing_forum import ChangingForum, render, version1
from tests.helpers.crawl import run_crawl

PASSES = 3
DEEP = {"CRAWLER_REVISIT_DEEP_PASSES": str(PASSES), "CRAWLER_REVISIT_DEEP_DAYS": "0"}


def edited(boards: list[FBoard]) -> tuple[list[FBoard], set[str]]:
    """*boards* with one post edited per thread: the first (page 1) in even threads, the
    last in odd ones; and the ids of the edited posts."""
    boards, ids = copy.deepcopy(boards), set()
    for board in boards:
        for thread in board.threads:
            post = thread.posts[0 if thread.id % 2 == 0 else -1]
            post.paragraphs = [post.paragraphs[0] + " (edited quietly)"]
            ids.add(str(post.id))
    return boards, ids


class QuietlyEditedForum(ChangingForum):
    """Version 1, then version 2: the same forum with a post edited in every thread."""

    def __init__(self) -> None:
        super().__init__()
        boards, self.edited = edited(version1())
        self.versions[2] = render(boards)
        self.threads = {str(t.id): len(t.pages()) for b in boards for t in b.threads}


def thread_pages(requests) -> dict[str, set[str]]:
    """thread id -> the URLs of its pages among *requests*."""
    pages: dict[str, set[str]] = {}
    for request in requests:
        query = parse_qs(urlsplit(request.url).query)
        if "viewtopic" in request.url and "t" in query:
            pages.setdefault(query["t"][0], set()).add(request.url)
    return pages


def test_every_quiet_edit_comes_out_within_the_deep_revisit_bound(tmp_path):
    site = QuietlyEditedForum()
    passes = []
    with LoopbackServer(site) as server:
        url = server.origins[0] + site.start
        run_crawl("phpbb", url, tmp_path / "first.jl", settings=DEEP)
        site.version = 2
        for n in range(1, PASSES + 1):
            before = len(server.recorder.requests)
            result = run_crawl("phpbb", url, tmp_path / f"pass{n}.jl", settings=DEEP)
            passes.append((result, thread_pages(server.recorder.requests[before:])))
    read = [set(pages) for _, pages in passes]
    for n, threads in enumerate(read, 1):  # a share in each pass, never all at once
        assert threads and len(threads) < len(site.threads), (n, sorted(threads))
    assert set.union(*read) == set(site.threads)
    assert sum(map(len, read)) == len(site.threads), read  # each thread once in the cycle
    for _, pages in passes:  # in full: every page of a thread read again
        assert {t: len(urls) for t, urls in pages.items()} == \
            {t: site.threads[t] for t in pages}
    emitted = [i for result, _ in passes for i in result.items]
    assert sorted(str(i["post_id"]) for i in emitted) == sorted(site.edited), emitted
    assert all(i["revision"] == 1 and "edited quietly" in i["body_text"] for i in emitted)
    assert sum(r.stats.get("revisit/deep", 0) for r, _ in passes) == len(site.threads)
