"""Selector-driven profiles: engines whose pages are HTML read with CSS selectors.

An engine is data (class attributes): its URL patterns and fingerprints (from
:class:`~crawler.profiles.base.ForumProfile`), soft 404 texts, and the CSS selectors of each
field, prefixed ``_``. :class:`HtmlForumProfile` turns that data into the extraction hooks;
a subclass overrides a method only for an engine's odd cases (a date split over elements, an
offset in the URL).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urljoin

from crawler.attachments.links import find_attachments
from crawler.items import Attachment, Author, Board
from crawler.profiles._utils import first_css, join_text, regex_group, to_int
from crawler.profiles.base import ForumProfile, PageCursor, PageKind
from crawler.profiles.records import PostRecord, ThreadPage, ThreadRecord, ThreadRef

if TYPE_CHECKING:
    from parsel import Selector, SelectorList
    from scrapy.http import TextResponse

__all__ = ["HtmlForumProfile"]

_DIGITS = re.compile(r"(\d+)")


class HtmlForumProfile(ForumProfile):
    """Base class of the HTML engine profiles; subclasses set the selectors below."""

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
    #: An attachment's URL, group ``aid`` its id (:data:`crawler.attachments.links.ENGINE_PATTERNS`)
    attachment_url: ClassVar[re.Pattern[str] | None] = None

    def is_soft_404(self, response: TextResponse) -> bool:
        if any(response.css(sel) for sel in self.soft_404_selectors):
            return True
        if not self.soft_404_texts or not any(t in response.text for t in self.soft_404_texts):
            return False
        where = self.login.denial_at if self.login is not None else ""
        if not where:
            return True
        # the engine's message template says it, not a post or a thread title that quotes it
        said = " ".join(" ".join(response.xpath(where).getall()).split())
        return any(" ".join(t.split()) in said for t in self.soft_404_texts)

    # -- listings ------------------------------------------------------------------------------
    def board_links(self, response: TextResponse) -> list[PageCursor]:
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
        return cursor.following(url)

    def _author_id(self, text: str | None) -> str | None:
        return regex_group(self._author_id_regex, text)

    # -- threads -------------------------------------------------------------------------------
    def parse_thread(
        self, response: TextResponse, cursor: PageCursor, ref: ThreadRef | None
    ) -> ThreadPage:
        thread_id = (ref.thread_id if ref else None) or self.thread_id_from(response.url)
        from_url = self.offset_from_url(response.url)
        offset = from_url if from_url is not None else int(cursor.extra.get("offset", 0))
        posts = self.posts(response, thread_id or "")
        for index, post in enumerate(posts):
            if post.position is None:
                post.position = offset + index + 1
        thread = (
            self.thread_record(response, thread_id or "", ref, posts) if cursor.page == 1 else None
        )
        nxt = self.next_page(response, cursor)
        if nxt is not None:
            nxt = PageCursor(nxt.url, nxt.page, {**nxt.extra, "offset": offset + len(posts)})
        return ThreadPage(thread=thread, posts=posts, next=nxt)

    def thread_record(
        self, response: TextResponse, thread_id: str, ref: ThreadRef | None, posts: list[PostRecord]
    ) -> ThreadRecord:
        crumbs = self.breadcrumbs(response)
        opener = posts[0] if posts and posts[0].position == 1 else None
        board = Board(
            id=(ref.board_id if ref else None) or self._board_from_crumbs(response),
            name=(ref.board_name if ref else None) or (crumbs[-1] if crumbs else None),
            path=crumbs,
        )
        return ThreadRecord(
            thread_id=thread_id,
            url=self.canonicalize((ref.url if ref else "") or self.thread_page_one(response.url)),
            title=first_css(response, self._thread_title) or (ref.title if ref else None),
            board=board,
            author=opener.author
            if opener
            else Author(name=ref.author_name if ref else None, id=ref.author_id if ref else None),
            created_raw=opener.created_raw if opener else (ref.created_raw if ref else None),
            reply_count=ref.reply_count if ref else None,
            view_count=ref.view_count if ref else None,
            last_post_at_raw=ref.last_post_raw if ref else None,
        )

    def breadcrumbs(self, response: TextResponse) -> list[str]:
        """Names on the breadcrumb trail down to the board (the thread's own link left out)."""
        return self.crumb_names(response, response.css(self._breadcrumbs or "none"))

    def crumb_names(self, response: TextResponse, links: SelectorList) -> list[str]:
        """The names of breadcrumb *links*, but for links to a thread."""
        names = []
        for link in links:
            if self.classify(response.urljoin(link.attrib.get("href", ""))) is PageKind.THREAD:
                continue
            if name := join_text(link):
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

    def posts(self, response: TextResponse, thread_id: str) -> list[PostRecord]:
        if not self._post:
            return []
        posts = [self.post(sel, response, thread_id) for sel in response.css(self._post)]
        return [p for p in posts if p.post_id]

    def post(self, sel: Selector, response: TextResponse, thread_id: str) -> PostRecord:
        post_id = regex_group(_DIGITS, first_css(sel, self._post_id))
        author = sel.css(self._post_author)[:1] if self._post_author else None
        body = sel.css(self._post_body)[:1] if self._post_body else None
        quotes = sel.css(self._post_quote_ids).getall() if self._post_quote_ids else []
        return PostRecord(
            post_id=post_id or "",
            thread_id=thread_id,
            url=self.permalink(response, post_id or "", thread_id),
            position=to_int(first_css(sel, self._post_floor)) if self._post_floor else None,
            author=Author(
                name=join_text(author) if author else None,
                id=self._author_id(first_css(sel, self._post_author_id)),
            ),
            created_raw=first_css(sel, *self._post_time),
            body_html=_inner_html(body),
            quoted_post_ids=_unique(regex_group(self._quote_id_regex, q) for q in quotes),
            edited=bool(self._post_edited and sel.css(self._post_edited)),
            attachments=self.attachments(sel, response),
        )

    def attachments(self, sel: Selector, response: TextResponse) -> list[Attachment]:
        """The files attached to the post *sel* and the images the forum hosts in it."""
        if self.attachment_url is None:
            return []
        return find_attachments(sel, response.url, self.attachment_url, self.attachment_id)

    def attachment_id(self, raw: str) -> str | None:
        """The engine's attachment id from what ``attachment_url`` matched."""
        return raw

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


def _unique(values: Any) -> list[str]:
    seen: dict[str, None] = {}
    for value in values:
        if value:
            seen.setdefault(value, None)
    return list(seen)
