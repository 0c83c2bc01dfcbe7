"""The declarative base of the engine profiles.

A profile describes one forum engine as data (class attributes): how to recognise it, which URLs
are index / board / thread pages, which query parameters to drop, and the CSS selectors of each
field. :class:`ForumProfile` turns that data into extraction; subclasses override a method only
for an engine's odd cases (JSON APIs, offsets in URLs).

Contract with :class:`crawler.spiders.forum.ForumSpider`:

* :meth:`ForumProfile.detect` looks only at the response in hand (no extra requests).
* Pagination is a :class:`PageCursor`; the spider passes it in ``cb_kwargs`` as a plain dict
  (:meth:`PageCursor.as_dict`) so that requests survive ``Request.to_dict`` and the Redis codec.
* Pages are followed one after another through the cursor, which carries the running post
  offset: that is how a post's floor is computed when the page hides it (Discuz! for robots).
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Self
from urllib.parse import urljoin, urlsplit

from w3lib.url import canonicalize_url, url_query_cleaner

from crawler.items import Author, Board
from crawler.profiles._utils import first_css, join_text, regex_group, to_int

if TYPE_CHECKING:
    from parsel import Selector
    from scrapy.http import Response, TextResponse

logger = logging.getLogger(__name__)

__all__ = ["ForumProfile", "PageCursor", "PageKind", "ThreadPage", "ThreadRef"]

_DIGITS = re.compile(r"(\d+)")


class PageKind(StrEnum):
    INDEX = "index"
    BOARD = "board"
    THREAD = "thread"
    #: Any page of a forum without a profile (the generic fallback reads posts and links).
    PAGE = "page"


@dataclass(frozen=True)
class PageCursor:
    """Where a paginated listing continues: the page URL, its number and engine-specific state."""

    url: str
    page: int = 1
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

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
            url=data.get("url", url), page=int(data.get("page", 1)), extra=dict(data.get("extra") or {})
        )


@dataclass(kw_only=True)
class ThreadRef:
    """What a board's thread list says about a thread; merged into the Thread item."""

    thread_id: str
    url: str = ""
    title: str | None = None
    author_name: str | None = None
    author_id: str | None = None
    reply_count: int | None = None
    view_count: int | None = None
    created_raw: str | None = None
    last_post_raw: str | None = None
    board_id: str | None = None
    board_name: str | None = None

    #: What only the thread list knows; the rest (title, author, dates) is on the thread page.
    CARRIED: ClassVar[tuple[str, ...]] = (
        "thread_id",
        "reply_count",
        "view_count",
        "last_post_raw",
        "board_id",
        "board_name",
    )

    def as_dict(self) -> dict[str, Any]:
        """The list-only fields that are set: every queued thread request carries this dict."""
        return {k: v for k, v in asdict(self).items() if k in self.CARRIED and v is not None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class ThreadPage:
    """One parsed page of a thread: Thread fields (first page only), post fields, next cursor."""

    thread: dict[str, Any] | None
    posts: list[dict[str, Any]]
    next: PageCursor | None


class ForumProfile:
    """Base class of the engine profiles; subclasses set the class attributes below."""

    name: ClassVar[str] = ""
    #: Last-resort charset when header, meta and detection all fail.
    default_charset: ClassVar[str | None] = None
    #: Site timezone used when a date has no offset (override per site with a setting).
    timezone: ClassVar[str] = "UTC"
    languages: ClassVar[tuple[str, ...] | None] = None
    date_order: ClassVar[str | None] = None

    # -- versions ------------------------------------------------------------------------------
    #: The markup version a nested version class reads (``None`` on an engine's own class).
    version: ClassVar[str | None] = None
    #: Nested versions: subclasses that override only what changed in older or newer markup,
    #: with their own ``generator_prefixes``/``markers``. Each page is read by the first version
    #: whose fingerprints match it (:meth:`for_page`), else by the engine's class. Items, requests
    #: and pipelines know the engine by ``name`` only, which the versions share.
    versions: ClassVar[tuple[type[ForumProfile], ...]] = ()

    # -- detection ---------------------------------------------------------------------------
    generator_prefixes: ClassVar[tuple[str, ...]] = ()
    #: CSS selectors typical of the engine; ``min_markers`` of them must match.
    markers: ClassVar[tuple[str, ...]] = ()
    min_markers: ClassVar[int] = 1

    # -- URLs ----------------------------------------------------------------------------------
    index_url: ClassVar[re.Pattern[str] | None] = None
    board_url: ClassVar[re.Pattern[str] | None] = None  # group "bid"
    thread_url: ClassVar[re.Pattern[str] | None] = None  # group "tid"
    drop_params: ClassVar[tuple[str, ...]] = ()
    #: Format string relative to the page URL; fields post_id and thread_id.
    post_permalink: ClassVar[str | None] = None
    #: Regex whose group 1 is the number of posts before a thread page (phpBB ``start=``).
    post_offset_param: ClassVar[re.Pattern[str] | None] = None

    # -- soft 404 ------------------------------------------------------------------------------
    soft_404_texts: ClassVar[tuple[str, ...]] = ()
    soft_404_selectors: ClassVar[tuple[str, ...]] = ()

    # -- listing selectors -------------------------------------------------------------------
    _board_link: ClassVar[str | None] = None  # <a> elements
    _thread_row: ClassVar[str | None] = None
    _thread_row_link: ClassVar[str | None] = None  # <a> inside the row
    _thread_row_author: ClassVar[str | None] = None  # <a> inside the row
    _thread_row_replies: ClassVar[str | None] = None
    _thread_row_views: ClassVar[str | None] = None
    _thread_row_created: ClassVar[tuple[str, ...]] = ()
    _thread_row_last_post: ClassVar[tuple[str, ...]] = ()
    _board_name: ClassVar[str | None] = None
    _next_page: ClassVar[str | None] = None  # ::attr(href)

    # -- thread selectors --------------------------------------------------------------------
    _thread_title: ClassVar[str | None] = None
    _breadcrumbs: ClassVar[str | None] = None  # <a> elements, root first
    _post: ClassVar[str | None] = None
    _post_id: ClassVar[str | None] = None  # a selector giving a string with the id in it
    _post_author: ClassVar[str | None] = None  # <a> or element with the name as text
    _post_author_id: ClassVar[str | None] = None  # string with the user id in it
    _author_id_regex: ClassVar[re.Pattern[str]] = re.compile(r"(?:u|uid|user[s]?|id)[=/.-](\d+)")
    _post_time: ClassVar[tuple[str, ...]] = ()  # in preference order: title attributes first
    _post_floor: ClassVar[str | None] = None
    _post_body: ClassVar[str | None] = None
    _post_quote_ids: ClassVar[str | None] = None  # strings with a quoted post id in them
    _quote_id_regex: ClassVar[re.Pattern[str]] = _DIGITS
    _post_edited: ClassVar[str | None] = None  # present when the post was edited
    #: Extra selectors removed from body_html when computing body_text.
    text_strip: ClassVar[tuple[str, ...]] = ()

    # ---------------------------------------------------------------------------------------
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
        return next((v for v in cls.versions if v is not cls and v.fingerprint_matches(response)), cls)

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
            cleaned = url_query_cleaner(f"{head}?{rest}", cls.drop_params, remove=True) if rest else head
            tail = urlsplit(canonicalize_url(cleaned)).query
            return f"{canonicalize_url(head)}?{route}" + (f"&{tail}" if tail else "")
        cleaned = url_query_cleaner(url, cls.drop_params, remove=True) if cls.drop_params else url
        return canonicalize_url(cleaned)

    @classmethod
    def classify(cls, url: str) -> PageKind | None:
        if cls.thread_url is not None and cls.thread_url.search(url):
            return PageKind.THREAD
        if cls.board_url is not None and cls.board_url.search(url):
            return PageKind.BOARD
        if cls.index_url is not None and cls.index_url.search(url):
            return PageKind.INDEX
        return None

    def request_url(self, kind: PageKind, url: str) -> str:
        """The URL to fetch for a page of ``kind`` (JSON engines map HTML URLs to their API)."""
        return url

    def site_root(self, url: str) -> str:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}/"

    # -- soft 404 ------------------------------------------------------------------------------
    def is_soft_404(self, response: TextResponse) -> bool:
        if any(response.css(sel) for sel in self.soft_404_selectors):
            return True
        if not self.soft_404_texts:
            return False
        return any(text in response.text for text in self.soft_404_texts)

    # -- listings ------------------------------------------------------------------------------
    def board_links(self, response: TextResponse) -> list[PageCursor]:
        """Boards (and sub-boards) linked from an index or board page, as first-page cursors."""
        if not self._board_link:
            return []
        hrefs = response.css(self._board_link).css("::attr(href)").getall()
        urls = [self.canonicalize(response.urljoin(h)) for h in hrefs if self._is_board(h)]
        return [PageCursor(url=url) for url in dict.fromkeys(urls)]

    def _is_board(self, href: str) -> bool:
        return self.board_url is None or bool(self.board_url.search(href))

    def thread_refs(self, response: TextResponse, cursor: PageCursor) -> list[ThreadRef]:
        if not self._thread_row:
            return []
        board_id = self.board_id_from(response.url)
        board_name = (
            first_css(response, self._board_name) if self._board_name else None
        ) or cursor.extra.get("board_name")
        refs = [self.thread_ref(row, response) for row in response.css(self._thread_row)]
        for ref in refs:
            ref.board_id = ref.board_id or board_id
            ref.board_name = ref.board_name or board_name
        return [ref for ref in refs if ref.thread_id]

    def thread_ref(self, row: Selector, response: TextResponse) -> ThreadRef:
        link = row.css(self._thread_row_link or "a")[:1]
        href = response.urljoin(link.attrib.get("href", ""))
        author = row.css(self._thread_row_author)[:1] if self._thread_row_author else None
        return ThreadRef(
            url=self.canonicalize(href),
            thread_id=self.thread_id_from(href) or "",
            title=join_text(link),
            author_name=join_text(author) if author else None,
            author_id=self._author_id(author.attrib.get("href")) if author else None,
            reply_count=to_int(first_css(row, self._thread_row_replies)),
            view_count=to_int(first_css(row, self._thread_row_views)),
            created_raw=first_css(row, *self._thread_row_created),
            last_post_raw=first_css(row, *self._thread_row_last_post),
        )

    def next_page(self, response: TextResponse, cursor: PageCursor) -> PageCursor | None:
        href = first_css(response, self._next_page) if self._next_page else None
        if not href:
            return None
        url = self.canonicalize(response.urljoin(href))
        if url == self.canonicalize(response.url):
            return None
        return PageCursor(url=url, page=cursor.page + 1, extra=dict(cursor.extra))

    # -- ids -----------------------------------------------------------------------------------
    def thread_id_from(self, url: str) -> str | None:
        return _named_id(self.thread_url, url, "tid")

    def board_id_from(self, url: str) -> str | None:
        return _named_id(self.board_url, url, "bid")

    def _author_id(self, text: str | None) -> str | None:
        return regex_group(self._author_id_regex, text)

    # -- threads -------------------------------------------------------------------------------
    def parse_thread(self, response: TextResponse, cursor: PageCursor, ref: ThreadRef | None) -> ThreadPage:
        thread_id = (ref.thread_id if ref else None) or self.thread_id_from(response.url)
        from_url = self.offset_from_url(response.url)
        offset = from_url if from_url is not None else int(cursor.extra.get("offset", 0))
        posts = self.posts(response, thread_id or "")
        for index, post in enumerate(posts):
            if post.get("position") is None:
                post["position"] = offset + index + 1
        thread = self.thread_fields(response, thread_id or "", ref, posts) if cursor.page == 1 else None
        nxt = self.next_page(response, cursor)
        if nxt is not None:
            nxt = PageCursor(nxt.url, nxt.page, {**nxt.extra, "offset": offset + len(posts)})
        return ThreadPage(thread=thread, posts=posts, next=nxt)

    def thread_fields(
        self,
        response: TextResponse,
        thread_id: str,
        ref: ThreadRef | None,
        posts: list[dict[str, Any]],
    ) -> dict[str, Any]:
        crumbs = self.breadcrumbs(response)
        opener = posts[0] if posts and posts[0].get("position") == 1 else None
        board = Board(
            id=(ref.board_id if ref else None) or self._board_from_crumbs(response),
            name=(ref.board_name if ref else None) or (crumbs[-1] if crumbs else None),
            path=crumbs,
        )
        return {
            "thread_id": thread_id,
            "url": self.canonicalize((ref.url if ref else "") or self.thread_page_one(response.url)),
            "title": first_css(response, self._thread_title) or (ref.title if ref else None),
            "board": board,
            "author": opener["author"]
            if opener
            else Author(name=ref.author_name if ref else None, id=ref.author_id if ref else None),
            "created_raw": opener["created_raw"] if opener else (ref.created_raw if ref else None),
            "reply_count": ref.reply_count if ref else None,
            "view_count": ref.view_count if ref else None,
            "last_post_at_raw": ref.last_post_raw if ref else None,
        }

    def breadcrumbs(self, response: TextResponse) -> list[str]:
        """Names on the breadcrumb trail down to the board (the thread's own link left out)."""
        names = []
        for link in response.css(self._breadcrumbs or "none"):
            href = link.attrib.get("href", "")
            if self.classify(response.urljoin(href)) is PageKind.THREAD:
                continue
            name = join_text(link)
            if name:
                names.append(name)
        return names

    def thread_page_one(self, url: str) -> str:
        """The URL of the first page of the thread that ``url`` belongs to."""
        return url

    def offset_from_url(self, url: str) -> int | None:
        """Posts before this page when the URL says so (``start=`` offsets), else ``None``:
        then positions continue from the cursor, which only knows pages it walked through."""
        if self.post_offset_param is None:
            return None
        found = self.post_offset_param.search(url)
        return int(found.group(1)) if found else 0

    def _board_from_crumbs(self, response: TextResponse) -> str | None:
        hrefs = response.css(self._breadcrumbs or "none").css("::attr(href)").getall()
        ids = [self.board_id_from(h) for h in hrefs]
        return next((i for i in reversed(ids) if i), None)

    def posts(self, response: TextResponse, thread_id: str) -> list[dict[str, Any]]:
        if not self._post:
            return []
        posts = [self.post(sel, response, thread_id) for sel in response.css(self._post)]
        return [p for p in posts if p.get("post_id")]

    def post(self, sel: Selector, response: TextResponse, thread_id: str) -> dict[str, Any]:
        post_id = regex_group(_DIGITS, first_css(sel, self._post_id))
        author = sel.css(self._post_author)[:1] if self._post_author else None
        body = sel.css(self._post_body)[:1] if self._post_body else None
        quotes = sel.css(self._post_quote_ids).getall() if self._post_quote_ids else []
        return {
            "post_id": post_id,
            "thread_id": thread_id,
            "url": self.permalink(response, post_id or "", thread_id),
            "position": to_int(first_css(sel, self._post_floor)) if self._post_floor else None,
            "author": Author(
                name=join_text(author) if author else None,
                id=self._author_id(first_css(sel, self._post_author_id)),
            ),
            "created_raw": first_css(sel, *self._post_time),
            "body_html": _inner_html(body),
            "quoted_post_ids": _unique(regex_group(self._quote_id_regex, q) for q in quotes),
            "edited": bool(self._post_edited and sel.css(self._post_edited)),
        }

    def permalink(self, response: TextResponse, post_id: str, thread_id: str) -> str:
        if not self.post_permalink:
            return f"{self.canonicalize(response.url)}#{post_id}"
        relative = self.post_permalink.format(post_id=post_id, thread_id=thread_id)
        return urljoin(response.url, relative)


def _inner_html(sel: Any) -> str | None:
    if not sel:
        return None
    html = "".join(sel.xpath("node()").getall()).strip()
    return html or None


def _named_id(pattern: re.Pattern[str] | None, url: str, prefix: str) -> str | None:
    """The first matched group named ``prefix``, ``prefix2``…: one regex, several URL forms."""
    match = pattern.search(url) if pattern is not None else None
    if not match:
        return None
    return next((v for k, v in match.groupdict().items() if k.startswith(prefix) and v), None)


def _unique(values: Any) -> list[str]:
    seen: dict[str, None] = {}
    for value in values:
        if value:
            seen.setdefault(value, None)
    return list(seen)
