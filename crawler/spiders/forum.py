"""The shared forum spider, driven by a forum profile.

``scrapy crawl forum -a start_urls=URL[,URL...]`` asks the profile registry which engine the first
response shows (stats ``profiles/detected/<engine>``, plus ``profiles/detected/<engine>/<version>``
when a nested markup version reads the page). When none does, it takes the first fallback that
accepts the page (``profiles/undetected`` and ``profiles/fallback/<name>``): the learned-template
reader (:mod:`crawler.profiles.learned`) unless ``-a fallback=`` names others (``-a fallback=``:
none).
``scrapy crawl <engine> -a start_url=URL`` (one spider per engine in the registry) skips
detection. Either way each page is read by the engine's version that matches it
(:meth:`~crawler.profiles.base.ForumProfile.for_page`: vBulletin 3 and 4 are one engine).

The spider knows profiles only through :class:`~crawler.profiles.base.ForumProfile`: it calls
:meth:`~crawler.profiles.base.ForumProfile.read` on every page and turns the records into items
and the follow-ups into requests. Crawl order is breadth-first by level through request
priorities: index, then boards and all their thread-list pages, then threads and all their
pages. The profile name, page kind, cursor and thread-list row travel in ``cb_kwargs`` as plain
values, so any node of a cluster can continue a request another node created.

Several start URLs are several sites in one crawl (so a cluster's nodes share them by the ring):
each is a site of its own, detected on its own first response, its items' ``site`` its own
host[:port], its links followed on its own domain only. A request carries its site in
``cb_kwargs`` (``site``, only when the crawl has several: a one-site crawl's requests are as
they always were); a request without one (a learned template's re-fetches) belongs to the site
its URL is on. A site the ``learned`` fallback finds not to be a forum ends that site, not the
crawl (``learn/not_a_forum``); with one site it ends the crawl as before (``not_a_forum``).

Spider arguments: ``start_urls`` (required; alias ``start_url``; :mod:`crawler.spiders.arguments`),
``timezone`` (IANA name, overrides the profile's, for every site),
``fallback`` (comma-separated fallback names to try, in order, instead of all registered ones),
``profile=none`` (no engine detection: go straight to the fallbacks, as for a site no profile
knows; for checking the learned fallback on engines that have a profile).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import CloseSpider
from scrapy.http import Response, TextResponse
from scrapy.utils.misc import build_from_crawler

from crawler.incremental import LISTING, row_meta
from crawler.learn import when
from crawler.learn.rows import ROW_FIELDS
from crawler.login.pages import empty_login_page, not_content, wall_of
from crawler.node.api import node_of
from crawler.node.revisit import digest
from crawler.profiles import REGISTRY, ForumProfile, PageCursor, PageKind, ProfileRegistry
from crawler.profiles.records import Follow, ThreadRef
from crawler.spiders.arguments import parse_start_urls
from crawler.spiders.common import SPIDER_SETTINGS, check_timezone, fetch_time, site_domain

logger = logging.getLogger(__name__)

# Higher runs first: finish the listing levels before descending (breadth-first per level).
PRIORITY = {PageKind.INDEX: 30, PageKind.BOARD: 20, PageKind.PAGE: 15, PageKind.THREAD: 10}



class ForumSpider(scrapy.Spider):
    """Crawl the forums of ``start_urls``, each with a profile (given, detected or a fallback)."""

    name = "forum"
    #: Set on the generated ``<engine>`` spiders: no detection.
    profile_class: ClassVar[type[ForumProfile] | None] = None
    #: Where profiles are looked up by name and detected.
    registry: ClassVar[ProfileRegistry] = REGISTRY
    custom_settings: ClassVar[dict[str, Any]] = SPIDER_SETTINGS

    def __init__(
        self,
        start_urls: str | list[str] | None = None,
        start_url: str | None = None,
        timezone: str | None = None,
        fallback: str | None = None,
        profile: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        #: ``-a profile=none``: skip engine detection, read the site with a fallback.
        self.use_profiles = (profile or "").lower() not in ("none", "off")
        self.start_urls = self.check_arguments(start_urls=start_urls, start_url=start_url,
                                               timezone=timezone, fallback=fallback,
                                               profile=profile)
        #: ``-a profile=NAME``: every site read with that engine's profile, no detection.
        if self.use_profiles and profile and self.profile_class is None:
            self.profile_class = self.named_engine(profile)
        #: The first start URL and its site (a one-site crawl's only ones).
        self.start_url = self.start_urls[0]
        self.site_timezone = timezone  # every site's (CRAWLER_SITE_TIMEZONES: per site)
        #: Fallback names to try in order; ``None``: every registered fallback.
        self.fallbacks = _names(fallback)
        when.prepare()  # the learned fallback reads dates
        #: Each start URL's site (its host[:port], the items' ``site``) and that site's domain:
        #: subdomains included (www. dropped), so http/https and www redirects stay on site.
        self.sites: dict[str, str] = {}
        for url in self.start_urls:
            self.sites.setdefault(urlsplit(url).netloc, site_domain(url))
        self.site = next(iter(self.sites))
        self.allowed_domains = list(dict.fromkeys(self.sites.values()))
        #: Each site's profile's default charset, once detected (given, for an engine spider).
        self.charsets: dict[str, str | None] = {}

    @property
    def default_charset(self) -> str | None:
        """The last-resort charset of :class:`~crawler.encoding.CharsetMiddleware`, which asks
        the spider, not the request: the engine's, or the site's profile's once detected; with
        several sites, the one charset their profiles name (``None`` when they name several)."""
        if self.profile_class is not None:
            return self.profile_class.default_charset
        named = {charset for charset in self.charsets.values() if charset}
        return named.pop() if len(named) == 1 else None

    @classmethod
    def check_arguments(
        cls,
        start_urls: str | list[str] | None = None,
        start_url: str | None = None,
        timezone: str | None = None,
        fallback: str | None = None,
        profile: str | None = None,
        **_: Any,
    ) -> list[str]:
        """One-line ``ValueError`` for bad ``-a`` arguments (``scrapy crawl`` calls it up front);
        the start URLs."""
        urls = parse_start_urls(start_urls, start_url)
        check_timezone(timezone)
        for name in _names(fallback) or ():
            cls.registry.named_fallback(name)
        if profile and profile.lower() not in ("none", "off"):
            cls.named_engine(profile)
        return urls

    @classmethod
    def named_engine(cls, name: str) -> type[ForumProfile]:
        """The engine profile called ``name``; ``ValueError`` naming the known ones otherwise."""
        found = cls.registry.get(name)
        if found is None or found.detect_order is None:
            known = ", ".join(p.name for p in cls.registry.engines)
            raise ValueError(f"profile {name!r} is not a registered engine"
                             f" (known: {known}; or none)")
        return found

    async def start(self) -> AsyncIterator[scrapy.Request]:
        # One site: dont_filter, as always. Several (a cluster's crawl): deduplicated. Either
        # way the nodes that start a fresh crawl together fetch each start page once, not once
        # each (the frontier checks a fresh crawl's dont_filter start request against the
        # cluster's filter too: crawler.node.node.Node._deduplicated).
        for url in self.start_urls:
            yield scrapy.Request(url, callback=self.parse_start, dont_filter=not self.several,
                                 meta=LISTING, cb_kwargs=self._site_kwargs(urlsplit(url).netloc))

    @property
    def several(self) -> bool:
        """Whether this crawl has several sites (its requests then carry theirs)."""
        return len(self.sites) > 1

    def _site_kwargs(self, site: str) -> dict[str, str]:
        return {"site": site} if self.several else {}

    def site_of(self, url: str) -> str | None:
        """The site of the crawl that ``url`` is on: the one of its host[:port], else the one
        whose domain holds its host (the longest); ``None`` off every site."""
        parts = urlsplit(url)
        if parts.netloc in self.sites:
            return parts.netloc
        host = (parts.hostname or "").removeprefix("www.")
        on = [s for s, d in self.sites.items() if host == d or host.endswith("." + d)]
        return max(on, key=lambda s: len(self.sites[s])) if on else None

    # -- entry -------------------------------------------------------------------------------
    def parse(self, response: Response) -> Iterator[Any]:
        """A URL seeded into the running crawl (``python -m crawler seed``) has no callback:
        it is read as a start page of its site."""
        yield from self.parse_start(response, self.site_of(response.url))

    def parse_start(self, response: Response, site: str | None = None) -> Iterator[Any]:
        site = site or self.site
        profile_cls = self.profile_class or self._detect(response)
        if profile_cls is None:
            return
        self.charsets[site] = profile_cls.default_charset
        profile = self._profile(profile_cls, response)
        kind = profile.classify(response.url) or PageKind.INDEX
        cursor = PageCursor(url=profile.canonicalize(response.url))
        api_url = profile.request_url(kind, response.url)
        if api_url != response.url:
            yield self._request(profile, kind, cursor.url, site=site)
            return
        yield from self.parse_page(response, engine=profile.name, kind=kind,
                                   cursor=cursor.as_dict(), **self._site_kwargs(site))

    def _detect(self, response: Response) -> type[ForumProfile] | None:
        found = self.registry.detect(response) if self.use_profiles else None
        if found is None:
            return self._fallback(response)
        self.crawler.stats.inc_value(f"profiles/detected/{found.name}")
        engine = found.name
        version = found.for_page(response).version
        if version:
            self.crawler.stats.inc_value(f"profiles/detected/{found.name}/{version}")
            engine = f"{found.name} {version}"
        logger.info("Detected %(engine)s at %(url)s", {"engine": engine, "url": response.url})
        return found

    def _fallback(self, response: Response) -> type[ForumProfile] | None:
        self.crawler.stats.inc_value("profiles/undetected")
        fallback = self.registry.fallback(response, self.fallbacks)
        if fallback is None:
            logger.warning(
                "No forum profile matches %(url)s and no fallback accepts it; nothing to crawl",
                {"url": response.url},
                extra={"spider": self},
            )
            return None
        self.crawler.stats.inc_value(f"profiles/fallback/{fallback.name}")
        logger.warning(
            "No forum profile matches %(url)s; using the %(fallback)s fallback",
            {"url": response.url, "fallback": fallback.name},
            extra={"spider": self},
        )
        return fallback

    def _profile(self, profile_cls: type[ForumProfile], response: Response) -> ForumProfile:
        # The engine travels by name; its markup version is read off each page (vBulletin 3/4).
        # Built the Scrapy way, so a profile that needs settings defines from_crawler.
        return build_from_crawler(profile_cls.for_page(response), self.crawler)

    # -- pages -------------------------------------------------------------------------------
    def parse_page(
        self,
        response: Response,
        engine: str,
        kind: str,
        cursor: dict[str, Any] | None = None,
        ref: dict[str, Any] | None = None,
        site: str | None = None,
    ) -> Iterator[Any]:
        site = site or (self.several and self.site_of(response.url)) or self.site
        profile_cls = self.registry.get(engine)
        if profile_cls is None:
            return
        if not isinstance(response, TextResponse) or not response.body.strip():
            # A 200 with nothing to read (an empty body, an image, a PDF) is what the page is,
            # not a spider error: counted, logged, and left.
            outcome = "not_html" if not isinstance(response, TextResponse) else "empty_body"
            self.crawler.stats.inc_value(f"outcomes/{outcome}")
            logger.info("Nothing to read at %(url)s (%(outcome)s)",
                        {"url": response.url, "outcome": outcome})
            return
        profile = self._profile(profile_cls, response)
        page_kind = PageKind(kind)
        if wall := wall_of(response, profile.login):  # a bot wall, "log in first": not content
            if profile.is_soft_404(response):  # "no permission": a soft 404 too, as it was
                self.crawler.stats.inc_value("forum/soft_404")
            not_content(self.crawler, response, site, wall)
            return
        self.crawler.stats.inc_value(f"forum/pages/{page_kind}")
        if profile.is_soft_404(response):
            self.crawler.stats.inc_value("forum/soft_404")
            logger.debug("Soft 404 at %(url)s", {"url": response.url})
            return
        try:
            page = profile.read(
                response,
                page_kind,
                PageCursor.from_dict(cursor, url=response.url),
                ThreadRef.from_dict(ref) if ref else None,
            )
        except CloseSpider as stop:
            if not self.several or stop.reason != "not_a_forum":
                raise
            # one site of several is not a forum (the learner said why): that site ends here
            self.crawler.stats.inc_value("learn/not_a_forum")
            return
        if wall := empty_login_page(response, page):  # a login form and nothing else
            self.crawler.stats.inc_value(f"forum/pages/{page_kind}", -1)
            not_content(self.crawler, response, site, wall)
            return
        for key in page.stats:
            self.crawler.stats.inc_value(key)
        crawled_at = fetch_time(response)
        for thread in ([page.thread] if page.thread is not None else []) + page.more_threads:
            yield thread.stamped(site=site, engine=profile.name, crawled_at=crawled_at)
        for post in page.posts:
            yield post.stamped(site=site, engine=profile.name, crawled_at=crawled_at)
        meta = response.request.meta if response.request is not None else {}
        for follow in page.follow:
            if self.several and self.site_of(follow.cursor.url) not in (site, None):
                # another site of this crawl: not read as this one's (off every site: the
                # offsite filter's, as in a one-site crawl)
                self.crawler.stats.inc_value("forum/other_site")
                continue
            request = self._request(profile, follow.kind, follow.cursor.url, cursor=follow.cursor,
                                    ref=follow.ref, site=site)
            if follow.kind is PageKind.THREAD:
                request.meta.update(_revisit_meta(page_kind, follow, meta))
            elif follow.kind is PageKind.BOARD:
                request.meta.update(_listing_row(response.url, follow, meta))
            if follow.read_here:  # read already: what its fetch would have told, no fetch
                if (node := node_of(self.crawler)) is not None and node.revisits is not None:
                    node.revisits.read_as_thread(self, request)
                continue
            yield request.replace(dont_filter=True) if follow.dont_filter else request

    def _request(
        self,
        profile: ForumProfile,
        kind: PageKind,
        url: str,
        cursor: PageCursor | None = None,
        ref: ThreadRef | None = None,
        site: str | None = None,
    ) -> scrapy.Request:
        cursor = cursor or PageCursor(url=url)
        cb_kwargs: dict[str, Any] = {"engine": profile.name, "kind": str(kind)}
        if cursor.as_dict():
            cb_kwargs["cursor"] = cursor.as_dict()
        if ref is not None:
            cb_kwargs["ref"] = ref.as_dict()
        if site is not None:
            cb_kwargs.update(self._site_kwargs(site))
        return scrapy.Request(
            profile.request_url(kind, cursor.url),
            callback=self.parse_page,
            priority=PRIORITY[kind],
            cb_kwargs=cb_kwargs,
            # listings are revisited with conditional GET (crawler/incremental/); so is a
            # fallback's page of unknown role, which may be one
            meta=LISTING if kind in (PageKind.INDEX, PageKind.BOARD, PageKind.PAGE) else {},
        )


def _revisit_meta(page_kind: PageKind, follow: Follow, meta: dict[str, Any]) -> dict[str, Any]:
    """What crawler/incremental/ needs of a thread request: from a thread list, the
    thread's key and a digest of its row (what changes when replies come: not the views),
    from the profile's :class:`ThreadRef` or the row a fallback read (its cursor, keyed by
    the thread's URL: :data:`crawler.learn.rows.ROW_FIELDS`); from a thread page, the
    thread's key, carried on to its next pages (a walk's cursor names its first page)."""
    if page_kind is not PageKind.THREAD:
        if follow.cursor.page > 1 and (first := follow.cursor.extra.get("first")):
            return {"revisit_key": first}  # a walk's page read along a learner's kept page
        if follow.ref is not None:
            key, row = follow.ref.thread_id, follow.ref.as_dict()
        else:
            key = follow.cursor.url
            row = {k: v for k in ROW_FIELDS if (v := follow.cursor.extra.get(k)) is not None}
        row.pop("view_count", None)
        said = json.dumps(row, sort_keys=True) if row else None
        return {**row_meta(key, said), "revisit_key": key}
    if key := meta.get("revisit_key"):
        return {"revisit_key": key}
    return {}


def _listing_row(url: str, follow: Follow, meta: dict[str, Any]) -> dict[str, Any]:
    """What crawler/incremental/ needs of a board request so that an incremental pass
    reads the board again only when the listing linking to it says something new of it:
    its row (keyed by both pages: the index and a parent board list it differently); for
    a board's next page, its first page's row (a new post reorders every page)."""
    key = "b" + digest(f"{url} {follow.cursor.url}").hex()
    if follow.said:
        return row_meta(key, follow.said)
    row = meta.get("revisit_row")
    if follow.cursor.page > 1 and row:
        return {"revisit_row": [key, row[1]]}
    return {}


def _names(value: str | None) -> tuple[str, ...] | None:
    """``"a, b"`` -> ``("a", "b")``; ``None`` stays ``None`` (every registered fallback)."""
    if value is None:
        return None
    return tuple(name.strip() for name in value.split(",") if name.strip())


def _engine_spider(profile: type[ForumProfile]) -> type[ForumSpider]:
    name = "".join(part.capitalize() for part in profile.name.split("_")) + "Spider"
    doc = f"Crawl {profile.name} forums from ``start_urls`` without engine detection."
    return type(name, (ForumSpider,),
                {"name": profile.name, "profile_class": profile, "__doc__": doc})


def _register_engine_spiders() -> None:
    # One spider per registered engine (scrapy crawl discuz ...), so a new profile needs no
    # spider file. Only the generated names are bound here: the spider loader finds each once.
    for profile in REGISTRY.engines:
        spider = _engine_spider(profile)
        globals()[spider.__name__] = spider


_register_engine_spiders()
