"""The interface between the forum spider and a forum profile.

:class:`ForumProfile` is what :class:`crawler.spiders.forum.ForumSpider` (and the pipelines)
rely on, and nothing more:

* recognising the engine: :meth:`~ForumProfile.detect` looks only at the response in hand (no
  extra requests); :meth:`~ForumProfile.for_page` picks the markup version that reads a page;
* the kind of a page (:meth:`~ForumProfile.classify`), the URL to fetch for it
  (:meth:`~ForumProfile.request_url`), its canonical form and soft 404s;
* extraction, four hooks: :meth:`~ForumProfile.board_links`, :meth:`~ForumProfile.thread_refs`,
  :meth:`~ForumProfile.next_page` and :meth:`~ForumProfile.parse_thread` (typed records from
  :mod:`crawler.profiles.records`);
* :meth:`~ForumProfile.read`, which the spider calls on every page: it runs the hooks that the
  page's kind needs and returns a :class:`~crawler.profiles.records.PageResult`.

Two kinds of concrete profile build on it: :class:`~crawler.profiles.html.HtmlForumProfile`
(declarative CSS selectors) and :class:`~crawler.profiles.jsonapi.JsonApiProfile` (engines read
through a JSON API). Fallbacks for forums without a profile implement the same hooks
(:class:`~crawler.profiles.learned.Learned`). Every profile registers itself
(:mod:`crawler.profiles.registry`).

Pagination is a :class:`PageCursor`; the spider passes it in ``cb_kwargs`` as a plain dict
(:meth:`PageCursor.as_dict`) so that requests survive ``Request.to_dict`` and the Redis codec.
Pages of a thread are followed one after another through the cursor, which carries the running
post offset: that is how a post's floor is computed when the page hides it (Discuz! for robots).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Self
from urllib.parse import urlsplit

from w3lib.url import canonicalize_url, url_query_cleaner

from crawler.profiles._utils import link_rows
from crawler.profiles.records import Follow, PageResult
from crawler.profiles.registry import REGISTRY

if TYPE_CHECKING:
    from scrapy.http import Response, TextResponse

    from crawler.login.forms import LoginForm
    from crawler.profiles.records import ThreadPage, ThreadRef

__all__ = ["LIMITS", "ForumProfile", "PageCursor", "PageKind", "limits_of"]

#: What an engine may never show, as a profile declares it in ``limits``:
LIMITS = {
    "opening_post_id": "the opening post has no id of its own on the page",
    "clock_time": "dates are shown without a clock time (the day only)",
    "quote_ids": "quotes name the user quoted, not the post",
    "edits": "edited posts are not marked",
    "repeated_posts": "pages after the first repeat a post of an earlier page",
    "board_ids": "boards are shown without an id of their own (a slug or a name in their URL)",
}


class PageKind(StrEnum):
    INDEX = "index"
    BOARD = "board"
    THREAD = "thread"
    #: A page whose role a fallback cannot tell: read for posts, and every link followed.
    PAGE = "page"


@dataclass(frozen=True)
class PageCursor:
    """Where a paginated listing continues: the page URL, its number and engine-specific state."""

    url: str
    page: int = 1
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def following(self, url: str) -> PageCursor:
        """The cursor of the next page at ``url``, carrying this one's state."""
        return PageCursor(url=url, page=self.page + 1, extra=dict(self.extra))

    def as_dict(self) -> dict[str, Any]:
        """Plain values for ``cb_kwargs``; the URL is left out (it is the request's own URL)
        and so are defaults, because every queued request carries this dict."""
        data: dict[str, Any] = {}
        if self.page != 1:
            data["page"] = self.page
        if self.extra:
            data["extra"] = dict(self.extra)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None, url: str) -> Self:
        data = data or {}
        return cls(
            url=data.get("url", url),
            page=int(data.get("page", 1)),
            extra=dict(data.get("extra") or {}),
        )


class ForumProfile(ABC):
    """What the forum spider needs from a profile; subclasses set the class attributes.

    A class joins :data:`~crawler.profiles.registry.REGISTRY` when it sets ``detect_order`` (an
    engine) or ``fallback_order`` (a fallback) in its own body. Abstract bases and markup
    versions set neither; ``class X(ForumProfile, register=False)`` keeps a named class out
    (tests).

    The spider builds a profile per page with Scrapy's ``build_from_crawler``: one that needs
    settings (a fallback's template store, say) defines ``from_crawler(cls, crawler)``.
    """

    name: ClassVar[str] = ""
    #: Engines: position in detection, lower first (strong fingerprints first).
    detect_order: ClassVar[int | None] = None
    #: Fallbacks: position among fallbacks, lower first.
    fallback_order: ClassVar[int | None] = None

    # -- what the pipelines read -------------------------------------------------------------
    #: Last-resort charset when header, meta and detection all fail.
    default_charset: ClassVar[str | None] = None
    #: Site timezone used when a date has no offset (override per site with a setting).
    timezone: ClassVar[str] = "UTC"
    languages: ClassVar[tuple[str, ...] | None] = None
    date_order: ClassVar[str | None] = None
    #: Extra selectors removed from body_html when computing body_text.
    text_strip: ClassVar[tuple[str, ...]] = ()

    # -- what the engine never shows (tests and scoring skip these checks) -----------------
    #: A subset of :data:`LIMITS`; see docs/adding-an-engine.md ("Declaring limits").
    limits: ClassVar[frozenset[str]] = frozenset()
    #: ``"day"`` when the engine shows dates without a clock time (also implied by the
    #: ``clock_time`` limit); items then carry ``created_precision="day"``.
    created_precision: ClassVar[str] = "time"

    # -- versions ------------------------------------------------------------------------------
    #: The markup version a nested version class reads (``None`` on an engine's own class).
    version: ClassVar[str | None] = None
    #: Nested versions: subclasses that override only what changed in older or newer markup,
    #: with their own ``generator_prefixes``/``markers``. Each page is read by the first version
    #: whose fingerprints match it (:meth:`for_page`), else by the engine's class. Items, requests
    #: and pipelines know the engine by ``name`` only, which the versions share.
    versions: ClassVar[tuple[type[ForumProfile], ...]] = ()

    # -- detection (on the HTML start page, JSON engines included) ---------------------------
    generator_prefixes: ClassVar[tuple[str, ...]] = ()
    #: CSS selectors typical of the engine; ``min_markers`` of them must match.
    markers: ClassVar[tuple[str, ...]] = ()
    min_markers: ClassVar[int] = 1

    # -- URLs ----------------------------------------------------------------------------------
    index_url: ClassVar[re.Pattern[str] | None] = None
    board_url: ClassVar[re.Pattern[str] | None] = None  # group "bid"
    thread_url: ClassVar[re.Pattern[str] | None] = None  # group "tid"
    drop_params: ClassVar[tuple[str, ...]] = ()

    # -- members-only boards ---------------------------------------------------------------
    #: The engine's login form and its "log in first / not authorised" texts (crawler.login).
    login: ClassVar[LoginForm | None] = None

    def __init_subclass__(cls, register: bool = True, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        if own.get("detect_order") is not None or own.get("fallback_order") is not None:
            if register:
                REGISTRY.add(cls)
        elif "name" in own and register:
            # Without an order the class would silently never be used.
            raise TypeError(
                f"{cls.__qualname__} names profile {cls.name!r} but sets neither detect_order "
                "(an engine) nor fallback_order (a fallback)"
            )

    # -- detection -----------------------------------------------------------------------------
    @classmethod
    def detect(cls, response: Response) -> bool:
        """True when ``response`` looks like a page of this engine (any of its versions).
        Cheap, no requests."""
        return cls.fingerprint_matches(response) or any(
            v.fingerprint_matches(response) for v in cls.versions if v is not cls
        )

    @classmethod
    def for_page(cls, response: Response) -> type[ForumProfile]:
        """The version of this engine that reads ``response``: the first nested version whose
        fingerprints match, else the class itself."""
        return next(
            (v for v in cls.versions if v is not cls and v.fingerprint_matches(response)), cls
        )

    @classmethod
    def fingerprint_matches(cls, response: Response) -> bool:
        """This class's own generator prefixes and markers, its versions left out."""
        if not hasattr(response, "css"):
            return False
        generator = response.css('meta[name="generator"]::attr(content)').get("")
        if generator and any(generator.startswith(p) for p in cls.generator_prefixes):
            return True
        hits = sum(1 for marker in cls.markers if response.css(marker))
        return bool(cls.markers) and hits >= cls.min_markers

    # -- URLs ----------------------------------------------------------------------------------
    @classmethod
    def canonicalize(cls, url: str) -> str:
        """Drop session and view parameters, then sort the query (w3lib).

        A leading path-like query item (vBulletin 4 ``showthread.php?101-slug/page2``, XenForo
        ``index.php?threads/slug.1/``) is kept verbatim: w3lib would rewrite it to ``…%2F=``.
        """
        head, sep, query = url.partition("?")
        query = query.partition("#")[0]
        route, _, rest = query.partition("&")
        if sep and route and "=" not in route:
            cleaned = (
                url_query_cleaner(f"{head}?{rest}", cls.drop_params, remove=True) if rest else head
            )
            tail = urlsplit(canonicalize_url(cleaned)).query
            return f"{canonicalize_url(head)}?{route}" + (f"&{tail}" if tail else "")
        cleaned = url_query_cleaner(url, cls.drop_params, remove=True) if cls.drop_params else url
        return canonicalize_url(cleaned)

    def classify(self, url: str) -> PageKind | None:
        """The kind of the page at ``url`` by the URL patterns; ``None`` when none matches (the
        spider then reads a start page as the index)."""
        if self.thread_url is not None and self.thread_url.search(url):
            return PageKind.THREAD
        if self.board_url is not None and self.board_url.search(url):
            return PageKind.BOARD
        if self.index_url is not None and self.index_url.search(url):
            return PageKind.INDEX
        return None

    def request_url(self, kind: PageKind, url: str) -> str:
        """The URL to fetch for a page of ``kind`` (JSON engines map HTML URLs to their API)."""
        return url

    def thread_id_from(self, url: str) -> str | None:
        return _named_id(self.thread_url, url, "tid")

    def board_id_from(self, url: str) -> str | None:
        return _named_id(self.board_url, url, "bid")

    def is_soft_404(self, response: TextResponse) -> bool:
        """An HTTP 200 page that says "no such thread" or "no permission"."""
        return False

    # -- extraction ----------------------------------------------------------------------------
    @abstractmethod
    def board_links(self, response: TextResponse) -> list[PageCursor]:
        """Boards (and sub-boards) linked from an index or board page, as first-page cursors."""

    @abstractmethod
    def thread_refs(self, response: TextResponse, cursor: PageCursor) -> list[ThreadRef]:
        """The threads a board page lists."""

    @abstractmethod
    def next_page(self, response: TextResponse, cursor: PageCursor) -> PageCursor | None:
        """The next page of a board's thread list (or of a thread), else ``None``."""

    @abstractmethod
    def parse_thread(
        self, response: TextResponse, cursor: PageCursor, ref: ThreadRef | None
    ) -> ThreadPage:
        """One page of a thread: the thread record on its first page, the posts, the next page."""

    def read(
        self, response: TextResponse, kind: PageKind, cursor: PageCursor, ref: ThreadRef | None
    ) -> PageResult:
        """Everything a page of ``kind`` yields; the spider's one call per page.

        Index: boards. Board: sub-boards, threads, the next list page. Thread: the thread, its
        posts, its next page (the list row only feeds the thread of page 1). Page (fallbacks):
        posts if any, and every link as another page.
        """
        if kind in (PageKind.THREAD, PageKind.PAGE):
            page = self.parse_thread(response, cursor, ref)
            result = PageResult(thread=page.thread, posts=page.posts, stats=page.stats)
            if kind is PageKind.PAGE:
                result.follow = [Follow(PageKind.PAGE, c) for c in self.board_links(response)]
            elif page.next is not None:
                result.follow = [Follow(PageKind.THREAD, page.next)]
            return result
        boards = self.board_links(response)
        rows = link_rows(response, {b.url for b in boards}, self.canonicalize) if boards else {}
        follow = [Follow(PageKind.BOARD, board, said=rows.get(board.url)) for board in boards]
        if kind is PageKind.BOARD:
            refs = self.thread_refs(response, cursor)
            follow += [Follow(PageKind.THREAD, PageCursor(url=r.url), r) for r in refs]
            nxt = self.next_page(response, cursor)
            if nxt is not None:
                follow.append(Follow(PageKind.BOARD, nxt))
        return PageResult(follow=follow)


def _named_id(pattern: re.Pattern[str] | None, url: str, prefix: str) -> str | None:
    """The first matched group named ``prefix``, ``prefix2``…: one regex, several URL forms."""
    match = pattern.search(url) if pattern is not None else None
    if not match:
        return None
    return next((v for k, v in match.groupdict().items() if k.startswith(prefix) and v), None)


def limits_of(profile: type[ForumProfile]) -> frozenset[str]:
    """The declared limits of ``profile``, ``clock_time`` included when it reads days only;
    ``ValueError`` names an unknown one (a typo would silently skip nothing)."""
    unknown = set(profile.limits) - set(LIMITS)
    if unknown:
        raise ValueError(
            f"{profile.name}: unknown limits {sorted(unknown)} (known: {sorted(LIMITS)})"
        )
    day_only = {"clock_time"} if profile.created_precision == "day" else set()
    return frozenset(profile.limits) | day_only
