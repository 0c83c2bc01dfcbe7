"""The learned-template fallback: forums without a profile, read with a template learned on
their first pages (:mod:`crawler.learn`).

The one fallback (``fallback_order`` 100). It accepts any start page; the site is then learned
(record mining, structured data, pagination, URL shapes) and read with the template. A site that
turns out not to be a forum ends the crawl with one line saying so and what was tried (close
reason ``not_a_forum``). Templates live in :mod:`crawler.profiles.learned_store`.

Stats: ``learn/learned`` and ``learn/source/<html|microdata|jsonld|json>`` once a template is
learned,
``learn/quirks/<repeats_first_post|repeats_last_post>``, ``learn/not_a_forum``, and
``learn/cpu_ms``: the CPU time of the pages read while learning (the one-off cost of a site,
apart from reading with the template; the bench subtracts it); ``learn/walks_refetched``:
thread pages fetched again when the crawl went idle, for walks a host's move to another node
broke (:func:`_stalled_walks`).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, ClassVar, Self
from urllib.parse import urlsplit

from scrapy import Request, signals
from scrapy.exceptions import CloseSpider, DontCloseSpider

from crawler.learn.paging import page_number
from crawler.learn.urls import clean_url
from crawler.learn.walks import covered
from crawler.profiles.base import ForumProfile, PageCursor, PageKind
from crawler.profiles.learned_store import MemoryTemplateStore, store_for
from crawler.profiles.records import (
    Follow,
    PageResult,
    PostRecord,
    ThreadPage,
    ThreadRecord,
    ThreadRef,
)

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response, TextResponse
    from scrapy.statscollectors import StatsCollector

    from crawler.learn.strategy import LearnedForum, Output

logger = logging.getLogger(__name__)

__all__ = ["Learned", "finish_learning", "page_result"]


class Learned(ForumProfile):
    """Learn a site template, then read every page with it."""

    name: ClassVar[str] = "learned"
    fallback_order: ClassVar[int | None] = 100

    def __init__(
        self, store: MemoryTemplateStore | None = None, stats: StatsCollector | None = None
    ) -> None:
        self.store = store or MemoryTemplateStore()
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        store = store_for(crawler)
        if store.idle is None:
            store.idle = _IdleFlush(crawler, store)  # signals hold receivers weakly
            crawler.signals.connect(store.idle.on_idle, signal=signals.spider_idle)
        return cls(store, crawler.stats)

    @classmethod
    def detect(cls, response: Response) -> bool:
        return hasattr(response, "text")

    def classify(self, url: str) -> PageKind | None:
        return PageKind.PAGE

    # The spider calls read(); the four hooks are for engines with fixed selectors.
    def board_links(self, response: TextResponse) -> list[PageCursor]:
        return []

    def thread_refs(self, response: TextResponse, cursor: PageCursor) -> list[ThreadRef]:
        return []

    def next_page(self, response: TextResponse, cursor: PageCursor) -> PageCursor | None:
        return None

    def parse_thread(
        self, response: TextResponse, cursor: PageCursor, ref: ThreadRef | None
    ) -> ThreadPage:
        result = self.read(response, PageKind.THREAD, cursor, ref)
        return ThreadPage(thread=result.thread, posts=result.posts, next=None, stats=result.stats)

    def read(
        self, response: TextResponse, kind: PageKind, cursor: PageCursor, ref: ThreadRef | None
    ) -> PageResult:
        host = urlsplit(response.url).netloc
        learner = self.store.learner(host)
        already_failed = learner.failure is not None
        state = {**cursor.extra, "page": cursor.page} if cursor.page != 1 or cursor.extra else {}
        learning = learner.template is None and not already_failed
        # a walk's cursor waiting for this page (its own request was a duplicate): read with it
        waiting = dict(learner.kept.waiting.get(clean_url(response.url)) or {})
        started = time.process_time()
        out = learner.page(response.url, response.text, str(kind), state)
        if learning and self.stats is not None:
            self.stats.inc_value("learn/cpu_ms", round((time.process_time() - started) * 1000))
        if learner.failure is not None:
            if not already_failed:
                logger.error("%(host)s: %(why)s", {"host": host, "why": learner.failure})
                raise CloseSpider("not_a_forum")
            return PageResult(stats=["learn/pages_after_giving_up"])
        if out.learned is not None:
            self.store.save(host, out.learned)
            logger.info(
                "Learned a template for %(host)s from %(pages)d pages: posts %(record)s",
                {
                    "host": host,
                    "pages": len(out.learned.learned_from),
                    "record": out.learned.posts.record,
                },
            )
            logger.debug(
                "Template of %(host)s: %(json)s", {"host": host, "json": out.learned.to_json()}
            )
        result = page_result(out)
        template = learner.template
        tid = template.thread_id(response.url) if template and kind is PageKind.PAGE else None
        if tid is not None:
            # asked for while learning, as a page of unknown role: a thread's, so no listing;
            # a first page with the row its board showed then (kept by the learner), a later
            # one with its walk's cursor (it names the first page)
            first = page_number(template.paging, response.url) == 1
            extra = learner.rows.get(tid, {}) if first else waiting
            cursor = PageCursor(url=response.url, page=int(extra.pop("page", 1)), extra=extra)
            result.follow.append(Follow(PageKind.THREAD, cursor, read_here=True))
        return result


def finish_learning(
    crawler: Crawler, spider: Spider, store: MemoryTemplateStore, learner: LearnedForum
) -> list[Request]:
    """The crawl went idle while ``learner`` was still learning: learn now; the thread pages
    seen are fetched again to be read with the template. Not a forum: the one line, no requests."""
    started = time.process_time()
    out = learner.finish()
    crawler.stats.inc_value("learn/cpu_ms", round((time.process_time() - started) * 1000))
    if learner.failure is not None:
        crawler.stats.inc_value("learn/not_a_forum")
        logger.error("%(host)s: %(why)s", {"host": learner.host, "why": learner.failure})
        return []
    if out.learned is None:
        return []
    store.save(learner.host, out.learned)
    for key in page_result(out).stats:
        crawler.stats.inc_value(key)
    logger.info("Learned a template for %(host)s when the crawl went idle", {"host": learner.host})
    return [
        Request(url, callback=spider.parse_page, dont_filter=True, priority=10,
                cb_kwargs={"engine": Learned.name, "kind": str(PageKind.THREAD),
                           "cursor": PageCursor(url=url, extra=out.rows.get(url, {})).as_dict()})
        for url in out.refetch
    ]


class _IdleFlush:
    """A small site can run out of pages before its learner saw enough: when the crawl goes
    idle, every learner still learning finishes with what it has."""

    def __init__(self, crawler: Crawler, store: MemoryTemplateStore) -> None:
        self.crawler = crawler
        self.store = store

    def on_idle(self, spider: Spider) -> None:
        requests = []
        logger.debug("Idle: %(n)d hosts still learning", {"n": len(self.store.learning())})
        for learner in self.store.learning():
            requests += finish_learning(self.crawler, spider, self.store, learner)
        for learner in self.store.learners():
            requests += _stalled_walks(self.crawler, spider, learner)
        for request in requests:
            self.crawler.engine.crawl(request)
        if requests:
            raise DontCloseSpider


def _stalled_walks(crawler: Crawler, spider: Spider, learner: LearnedForum) -> list[Request]:
    """Walks still waiting for a page when the crawl went idle: their request was a duplicate
    of one whose page never came to this node (another node fetched it before taking the
    host over, or it failed). Fetched again for them: the walk goes on, nothing is lost.
    So are later pages parked for a walk that never came (it was on a node that left), unless
    their posts were all read already (the walk went through other URL forms of them)."""
    template, waiting = learner.template, learner.kept.waiting
    for url in list(learner.kept.parked) if template is not None else []:
        if page_number(template.paging, url) > 1:  # its number tells its posts' positions
            root = learner.kept.parked.pop(url)
            if not covered(learner, url, root):  # else its walk read them under other URLs
                waiting.setdefault(url, {"page": page_number(template.paging, url)})
    requests = []
    while waiting:
        url, state = waiting.popitem(last=False)
        extra = {k: v for k, v in state.items() if k != "page"}
        cursor = PageCursor(url=url, page=int(state.get("page", 1)), extra=extra)
        meta = {"revisit_key": extra["first"]} if "first" in extra else {}
        cb_kwargs = {
            "engine": Learned.name, "kind": str(PageKind.THREAD), "cursor": cursor.as_dict()
        }
        requests.append(Request(url, callback=spider.parse_page, dont_filter=True, priority=10,
                                meta=meta, cb_kwargs=cb_kwargs))
    if requests:
        crawler.stats.inc_value("learn/walks_refetched", len(requests))
    return requests


def page_result(out: Output) -> PageResult:
    """What the spider takes from one page the learner read: thread, posts, links, stats."""
    stats = []
    if out.learned is not None:
        stats += ["learn/learned", f"learn/source/{out.learned.source}"]
        quirks = ("repeats_first_post", "repeats_last_post")
        stats += [f"learn/quirks/{q}" for q in quirks if getattr(out.learned, q)]
    follow = []
    for url, kind, state in out.follow:
        page = int(state.get("page", 1))
        extra = {k: v for k, v in state.items() if k != "page"}
        cursor = PageCursor(url=url, page=page, extra=extra)
        # A walk's next page is a plain request: one fetched already (a duplicate) is read by
        # the learner from the page it kept, or with the walk's cursor when it comes.
        follow.append(Follow(PageKind(kind), cursor))
    follow += [
        Follow(PageKind.THREAD, PageCursor(url=url, extra=out.rows.get(url, {})), dont_filter=True)
        for url in out.refetch
    ]
    for url, state in out.read_here:
        extra = {k: v for k, v in state.items() if k != "page"}
        cursor = PageCursor(url=url, page=int(state.get("page", 1)), extra=extra)
        follow.append(Follow(PageKind.THREAD, cursor, read_here=True))
    return PageResult(
        # The page's own thread, then those of pages kept while learning and read now.
        thread=ThreadRecord(**out.threads[0]) if out.threads else None,
        more_threads=[ThreadRecord(**fields) for fields in out.threads[1:]],
        posts=[PostRecord(**fields) for fields in out.posts],
        follow=follow,
        stats=stats,
    )


