"""What a profile reads off a page, as typed records.

A profile knows the engine's fields; the forum spider knows the site and the fetch time. So a
profile returns :class:`~crawler.items.Thread` and :class:`~crawler.items.Post` items (named
``ThreadRecord`` and ``PostRecord`` here, one shape, no second list of their fields), and the
spider stamps them with :meth:`~crawler.items.Thread.stamped`.
:class:`ThreadRef` is what a thread list says about a thread; it rides on the thread's request.
:class:`PageResult` is everything one page yields: records, and the pages to fetch next.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Self

from crawler.items import Post, Thread

if TYPE_CHECKING:
    from crawler.profiles.base import PageCursor, PageKind

__all__ = ["Follow", "PageResult", "PostRecord", "ThreadPage", "ThreadRecord", "ThreadRef"]


#: What a profile reads off a thread page is the item itself: the spider stamps the site, the
#: engine and the fetch time (:meth:`~crawler.items.Thread.stamped`). Dates stay as shown
#: (``*_raw``): the pipelines normalize them.
ThreadRecord = Thread
#: As :data:`ThreadRecord`: ``position`` stays ``None`` when the page hides it.
PostRecord = Post


@dataclass(kw_only=True)
class ThreadRef:
    """What a board's thread list says about a thread; merged into the thread's record."""

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
    """One parsed page of a thread: the thread (first page only), its posts, the next page.

    ``stats`` are stat keys to count for the page (a fallback says which strategy read it).
    """

    thread: ThreadRecord | None
    posts: list[PostRecord]
    next: PageCursor | None
    stats: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Follow:
    """A page to fetch next: its kind, its cursor and, for a thread, its thread-list row."""

    kind: PageKind
    cursor: PageCursor
    ref: ThreadRef | None = None
    #: Fetch even if the URL was seen (a thread's pages walked in order after a learning pass).
    dont_filter: bool = False
    #: For a board, what the page linking to it says of it (the text of its row on the index:
    #: topics, posts, last post): an incremental pass reads the board again only when it changed.
    said: str | None = None
    #: Read already from a copy fetched before (a learner's kept page): not fetched, its
    #: request only tells the incremental state what was read (a thread page, not a listing).
    read_here: bool = False


@dataclass
class PageResult:
    """Everything one page yields, in the order the spider emits it."""

    thread: ThreadRecord | None = None
    posts: list[PostRecord] = field(default_factory=list)
    follow: list[Follow] = field(default_factory=list)
    stats: list[str] = field(default_factory=list)
    #: Threads of pages fetched before this one and read now (a learner's kept pages).
    more_threads: list[ThreadRecord] = field(default_factory=list)
