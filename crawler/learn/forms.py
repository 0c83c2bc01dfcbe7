"""One page, one request: the URL forms a listing links one thread or board page under.

A board list links a thread as ``/9-slug`` and again as ``/9-slug/``, ``/9-slug/0`` (its first
posts), ``/9-slug/last`` or ``/unread`` (jumps, redirecting to some page of it): seen on
esoTalk, Misago and others. Each form is another URL to the dupefilter, and each costs a request
(a jump costs its redirect, and lands on a page without the walk's cursor). A thread's first
page is asked for once, under its shortest form on the listing; a board page once, whatever
its trailing slash. The walk asks for the later pages one by one from the first.

Before a template is learned every link is followed, yet two forms are told apart by the links
alone: a trailing-slash twin of a page asked for already, and a view ``X/word`` of a link ``X``
on the same page whose word (letters only) follows two or more such links (``/last`` and
``/unread`` beside each thread of a list). A page number is no view: it has digits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from urllib.parse import urlsplit

from crawler.learn.urls import clean_url

__all__ = ["Asked", "shortest_first", "shortest_per_thread", "without_views"]


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

    def page(self, url: str) -> bool:
        """Whether to ask for the page ``url`` (a board page, any page while learning): not
        asked under another trailing slash."""
        return self.boards.setdefault(_stem(url), clean_url(url)) == clean_url(url)


def shortest_per_thread(links: list[tuple[str, str | None]]) -> set[str]:
    """Of ``(url, thread_id)`` pairs, the URL to keep for each thread: its shortest form."""
    best: dict[str, str] = {}
    for url, tid in links:
        if tid is not None and (tid not in best or len(url) < len(best[tid])):
            best[tid] = url
    return set(best.values())


def shortest_first(urls: list[str], thread_id: Callable[[str], str | None]) -> list[str]:
    """``urls`` with each thread's forms shortest first (``read.php?2,75`` before its last-post
    form ``read.php?2,75,83``): the first form read names the thread's records, and the order
    the pages arrived in while learning must not decide it."""
    forms: dict[str, list[str]] = {}
    for url in urls:
        forms.setdefault(thread_id(url) or url, []).append(url)
    return [url for group in forms.values() for url in sorted(group, key=len)]


def without_views(links: list[str]) -> list[str]:
    """``links`` of one page less the views of another of them: ``X/word`` where ``X`` is
    linked too and the same word of letters follows two or more such links."""
    stems = {_stem(url) for url in links}
    heads: dict[str, set[str]] = defaultdict(set)
    for url in links:
        head, word = _view(url, stems)
        if head:
            heads[word].add(head)
    views = {word for word, seen in heads.items() if len(seen) >= 2}
    return [url for url in links if _view(url, stems)[1] not in views]


def _view(url: str, stems: set[str]) -> tuple[str, str]:
    """``(X, word)`` when ``url`` is ``X/word`` (no query) with ``X`` among ``stems``."""
    stem = _stem(url)
    head, _, word = stem.rpartition("/")
    if "?" in stem or not word.isalpha() or head not in stems:
        return "", ""
    return head, word


def _stem(url: str) -> str:
    """``url`` cleaned, its path without a trailing slash: one key for both forms."""
    parts = urlsplit(clean_url(url))
    return parts._replace(path=parts.path.rstrip("/") or "/").geturl()
