"""The learned-template fallback for forums without a profile, page by page.

:class:`LearnedForum` is what the ``forum`` spider calls for a site no profile detects. It has
two states:

* **learning**: pages are kept (at most :attr:`LearnedForum.max_pages`) and every same-site link
  is followed; after each page with a post group it tries :func:`~crawler.learn.learner.learn_site`.
  Once a template comes out, the first pages of the threads seen so far are read with it,
  their later pages by the walk from them (:mod:`crawler.learn.walks`): each page is read
  with the template once, and none is fetched again.
  When the budget is spent without one, the site is not a forum: one line says so and what
  was tried (:attr:`LearnedForum.failure`).
* **applying**: each page is read with the template only: thread pages give a Thread (first page)
  and Posts, board pages give thread and board links, and pagination is followed one page after
  the other with a cursor carrying the post offset and the ids of the posts a next page may
  repeat. A run of thread pages that no longer fit (a new theme) sends it back to learning.

Output is plain data (:class:`Output`), so the spider stays the only place that builds items and
requests; the template is :attr:`LearnedForum.template` (JSON via ``to_json``).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from crawler.learn.apply import read_posts
from crawler.learn.dom import parse
from crawler.learn.emit import (
    is_first_page,
    listed_on,
    next_thread_page,
    post_key,
    post_record,
    thread_record,
)
from crawler.learn.floor import floor_posts
from crawler.learn.forms import Asked, shortest_first, shortest_per_thread, without_views
from crawler.learn.learner import NotLearned, Page, learn_site, url_shape
from crawler.learn.links import Frontier, follow_links, hinted_links, id_hint, views_a_thread
from crawler.learn.page_ids import page_thread_id
from crawler.learn.paging import page_number, page_value, refine_paging, shows_more_pages
from crawler.learn.records import mine_records
from crawler.learn.repeats import drop_repeat, offset_posts, posts_before
from crawler.learn.rows import learned_rows, thread_rows
from crawler.learn.template import Template
from crawler.learn.urls import clean_url
from crawler.learn.walks import Walks, later_pages, read_kept, short_digest, trail

logger = logging.getLogger(__name__)

__all__ = ["LearnedForum", "Output"]


@dataclass
class Output:
    threads: list[dict[str, Any]] = field(default_factory=list)
    posts: list[dict[str, Any]] = field(default_factory=list)
    #: ``(url, kind, cursor)``: kind is ``thread``, ``board`` or ``page``.
    follow: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    #: Set once, when the template was learned on this page (for stats and the log).
    learned: Template | None = None
    #: Thread pages fetched while learning, to read again with the template (fetch them even
    #: though their URLs were seen).
    refetch: list[str] = field(default_factory=list)
    #: Refetched URL -> what its thread-list row showed (reply_count, view_count, last_post_at_raw).
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: ``(url, cursor)``: thread pages fetched before and read here from the kept copy.
    read_here: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def extend(self, other: Output) -> None:
        self.threads += other.threads
        self.posts += other.posts
        self.follow += other.follow
        self.refetch += other.refetch
        self.rows |= other.rows
        self.read_here += other.read_here
        self.learned = self.learned or other.learned


class LearnedForum:
    """Learn a site template on the first pages of a site, then apply it to every page."""

    #: Pages kept while learning; without a template after that many, the site is not a forum.
    max_pages = 40
    #: Pages to wait for a numbered pager (a template learned without one only follows "next").
    patience = 15
    #: Thread pages that must fit no more before the template is learned again.
    relearn_after = 5

    def __init__(self, host: str, template: Template | None = None) -> None:
        self.host = host
        self.template = template
        self.pages: list[Page] = []
        #: URL shape -> pages of that shape with a post group (learning starts at 3 of one shape).
        self.candidates: dict[str, int] = {}
        #: Each URL linked while learning -> its shape ("" once fetched).
        self.linked: dict[str, str] = {}
        self.failure: NotLearned | None = None
        self.misses = 0
        self.passed = 0  # pages kept while learning that held nothing new (not counted)
        self.board_ids: dict[str, str] = {}  # a board's slug -> the number its page writes
        #: A thread said it goes on with no next page found: warned once per site.
        self.warned_no_next = False
        #: Thread id -> its thread-list row, from the listings seen while learning.
        self.rows: dict[str, dict[str, Any]] = {}
        #: Later pages of threads among the pages the template was learned from (clean URLs).
        self.later: set[str] = set()
        #: The walks' pages (a "next" link back to one is a cycle, however long), thread pages
        #: fetched before their walk came to them, and walks waiting for a page.
        self.kept = Walks()
        self.frontier = Frontier()  # each thread once, and pages no pattern places
        self.asked = Asked()  # each first page and board page under one URL form
        #: Read the first pages kept while learning here (else they are fetched again: the
        #: crawl went idle, :meth:`finish`, and items need a response).
        self.read_kept = True

    # -- entry ---------------------------------------------------------------------------------
    def page(self, url: str, text: str, kind: str = "page",
             cursor: dict[str, Any] | None = None) -> Output:
        root = parse(text, url)
        if self.failure is not None:
            return Output()
        if self.template is None:
            return self._learning(Page(url, root))
        return self._apply(url, root, kind, cursor or {})

    # -- learning ------------------------------------------------------------------------------
    def finish(self) -> Output:
        """The crawl ran out of pages while learning (a small site): learn from what was seen,
        without waiting for more; a site that still gives no template is not a forum."""
        if self.template is not None or self.failure is not None or not self.pages:
            return Output()
        self.patience = self.passed = self.max_pages = 0  # learn from the pages seen: now
        self.read_kept = False
        page = self.pages.pop()
        return self._learning(page)

    def _learning(self, page: Page) -> Output:
        records = mine_records(page.root)
        links = without_views(list(follow_links(page.root, page.url)))  # not /last, /unread
        out = Output(follow=[(u, "page", {}) for u in links if self.asked.page(u)])
        if self.pages and not records and links and all(u in self.linked for u in links) \
                and self.passed < 3 * self.max_pages:
            # An empty archive (a month without posts amid the month links) is not counted:
            # the pages that hold posts may lie beyond many of them.
            self.passed += 1
        self.pages.append(page)
        if records:
            shape = url_shape(page.url)
            self.candidates[shape] = self.candidates.get(shape, 0) + 1
        best = max(self.candidates.values(), default=0)
        for link in links:
            if link not in self.linked:
                self.linked[link] = url_shape(link)
        self.linked[clean_url(page.url)] = ""  # fetched
        # One post page among many (a frameset's menus come first): a second one linked
        # already tells the template more than one page can (a counter from an id, a suffix).
        enough = best >= 2 or (best == 1 and not self._awaited())
        spent = len(self.pages) - self.passed >= self.max_pages
        if best >= 3 or (enough and len(self.pages) >= 15) or spent:
            result = learn_site(self.pages, self.host)
            if isinstance(result, Template) and result.paging.regex is None \
                    and len(self.pages) < self.patience:
                return out  # no numbered pager seen yet: a few more pages may show one
            if isinstance(result, Template):
                self.template = result
                out.learned = result
                self.later = later = later_pages(result, self.pages)
                for kept in self.pages:
                    canonical = result.canonical_thread_url(kept.url)
                    if canonical is not None and is_first_page(result, canonical) \
                            and clean_url(canonical) not in later:
                        # First pages only: the walk from a first page goes to its later pages,
                        # so a later page read as a first page too would be read twice.
                        out.refetch.append(canonical)
                out.refetch = shortest_first(list(dict.fromkeys(out.refetch)), result.thread_id)
                out.rows = self._learned_rows(result, out.refetch)
                for kept in self.pages:
                    self._board_number(kept.url, kept.root)
                out.extend(read_kept(self, out))
                self.pages = []
            elif spent:
                self.failure = result
                self.pages = []
        return out

    def _awaited(self) -> bool:
        """Whether a page of the one post page's shape is linked and not fetched yet."""
        shape = next(s for s, n in self.candidates.items() if n)
        return shape in self.linked.values()

    def _learned_rows(self, template: Template, refetch: list[str]) -> dict[str, dict[str, Any]]:
        """The thread-list rows of the pages kept while learning, for the refetched threads."""
        rows = learned_rows(template, self.pages)  # and whether the lists count the opener
        for page in self.pages:
            if board := listed_on(template, page.root, page.url):
                for a in page.root.iter("a"):
                    if (tid := template.thread_id(urljoin(page.url, a.get("href") or ""))):
                        rows.setdefault(tid, {}).setdefault("listed_on", board["listed_on"])
        # Threads queued while learning come without their row: this node keeps the rows seen.
        self.rows = rows
        return {url: rows[tid] for url in refetch if (tid := template.thread_id(url)) in rows}

    # -- applying ------------------------------------------------------------------------------
    def _apply(self, url: str, root: Any, kind: str, cursor: dict[str, Any]) -> Output:
        template = self.template
        assert template is not None
        if template.thread_id(url) is not None:
            canonical = template.canonical_thread_url(url)
            if canonical is None or clean_url(canonical) != clean_url(url):
                # A permalink or a trap view of a thread: its page, if any, comes by its own URL;
                # a first page under a longer URL (``/topic/1/22/1/title``) by its plain one.
                out = Output(follow=self._links(url, root))
                if canonical is not None and is_first_page(template, canonical):
                    out.follow.append((clean_url(canonical), "thread", {}))
                return out
            if template.paging.regex and page_number(template.paging, url) > 1 \
                    and int(cursor.get("page") or 1) == 1:
                cursor = {}  # asked for a first page, redirected to a later one (a /last jump)
            waiting = None if "page" in cursor else self.kept.cursor_for(clean_url(url))
            if waiting is not None:
                return self._thread_page(url, root, waiting)  # its walk's request was a duplicate
            if "page" not in cursor and (
                    page_number(template.paging, url) > 1 or clean_url(url) in self.later
                    or not self.frontier.first_time(template.thread_id(url), url)):
                # A later page reached by a link, not by the walk from its first page, or a
                # first page read already under another URL form (one thread): kept for the
                # walk, which reads it when it comes here. Nor is its next page a thread. A page
                # without posts is no later page of a thread: nothing to park, nor to fetch again.
                if template.posts.data or root.xpath(template.posts.record):
                    self.kept.park(clean_url(url), root)
                tid = template.thread_id(url)
                nxt = next_thread_page(template, root, url, tid)
                ahead = clean_url(template.canonical_thread_url(nxt) or nxt) if nxt else None
                return Output(follow=[f for f in self._crumb_links(url, root) if f[0] != ahead])
            self.kept.cursor_for(clean_url(url))
            out = self._thread_page(url, root, cursor)
            if out.posts or out.threads:
                self.misses = 0
            else:
                self.misses += 1
                if self.misses >= self.relearn_after:
                    logger.warning("The learned template of %(host)s no longer fits its pages; "
                                   "learning again", {"host": self.host})
                    self.template, self.candidates, self.misses = None, {}, 0
            return out
        self._board_number(url, root)
        return Output(follow=self._links(url, root, listing=True))

    def _board_number(self, url: str, root: Any) -> None:
        template = self.template
        assert template is not None
        if (bid := template.board_id(url)) and (n := page_thread_id(template.board_id_in_page,
                                                                    root)):
            self.board_ids[bid] = n

    def _links(self, url: str, root: Any,
               listing: bool = False) -> list[tuple[str, str, dict[str, Any]]]:
        """Links to follow; from a listing (not a thread page) each thread carries its row."""
        template = self.template
        assert template is not None
        follow = []
        counts_posts = template.list_counts_posts
        rows = thread_rows(root, url, template.thread_id, counts_posts) if listing else {}
        listed = listed_on(template, root, url) if listing else {}
        thread_hint, here = id_hint(template.thread_url, "tid"), template.thread_id(url)
        hints = tuple(h for h in (thread_hint, id_hint(template.board_url, "bid")) if h)
        unsure = listing and self.frontier.budget > 0  # every link, to find those it places not
        hinted = len(hints) == (2 if template.board_url else 1) and not unsure
        unplaced: list[str] = []
        links = list(hinted_links(root, url, hints) if hinted else follow_links(root, url))
        firsts = [(c, template.thread_id(c)) for c in map(template.canonical_thread_url, links)
                  if c and page_value(template.paging, c) == template.paging.base]
        shortest = shortest_per_thread(firsts)  # /9-slug, not /9-slug/, /9-slug/0 or /last
        for link in links:
            if template.thread_id(link) is not None:
                canonical = template.canonical_thread_url(link)
                tid = template.thread_id(canonical) if canonical else None
                if canonical in shortest and not self.frontier.read_elsewhere(tid, canonical) \
                        and self.asked.thread(tid, canonical):
                    follow.append((canonical, "thread", {**rows.get(tid or "", {}), **listed}))
            elif template.board_id(link) is None and views_a_thread(thread_hint, link, url, here):
                continue  # a print view or frameset of a thread: the thread by its own URL
            elif template.board_id(link) is not None or template.board_url is None:
                if not template.board_url or self.asked.page(link):
                    follow.append((link, "board" if template.board_url else "page", {}))
            else:
                unplaced.append(link)
        # A listing where the template places no link: it is unsure, and follows them all.
        return follow or [(u, "page", {}) for u in unplaced if listing and self.frontier.unsure()]

    def _thread_page(self, url: str, root: Any, cursor: dict[str, Any]) -> Output:
        template = self.template
        assert template is not None
        tid = template.thread_id(url) or ""
        if template.paging.regex is None:
            if refine_paging(template, root, url):
                logger.info("Learned the thread pagination of %(host)s from %(url)s",
                            {"host": self.host, "url": url})
        number = int(cursor.get("page") or page_number(template.paging, url))
        offset = self._offset(url, number, cursor)
        posts = read_posts(template, root, url) or floor_posts(root, url)  # another layout: alone
        posts = drop_repeat(template, number, posts, cursor)  # a post of a page before, on top
        out = Output()
        kept: list[dict[str, Any]] = []
        ids: set[str] = set()
        for post in posts:
            key = post_key(post)
            if key in ids or not post["body_html"]:
                continue
            ids.add(key)
            kept.append(post)
        if number == 1 and not template.posts_per_page \
                and next_thread_page(template, root, url, tid):
            template.posts_per_page = len(kept)  # a full first page: the site's page size
        owner, seen = self.frontier.owner(tid, [p["digest"] for p in kept])  # one thread, 2 URLs
        read = [post_record(template, p, owner, url, (offset or 0) + i + 1
                            if p["position"] is None else p["position"])
                for i, p in enumerate(kept)]
        out.posts = [p for p, post in zip(read, kept, strict=True) if post["digest"] not in seen]
        if number == 1 and read and owner == tid:
            # No posts on a thread URL: an error page ("no permission"), not a thread.
            row = {**self.rows.get(tid, {}), **cursor}
            out.threads.append(thread_record(template, root, url, tid, read, row))
        if written := page_thread_id(template.thread_id_in_page, root):  # a slug URL's number
            for record in [*out.posts, *out.threads]:
                record["thread_id"] = written
        for thread in out.threads:  # a board named by a slug: the number its page writes
            thread["board"].id = self.board_ids.get(thread["board"].id or "", thread["board"].id)
        nxt = next_thread_page(template, root, url, tid)
        nxt = template.canonical_thread_url(nxt) if nxt else None
        walk_id = str(cursor.get("walk_id") or secrets.token_hex(4))  # a walk starts here
        if nxt and not (self._forward(url, nxt, cursor) and self.kept.ahead(walk_id, url, nxt)):
            nxt = None  # a "next" link back to a page of this walk: a cycle, followed once
        if nxt is None and not self.warned_no_next and shows_more_pages(root):
            self.warned_no_next = True
            logger.warning("%(url)s says its thread goes on, but no link to the next page was "
                           "found (said once for %(host)s)", {"url": url, "host": self.host})
        if nxt and clean_url(nxt) != clean_url(url):
            state = {"page": number + 1, "offset": (offset or 0) + len(kept),
                     "walk": trail(url, cursor), "walk_id": walk_id,
                     "first": cursor.get("first") or (url if number == 1 else None)}
            if kept:
                state["last"] = post_key(kept[-1])
                state["op"] = cursor.get("op") or (post_key(kept[0]) if number == 1 else None)
            state = {k: v for k, v in state.items() if v is not None}
            out.extend(self._step(clean_url(nxt), state))
        # From a thread page only its board (the breadcrumb trail): threads come from boards.
        # Not its next page as a thread of its own (where page URLs carry no number, the
        # next page looks like a first page): read so, it would start a second walk, and
        # every page a walk of its own (a thread of N pages read N * N / 2 times).
        ahead = clean_url(nxt) if nxt else None
        out.follow += [f for f in self._crumb_links(url, root) if f[0] != ahead]
        return out

    def _step(self, url: str, state: dict[str, Any]) -> Output:
        if (root := self.kept.take(url)) is not None:  # fetched already: read here
            out = self._thread_page(url, root, state)
            out.read_here.insert(0, (url, state))
            return out
        self.kept.wait(url, state)
        return Output(follow=[(url, "thread", state)])

    def _forward(self, url: str, nxt: str, cursor: dict[str, Any]) -> bool:
        """Whether ``nxt`` is a page this walk has not read: a later page number where the
        pages are numbered, else a URL not among the walk's last ones."""
        template = self.template
        assert template is not None
        if template.paging.regex:
            return page_value(template.paging, nxt) > page_value(template.paging, url)
        return short_digest(clean_url(nxt)) not in trail(url, cursor)

    def _crumb_links(self, url: str, root: Any) -> list[tuple[str, str, dict[str, Any]]]:
        template = self.template
        assert template is not None
        if not template.breadcrumbs or not template.board_url:
            here = clean_url(url)
            return [f for f in self._links(url, root)
                    if f[1] != "thread" or f[0] != here]
        follow = []
        for node in root.xpath(template.breadcrumbs):
            href = urljoin(url, node.get("href") or "")
            if template.board_id(href) is not None:
                follow.append((clean_url(href), "board", {}))
        return follow

    def _offset(self, url: str, number: int, cursor: dict[str, Any]) -> int | None:
        """Posts before this page: from an offset URL, the cursor, or page size times pages."""
        template = self.template
        assert template is not None
        if template.paging.is_offset:
            return offset_posts(template, page_value(template.paging, url) - template.paging.base)
        if "offset" in cursor:
            return int(cursor["offset"])
        return posts_before(template, number)
