"""Profiles of engines read through a JSON API (Discourse, Flarum, NodeBB).

The crawl still starts from an HTML page, which detection reads; every later request goes to
the API (:meth:`JsonApiProfile.request_url`), and cursors and thread-list rows keep the HTML
URLs, so items carry the URLs people use.

Shared here:

* the response's JSON document (:meth:`~JsonApiProfile.document`), soft 404s as error
  documents;
* **id-batch paging**: a thread's first response lists the ids of all its posts but holds only
  the first ones; the rest are fetched by id, :attr:`~JsonApiProfile.batch_size` at a time
  (:meth:`~JsonApiProfile.remaining_ids`, :meth:`~JsonApiProfile.next_batch`). The ids still to
  fetch travel in the cursor, so any node can continue the thread;
* small readers of API values: HTML bodies inside JSON, reply counts.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urljoin

from parsel import Selector

from crawler.profiles._utils import json_or_none
from crawler.profiles.base import ForumProfile, PageCursor, PageKind

if TYPE_CHECKING:
    from scrapy.http import TextResponse

__all__ = ["JsonApiProfile"]


class JsonApiProfile(ForumProfile):
    """Base class of the JSON API profiles."""

    #: Post ids fetched per request after a thread's first response.
    batch_size: ClassVar[int] = 20

    @abstractmethod
    def request_url(self, kind: PageKind, url: str) -> str:
        """The API URL for the HTML URL of a page of ``kind`` (API URLs are returned as is)."""

    @staticmethod
    def document(response: TextResponse) -> Any:
        """The response's JSON, ``{}`` when it is not JSON (an HTML error page)."""
        return json_or_none(response) or {}

    def is_soft_404(self, response: TextResponse) -> bool:
        data = json_or_none(response)
        return isinstance(data, dict) and self.is_error_document(data)

    @abstractmethod
    def is_error_document(self, data: dict[str, Any]) -> bool:
        """True for the engine's "not found / no permission" JSON answer (HTTP 200)."""

    # -- id-batch paging -----------------------------------------------------------------------
    def batch_url(self, thread_id: str, ids: list[Any]) -> str:
        """The API path that returns the posts ``ids`` of ``thread_id``.

        For engines that page by id.
        """
        raise NotImplementedError(f"{type(self).__name__} does not fetch posts by id")

    @staticmethod
    def remaining_ids(cursor: PageCursor, all_ids: list[Any], seen: set[Any]) -> list[Any]:
        """Post ids still to fetch: the cursor's after the first response, else all the
        thread's ids but those the first response held."""
        if "remaining" in cursor.extra:
            return list(cursor.extra["remaining"])
        return [i for i in all_ids if i not in seen]

    def next_batch(
        self,
        response: TextResponse,
        cursor: PageCursor,
        remaining: list[Any],
        state: dict[str, Any],
    ) -> PageCursor | None:
        """The cursor of the next batch of ``remaining``, carrying ``state`` (which holds the
        ``thread_id``); ``None`` when every post has been fetched."""
        if not remaining:
            return None
        batch, rest = remaining[: self.batch_size], remaining[self.batch_size :]
        return PageCursor(
            url=urljoin(response.url, self.batch_url(state["thread_id"], batch)),
            page=cursor.page + 1,
            extra={"remaining": rest, **state},
        )

    # -- API values ----------------------------------------------------------------------------
    @staticmethod
    def fragment(html: str) -> Selector:
        """A post body (HTML inside the JSON) to run selectors on."""
        return Selector(text=html or "<p></p>")

    @staticmethod
    def replies(post_count: Any) -> int:
        """Replies from a post count that includes the opening post."""
        return max(int(post_count or 1) - 1, 0)
