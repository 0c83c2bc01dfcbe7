"""The shared forum spider, driven by an engine profile.

``scrapy crawl forum -a start_url=URL`` detects the engine from the first response
(stats ``profiles/detected/<engine>``, plus ``profiles/detected/<engine>/<version>`` when a
nested markup version reads the page, or ``profiles/undetected``); ``scrapy crawl <engine>
-a start_url=URL`` (one spider per entry of :data:`crawler.profiles.PROFILES`) skips engine
detection. Either way each page is read by the engine's version that matches it
(:meth:`~crawler.profiles.base.ForumProfile.for_page`: vBulletin 3 and 4 are one engine).

Crawl order is breadth-first by level through request priorities: index, then boards and all
their thread-list pages, then threads and all their pages. The engine name, page kind, cursor
and thread-list row travel in ``cb_kwargs`` as plain values, so any node of a cluster can
continue a request another node created.

Spider arguments: ``start_url`` (required), ``timezone`` (IANA name, overrides the profile's),
``profile=none`` (no engine detection: read the site with a learned template, as for a site
no profile knows; for checking the fallback on engines that have a profile).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, ClassVar
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import scrapy
from scrapy.exceptions import CloseSpider
from scrapy.http import Response, TextResponse

from crawler.items import Post, Thread
from crawler.learn.strategy import LearnedForum
from crawler.pipelines import ITEM_PIPELINES
from crawler.profiles import PROFILES, Generic, detect_profile, get_profile
from crawler.profiles.base import ForumProfile, PageCursor, PageKind, ThreadRef

logger = logging.getLogger(__name__)

# Higher runs first: finish the listing levels before descending (breadth-first per level).
PRIORITY = {PageKind.INDEX: 30, PageKind.BOARD: 20, PageKind.PAGE: 15, PageKind.THREAD: 10}

FORUM_SETTINGS: dict[str, Any] = {
    "ITEM_PIPELINES": ITEM_PIPELINES,
    # After HttpCompressionMiddleware (590) on the way back, so it sees the decoded body.
    "DOWNLOADER_MIDDLEWARES": {"crawler.encoding.CharsetMiddleware": 580},
    # Scrapy 2.19 creates CONCURRENT_ITEMS tasks per response; 8 is plenty for forum pages.
    "CONCURRENT_ITEMS": 8,
    "FEED_EXPORT_ENCODING": "utf-8",
}


class ForumSpider(scrapy.Spider):
    """Crawl one forum from ``start_url`` with a profile (given or detected)."""

    name = "forum"
    profile_class: ClassVar[type[ForumProfile] | None] = None
    custom_settings: ClassVar[dict[str, Any]] = FORUM_SETTINGS

    def __init__(
        self, start_url: str | None = None, timezone: str | None = None, profile: str | None = None, **kwargs: Any
    ):
        super().__init__(**kwargs)
        #: ``-a profile=none``: skip engine detection, read the site with the learned template.
        self.use_profiles = (profile or "").lower() not in ("none", "off", "learn", "learned")
        self.check_arguments(start_url=start_url, timezone=timezone)
        assert start_url is not None  # checked above; for the type checker
        self.start_url = start_url
        self.site_timezone = timezone
        self.site = urlsplit(start_url).netloc
        # Subdomains included (www. dropped), so http/https and www redirects stay on site.
        self.allowed_domains = [site_domain(start_url)]
        self.default_charset = self.profile_class.default_charset if self.profile_class else None
        #: The learned-template fallback, one per host (sites without a profile).
        self.learned: dict[str, LearnedForum] = {}

    @staticmethod
    def check_arguments(start_url: str | None = None, timezone: str | None = None, **_: Any) -> None:
        """One-line ``ValueError`` for bad ``-a`` arguments (``scrapy crawl`` calls it up front)."""
        check_start_url(start_url)
        check_timezone(timezone)

    async def start(self) -> AsyncIterator[scrapy.Request]:
        yield scrapy.Request(self.start_url, callback=self.parse_start, dont_filter=True)

    # -- entry -------------------------------------------------------------------------------
    def parse_start(self, response: Response) -> Iterator[Any]:
        profile_cls = self.profile_class or (self._detect(response) if self.use_profiles else Generic)
        if profile_cls is None:
            return
        self.default_charset = profile_cls.default_charset
        profile = profile_cls.for_page(response)()
        if isinstance(profile, Generic):
            yield from self.parse_page(
                response, engine=profile.name, kind=PageKind.PAGE, cursor=PageCursor(response.url).as_dict()
            )
            return
        kind = profile.classify(response.url) or PageKind.INDEX
        cursor = PageCursor(url=profile.canonicalize(response.url))
        api_url = profile.request_url(kind, response.url)
        if api_url != response.url:
            yield self._request(profile, kind, cursor.url)
            return
        yield from self.parse_page(response, engine=profile.name, kind=kind, cursor=cursor.as_dict())

    def _detect(self, response: Response) -> type[ForumProfile] | None:
        found = detect_profile(response)
        if found is None:
            self.crawler.stats.inc_value("profiles/undetected")
            self.crawler.stats.inc_value("profiles/fallback/generic")
            logger.warning(
                "No forum profile matches %(url)s; using the generic fallback (schema.org, post blocks)",
                {"url": response.url},
                extra={"spider": self},
            )
            return Generic
        self.crawler.stats.inc_value(f"profiles/detected/{found.name}")
        engine = found.name
        version = found.for_page(response).version
        if version:
            self.crawler.stats.inc_value(f"profiles/detected/{found.name}/{version}")
            engine = f"{found.name} {version}"
        logger.info("Detected %(engine)s at %(url)s", {"engine": engine, "url": response.url})
        return found

    # -- pages -------------------------------------------------------------------------------
    def parse_page(
        self,
        response: Response,
        engine: str,
        kind: str,
        cursor: dict[str, Any] | None = None,
        ref: dict[str, Any] | None = None,
    ) -> Iterator[Any]:
        profile_cls = get_profile(engine)
        if profile_cls is None or not isinstance(response, TextResponse):
            return
        # The engine travels by name; its markup version is read off each page (vBulletin 3/4).
        profile = profile_cls.for_page(response)()
        page_kind = PageKind(kind)
        self.crawler.stats.inc_value(f"forum/pages/{page_kind}")
        if profile.is_soft_404(response):
            self.crawler.stats.inc_value("forum/soft_404")
            logger.debug("Soft 404 at %(url)s", {"url": response.url})
            return
        page_cursor = PageCursor.from_dict(cursor, url=response.url)
        if isinstance(profile, Generic):
            yield from self._generic_page(profile, response, page_kind, page_cursor)
        elif page_kind is PageKind.THREAD:
            yield from self._thread_page(profile, response, page_cursor, ref)
        else:
            yield from self._listing_page(profile, response, page_kind, page_cursor)

    def _listing_page(
        self, profile: ForumProfile, response: TextResponse, kind: PageKind, cursor: PageCursor
    ) -> Iterator[scrapy.Request]:
        for board in profile.board_links(response):
            yield self._request(profile, PageKind.BOARD, board.url, cursor=board)
        if kind is PageKind.INDEX:
            return
        for ref in profile.thread_refs(response, cursor):
            yield self._request(profile, PageKind.THREAD, ref.url, ref=ref)
        nxt = profile.next_page(response, cursor)
        if nxt is not None:
            yield self._request(profile, PageKind.BOARD, nxt.url, cursor=nxt)

    def _thread_page(
        self,
        profile: ForumProfile,
        response: TextResponse,
        cursor: PageCursor,
        ref: dict[str, Any] | None,
    ) -> Iterator[Any]:
        thread_ref = ThreadRef.from_dict(ref) if ref else None
        page = profile.parse_thread(response, cursor, thread_ref)
        crawled_at = fetch_time(response)
        if page.thread is not None:
            yield Thread(site=self.site, engine=profile.name, crawled_at=crawled_at, **page.thread)
        for fields in page.posts:
            yield Post(site=self.site, engine=profile.name, crawled_at=crawled_at, **fields)
        if page.next is not None:
            # The list row only feeds the Thread item of page 1: later pages travel without it.
            yield self._request(profile, PageKind.THREAD, page.next.url, cursor=page.next)

    def _generic_page(
        self, profile: Generic, response: TextResponse, kind: PageKind, cursor: PageCursor
    ) -> Iterator[Any]:
        """Sites without a profile: the learned template (:mod:`crawler.learn`)."""
        host = urlsplit(response.url).netloc
        strategy = self.learned.setdefault(host, LearnedForum(host))
        state = {**cursor.extra, "page": cursor.page} if cursor.page != 1 or cursor.extra else {}
        out = strategy.page(response.url, response.text, str(kind), state)
        stats = self.crawler.stats
        if out.learned is not None:
            stats.inc_value("profiles/fallback/learned")
            stats.set_value(f"learn/template/{host}", out.learned.source)
            for quirk in ("repeats_first_post", "repeats_last_post"):
                if getattr(out.learned, quirk):
                    stats.inc_value(f"learn/quirks/{quirk}")
            logger.info(
                "Learned a template for %(host)s from %(pages)d pages: posts %(record)s",
                {"host": host, "pages": len(out.learned.learned_from), "record": out.learned.posts.record},
                extra={"spider": self},
            )
            logger.debug("Template of %(host)s: %(json)s", {"host": host, "json": out.learned.to_json()})
        if strategy.failure is not None and not getattr(strategy, "reported", False):
            strategy.reported = True  # type: ignore[attr-defined]
            stats.inc_value("learn/not_a_forum")
            logger.error("%(host)s: %(why)s", {"host": host, "why": strategy.failure}, extra={"spider": self})
            raise CloseSpider("not_a_forum")
        crawled_at = fetch_time(response)
        for fields in out.threads:
            yield Thread(site=self.site, engine=profile.name, crawled_at=crawled_at, **fields)
        for fields in out.posts:
            yield Post(site=self.site, engine=profile.name, crawled_at=crawled_at, **fields)
        for url, page_kind, state in out.follow:
            nxt = PageCursor(url=url, page=int(state.get("page", 1)),
                             extra={k: v for k, v in state.items() if k != "page"})
            request = self._request(profile, PageKind(page_kind), url, cursor=nxt)
            # A thread's next page is walked in order (positions, repeated posts) even when
            # the page was already fetched while the template was being learned.
            yield request.replace(dont_filter=True) if nxt.page > 1 and page_kind == "thread" else request

    def _request(
        self,
        profile: ForumProfile,
        kind: PageKind,
        url: str,
        cursor: PageCursor | None = None,
        ref: ThreadRef | None = None,
    ) -> scrapy.Request:
        cursor = cursor or PageCursor(url=url)
        cb_kwargs: dict[str, Any] = {"engine": profile.name, "kind": str(kind)}
        if cursor.as_dict():
            cb_kwargs["cursor"] = cursor.as_dict()
        if ref is not None:
            cb_kwargs["ref"] = ref.as_dict()
        return scrapy.Request(
            profile.request_url(kind, cursor.url),
            callback=self.parse_page,
            priority=PRIORITY[kind],
            cb_kwargs=cb_kwargs,
        )


def check_start_url(start_url: str | None) -> None:
    if not start_url:
        raise ValueError("give the site to crawl: -a start_url=URL")
    if not start_url.startswith(("http://", "https://")):
        raise ValueError(f"start_url {start_url!r} must start with http:// or https://")


def check_timezone(timezone: str | None) -> None:
    if timezone is None:
        return
    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"timezone {timezone!r} is not an IANA zone name (like Asia/Shanghai)") from None


def site_domain(url: str) -> str:
    """The host of ``url`` without port and without a leading ``www.``."""
    host = urlsplit(url).hostname or ""
    return host.removeprefix("www.")


def fetch_time(response: Response) -> str:
    """The server's Date header (the clock its relative dates were rendered against), else now."""
    header = response.headers.get(b"Date")
    if header:
        try:
            return parsedate_to_datetime(header.decode("latin-1")).astimezone(UTC).isoformat()
        except (TypeError, ValueError):
            pass
    return datetime.now(UTC).isoformat(timespec="seconds")


def _engine_spider(profile: type[ForumProfile]) -> type[ForumSpider]:
    name = "".join(part.capitalize() for part in profile.name.split("_")) + "Spider"
    doc = f"Crawl a {profile.name} forum from ``start_url`` without engine detection."
    return type(name, (ForumSpider,), {"name": profile.name, "profile_class": profile, "__doc__": doc})


def _register_engine_spiders() -> None:
    # One spider per engine (scrapy crawl discuz ...), generated so a new profile needs no spider
    # file. Only the generated names are bound here: the spider loader finds each class once.
    for profile in PROFILES:
        spider = _engine_spider(profile)
        globals()[spider.__name__] = spider


_register_engine_spiders()
