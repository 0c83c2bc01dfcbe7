"""Items produced by the forum and blog spiders.

Every item is a ``@dataclass(kw_only=True)``; :class:`itemadapter.ItemAdapter` reads them and
Scrapy's feed exports serialize them (nested dataclasses become JSON objects).

Each item has a :meth:`key` giving its stable identity, used by
:class:`crawler.pipelines.DedupPipeline`: engine ids where the engine has them, never the raw URL
of a page (URLs carry session ids and page numbers).

A forum profile reads a :class:`Thread` or a :class:`Post` off a page directly (the one record
shape: :mod:`crawler.profiles.records` names them ``ThreadRecord`` and ``PostRecord``); the
spider stamps the site, the engine and the fetch time with :meth:`Thread.stamped`.

Dates: the profiles fill the ``*_raw`` fields with what the page shows (a ``title`` attribute
over the display text when both exist); :class:`crawler.pipelines.NormalizeDatesPipeline` turns
them into timezone-aware ISO 8601 strings in ``created``, ``published`` and so on.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Self

__all__ = ["Article", "Attachment", "Author", "Board", "Comment", "Post", "Thread"]


@dataclass(kw_only=True)
class Board:
    """The board (sub-forum, category) a thread lives in."""

    id: str | None = None
    name: str | None = None
    #: Breadcrumb names from the forum root down to this board.
    path: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class Author:
    name: str | None = None
    id: str | None = None


@dataclass(kw_only=True)
class Attachment:
    """A file the forum hosts for a post (an attachment, an inline image it serves itself).

    The profile fills ``id``, ``url``, ``name`` and the listed ``size``;
    :class:`crawler.attachments.pipeline.AttachmentsPipeline` the rest, with ``FILES_STORE`` set.
    """

    #: the engine's attachment id, as a string
    id: str
    url: str
    #: the file name the forum shows
    name: str | None = None
    #: bytes: the forum's listed size (rounded) until the file is stored, then the exact size
    size: int | None = None
    sha256: str | None = None
    content_type: str | None = None
    #: relative to ``FILES_STORE``: ``<sha256[:2]>/<sha256>[.ext]``
    path: str | None = None
    #: ``stored``, ``denied``, ``too_large`` or ``failed``; None when nothing was downloaded
    status: str | None = None


class _ReadOffAPage:
    """What a profile reads off a page, before the spider says where and when."""

    def stamped(self, *, site: str, engine: str, crawled_at: str) -> Self:
        """The item as the spider emits it: with its site, its engine and the fetch time."""
        return replace(self, site=site, engine=engine, crawled_at=crawled_at)  # type: ignore[type-var]


@dataclass(kw_only=True)
class Thread(_ReadOffAPage):
    #: Discriminator in mixed feeds (JSON Lines carry no type).
    item_type: str = field(default="thread", init=False)
    #: the site and the engine (profile) that read it: stamped by the spider (required)
    site: str = ""
    engine: str = ""
    thread_id: str
    url: str
    title: str | None = None
    board: Board = field(default_factory=Board)
    author: Author = field(default_factory=Author)
    created: str | None = None
    created_raw: str | None = None
    #: ``"day"`` for sites that show dates without a clock time (``created`` is then midnight
    #: in the site's zone and only its day counts), ``"time"`` otherwise, ``None`` = not said.
    created_precision: str | None = None
    reply_count: int | None = None
    view_count: int | None = None
    last_post_at: str | None = None
    last_post_at_raw: str | None = None
    crawled_at: str | None = None

    def key(self) -> tuple[str, ...]:
        return ("thread", self.site, self.thread_id)


@dataclass(kw_only=True)
class Post(_ReadOffAPage):
    #: Discriminator in mixed feeds (JSON Lines carry no type).
    item_type: str = field(default="post", init=False)
    #: as in :class:`Thread`: stamped by the spider
    site: str = ""
    engine: str = ""
    thread_id: str
    post_id: str
    url: str
    #: Floor number, 1 = the opening post. Computed from page and index when hidden.
    position: int | None = None
    author: Author = field(default_factory=Author)
    created: str | None = None
    created_raw: str | None = None
    #: As in :class:`Thread`: ``"day"`` on date-only sites.
    created_precision: str | None = None
    body_html: str | None = None
    body_text: str | None = None
    quoted_post_ids: list[str] = field(default_factory=list)
    edited: bool = False
    #: files attached to the post and images the forum hosts in it (see :class:`Attachment`)
    attachments: list[Attachment] = field(default_factory=list)
    crawled_at: str | None = None

    def key(self) -> tuple[str, ...]:
        return ("post", self.site, self.thread_id, self.post_id)


@dataclass(kw_only=True)
class Article:
    #: Discriminator in mixed feeds (JSON Lines carry no type).
    item_type: str = field(default="article", init=False)
    site: str
    platform: str
    url: str
    title: str | None = None
    author: str | None = None
    published: str | None = None
    published_raw: str | None = None
    updated: str | None = None
    updated_raw: str | None = None
    tags: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    body_html: str | None = None
    body_text: str | None = None
    comment_count: int | None = None
    crawled_at: str | None = None

    def key(self) -> tuple[str, ...]:
        return ("article", self.url)


@dataclass(kw_only=True)
class Comment:
    #: Discriminator in mixed feeds (JSON Lines carry no type).
    item_type: str = field(default="comment", init=False)
    article_url: str
    comment_id: str
    parent_id: str | None = None
    author: str | None = None
    created: str | None = None
    created_raw: str | None = None
    body_html: str | None = None
    body_text: str | None = None
    crawled_at: str | None = None

    def key(self) -> tuple[str, ...]:
        return ("comment", self.article_url, self.comment_id)


#: Fields that must be non-empty for an item to be kept (see ValidatePipeline).
REQUIRED: dict[type, tuple[str, ...]] = {
    Thread: ("site", "engine", "thread_id", "url", "title"),
    Post: ("site", "engine", "thread_id", "post_id", "url", "body_html"),
    Article: ("site", "platform", "url", "title", "body_html"),
    Comment: ("article_url", "comment_id", "body_html"),
}
