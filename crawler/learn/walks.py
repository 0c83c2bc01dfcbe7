"""The walks through threads' pages: cycles of "next" links, and thread pages a learner has
already, read instead of fetched again (each URL fetched once).

A thread's pages are read by a *walk* from its first page, one after the other, with a cursor
(positions, posts a page repeats). A later page may be fetched before its walk comes to it:
while the site is learned (every link is followed then), or through a link from a board. It is
parked here, and the walk reads it when it gets there. The other way round, a walk's request
for a page asked for already is a duplicate that the scheduler drops: the walk's cursor waits
here, and the page is read with it when the other request brings it.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from crawler.learn.apply import read_posts
from crawler.learn.emit import is_first_page, next_thread_page
from crawler.learn.urls import clean_url

if TYPE_CHECKING:
    from crawler.learn.learner import Page
    from crawler.learn.strategy import LearnedForum, Output
    from crawler.learn.template import Template

__all__ = ["Walks", "covered", "later_pages", "read_kept", "short_digest", "trail"]

#: Walks whose pages a node keeps (:meth:`Walks.ahead`): about 11 bytes a page.
_WALKS_KEPT = 2_000


class Walks:
    """Per site: the pages of the latest walks (walk id -> digests), parked pages (clean URL
    -> parsed page) and waiting walk cursors (clean URL -> cursor), the latest ``limit``."""

    def __init__(self, limit: int = 500) -> None:
        self.limit = limit
        self.walked: OrderedDict[str, set[str]] = OrderedDict()
        self.parked: OrderedDict[str, Any] = OrderedDict()
        self.waiting: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def ahead(self, walk_id: str, url: str, nxt: str) -> bool:
        """Whether walk *walk_id*, now at *url*, has not been to ``nxt`` yet (then it goes).
        The walk's own list (:func:`trail`) holds its last 50 pages only, so a thread of
        more pages whose last page links back to page 2 is caught here: this node keeps
        every page of its latest walks (a walk that moves to another node is caught there
        after 50 pages, or at once where pages are numbered)."""
        pages = self.walked.pop(walk_id, None)
        if pages is None:
            pages = {short_digest(clean_url(url))}
        self.walked[walk_id] = pages  # the latest last
        _trim(self.walked, _WALKS_KEPT)
        step = short_digest(clean_url(nxt))
        if step in pages:
            return False
        pages.add(step)
        return True

    def park(self, url: str, root: Any) -> None:
        self.parked[url] = root
        _trim(self.parked, self.limit)

    def take(self, url: str) -> Any | None:
        """The page parked under ``url`` (then no longer parked), else ``None``."""
        return self.parked.pop(url, None)

    def wait(self, url: str, cursor: dict[str, Any]) -> None:
        self.waiting[url] = cursor
        _trim(self.waiting, self.limit)

    def cursor_for(self, url: str) -> dict[str, Any] | None:
        """The cursor of the walk waiting for ``url`` (then no longer waiting), else ``None``."""
        return self.waiting.pop(url, None)


def read_kept(forum: LearnedForum, out: Output) -> Output:
    """Read the pages ``forum`` fetched while learning with its new template, here: the first
    page of each thread (``out.refetch``), its walk going on through the kept later pages; a
    first page not kept is asked for. Only when the crawl went idle (``forum.read_kept``
    false) are the first pages fetched again, and their walks still read the kept pages."""
    template = forum.template
    assert template is not None
    kept = {clean_url(p.url): p.root for p in forum.pages}
    for url, root in kept.items():
        if template.thread_id(url) is not None and url not in out.refetch:
            forum.kept.park(url, root)
    read = type(out)()
    if not forum.read_kept:
        return read
    for url in out.refetch:
        row, tid = dict(out.rows.get(url, {})), template.thread_id(url)
        root = kept.get(clean_url(url))
        if root is None:
            if not forum.frontier.read_elsewhere(tid, url):
                read.follow.append((url, "thread", row))
        elif forum.frontier.first_time(tid, url):  # else one thread under two URL forms
            read.read_here.append((url, row))
            read.extend(forum._thread_page(url, root, row))
    out.refetch, out.rows = [], {}
    return read


def covered(forum: LearnedForum, url: str, root: Any) -> bool:
    """Whether a parked later page holds only posts read already: its thread's walk went
    through other URL forms of its pages (``msg=9.21`` beside a list's link to ``msg=9.27``)."""
    assert forum.template is not None
    return forum.frontier.read_before([p["digest"] for p in read_posts(forum.template, root, url)])


def later_pages(template: Template, pages: list[Page]) -> set[str]:
    """The ``pages`` kept while learning that another kept page links to as its "next": later
    pages of a thread, whatever their URLs say (where page URLs carry no number, each
    looks like a first page, and each refetched as one would start a walk of its own).
    Where pages are numbered, a "next" to a first page is not a later page: it is the next
    thread (``rel=next`` on a thread's last page, ``topic=13.0;prev_next=next``)."""
    later = set()
    for kept in pages:
        tid = template.thread_id(kept.url)
        nxt = next_thread_page(template, kept.root, kept.url, tid) if tid is not None else None
        nxt = clean_url(template.canonical_thread_url(nxt) or nxt) if nxt else None
        if nxt and nxt != clean_url(kept.url) and not (
                template.paging.regex and is_first_page(template, nxt)):
            later.add(nxt)
    return later


def trail(url: str, cursor: dict[str, Any]) -> list[str]:
    """Short digests of the pages this walk read (the last 50): enough to see a cycle of
    "next" links, small enough to travel with each request."""
    return [*cursor.get("walk", [])[-49:], short_digest(clean_url(url))]


def short_digest(url: str) -> str:
    return hashlib.sha1(url.encode()).hexdigest()[:10]


def _trim(entries: OrderedDict[str, Any], limit: int) -> None:
    while len(entries) > limit:
        entries.popitem(last=False)
