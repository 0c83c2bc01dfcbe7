"""One page, one request: the URL forms a listing links one thread or board page under.

A board list links a thread as ``/9-slug`` and again as ``/9-slug/``, ``/9-slug/0`` (its first
posts), ``/9-slug/last`` or ``/unread`` (jumps, redirecting to some page of it): seen on
esoTalk, Misago and others. Each form is another URL to the dupefilter, and each costs a request
(a jump costs its redirect, and lands on a page without the walk's cursor). A thread's first
page is asked for once, under its shortest form on the listing; a board page once, whatever
its trailing slash. The walk asks for the later pages one by one from the first.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from crawler.learn.urls import clean_url

__all__ = ["Asked", "shortest_per_thread"]


class Asked:
    """Per site, the URL form each thread's first page and each board page was asked under."""

    def __init__(self) -> None:
        self.threads: dict[str, str] = {}
        self.boards: dict[str, str] = {}

    def thread(self, thread_id: str | None, url: str) -> bool:
        """Whether to ask for thread ``thread_id``'s first page at ``url``: not asked yet, or
        asked under this very URL (the dupefilter then has the last word)."""
        if thread_id is None:
            return True
        return self.threads.setdefault(thread_id, clean_url(url)) == clean_url(url)

    def board(self, url: str) -> bool:
        """Whether to ask for the board page ``url``: not asked under another trailing slash."""
        parts = urlsplit(clean_url(url))
        key = parts._replace(path=parts.path.rstrip("/") or "/").geturl()
        return self.boards.setdefault(key, clean_url(url)) == clean_url(url)


def shortest_per_thread(links: list[tuple[str, str | None]]) -> set[str]:
    """Of ``(url, thread_id)`` pairs, the URL to keep for each thread: its shortest form."""
    best: dict[str, str] = {}
    for url, tid in links:
        if tid is not None and (tid not in best or len(url) < len(best[tid])):
            best[tid] = url
    return set(best.values())
