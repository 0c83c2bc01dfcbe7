"""Discourse: every HTML route has a JSON twin, so the profile reads JSON only.

Index ``/categories.json`` -> board ``/c/{slug}/{id}.json`` (``more_topics_url``, 0-based
``?page=``) -> thread ``/t/{slug}/{id}.json`` (a first chunk of posts plus ``post_stream.stream``,
the ids of all posts) -> the rest through ``/t/{id}/posts.json?post_ids[]=…``, 20 at a time
(id-batch paging, :class:`~crawler.profiles.jsonapi.JsonApiProfile`).
Quotes name post *numbers* (``aside.quote[data-post]``); the cursor carries the number -> id
map of the posts seen so far to turn them into post ids.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from scrapy.http import TextResponse

from crawler.items import Author, Board
from crawler.profiles._utils import str_or_none
from crawler.profiles.base import PageCursor, PageKind
from crawler.profiles.jsonapi import JsonApiProfile
from crawler.profiles.records import PostRecord, ThreadPage, ThreadRecord, ThreadRef


class Discourse(JsonApiProfile):
    name = "discourse"
    detect_order = 10

    generator_prefixes = ("Discourse",)
    markers = ("meta#data-discourse-setup",)

    index_url = re.compile(r"^https?://[^/]+/(?:categories(?:\.json)?)?(?:\?.*)?$")
    board_url = re.compile(r"/c/(?:[^/?#]+/)*(?P<bid>\d+)(?:\.json)?(?:[/?#]|$)")
    thread_url = re.compile(r"/t/(?:[^/?#]+/)?(?P<tid>\d+)(?:\.json|/posts\.json)?(?:[/?#]|$)")
    post_permalink = "/t/{slug}/{thread_id}/{post_number}"

    def request_url(self, kind: PageKind, url: str) -> str:
        if kind is PageKind.INDEX:
            return urljoin(url, "/categories.json")
        parts = urlsplit(url)
        if parts.path.endswith(".json"):
            return url
        return urlunsplit(parts._replace(path=parts.path.rstrip("/") + ".json"))

    def is_error_document(self, data: dict[str, Any]) -> bool:
        return "errors" in data and "error_type" in data

    def batch_url(self, thread_id: str, ids: list[Any]) -> str:
        return f"/t/{thread_id}/posts.json?" + "&".join(f"post_ids[]={i}" for i in ids)

    # -- listings ------------------------------------------------------------------------------
    def board_links(self, response: TextResponse) -> list[PageCursor]:
        data = self.document(response)
        categories = (data.get("category_list") or {}).get("categories") or []
        return [
            PageCursor(
                url=self.canonicalize(urljoin(response.url, f"/c/{c['slug']}/{c['id']}")),
                extra={"board_name": c.get("name")},
            )
            for c in categories
        ]

    def thread_refs(self, response: TextResponse, cursor: PageCursor) -> list[ThreadRef]:
        data = self.document(response)
        topics = (data.get("topic_list") or {}).get("topics") or []
        users = {u["id"]: u.get("username") for u in data.get("users") or []}
        return [self._ref(t, response, cursor, users) for t in topics]

    def _ref(
        self,
        topic: dict[str, Any],
        response: TextResponse,
        cursor: PageCursor,
        users: dict[int, str],
    ) -> ThreadRef:
        poster = next(iter(topic.get("posters") or []), {})
        return ThreadRef(
            url=self.canonicalize(urljoin(response.url, f"/t/{topic['slug']}/{topic['id']}")),
            thread_id=str(topic["id"]),
            title=topic.get("title"),
            author_id=str_or_none(poster.get("user_id")),
            author_name=users.get(poster.get("user_id")),
            reply_count=self.replies(topic.get("posts_count")),
            view_count=topic.get("views"),
            created_raw=topic.get("created_at"),
            last_post_raw=topic.get("last_posted_at"),
            board_id=str_or_none(topic.get("category_id")),
            board_name=cursor.extra.get("board_name"),
        )

    def next_page(self, response: TextResponse, cursor: PageCursor) -> PageCursor | None:
        more = (self.document(response).get("topic_list") or {}).get("more_topics_url")
        return cursor.following(self.canonicalize(urljoin(response.url, more))) if more else None

    # -- threads -------------------------------------------------------------------------------
    def parse_thread(
        self, response: TextResponse, cursor: PageCursor, ref: ThreadRef | None
    ) -> ThreadPage:
        data = self.document(response)
        stream = data.get("post_stream") or {}
        raw_posts = stream.get("posts") or []
        thread_id = (
            str_or_none(data.get("id"))
            or cursor.extra.get("thread_id")
            or self.thread_id_from(response.url)
            or ""
        )
        slug = data.get("slug") or cursor.extra.get("slug") or "-"
        numbers = dict(cursor.extra.get("numbers") or {})
        numbers.update({str(p["post_number"]): str(p["id"]) for p in raw_posts})
        posts = [self._post(p, response, thread_id, slug, numbers) for p in raw_posts]
        remaining = self.remaining_ids(
            cursor, stream.get("stream") or [], {p["id"] for p in raw_posts}
        )
        thread = self._thread(data, response, ref) if cursor.page == 1 else None
        state = {"numbers": numbers, "slug": slug, "thread_id": thread_id}
        return ThreadPage(
            thread=thread, posts=posts, next=self.next_batch(response, cursor, remaining, state)
        )

    def _thread(
        self, data: dict[str, Any], response: TextResponse, ref: ThreadRef | None
    ) -> ThreadRecord:
        creator = (data.get("details") or {}).get("created_by") or {}
        return ThreadRecord(
            thread_id=str(data["id"]),
            url=self.canonicalize(urljoin(response.url, f"/t/{data['slug']}/{data['id']}")),
            title=data.get("title"),
            board=Board(
                id=str_or_none(data.get("category_id")),
                name=ref.board_name if ref else None,
                path=[ref.board_name] if ref and ref.board_name else [],
            ),
            author=Author(name=creator.get("username"), id=str_or_none(creator.get("id"))),
            created_raw=data.get("created_at"),
            reply_count=self.replies(data.get("posts_count")),
            view_count=data.get("views"),
            last_post_at_raw=data.get("last_posted_at"),
        )

    def _post(
        self,
        post: dict[str, Any],
        response: TextResponse,
        thread_id: str,
        slug: str,
        numbers: dict[str, str],
    ) -> PostRecord:
        cooked = post.get("cooked") or ""
        # Quotes of this topic, or without a topic (quotes of the same topic on older versions).
        quote_query = f'aside.quote[data-topic="{thread_id}"], aside.quote:not([data-topic])'
        numbers_quoted = self.fragment(cooked).css(quote_query).xpath("@data-post").getall()
        quoted = [numbers.get(number) for number in numbers_quoted]
        return PostRecord(
            post_id=str(post["id"]),
            thread_id=thread_id,
            url=urljoin(
                response.url,
                self.post_permalink.format(
                    slug=slug, thread_id=thread_id, post_number=post["post_number"]
                ),
            ),
            position=post.get("post_number"),
            author=Author(name=post.get("username"), id=str_or_none(post.get("user_id"))),
            created_raw=post.get("created_at"),
            body_html=cooked.strip() or None,
            quoted_post_ids=[q for q in dict.fromkeys(quoted) if q],
            edited=int(post.get("version") or 1) > 1,
        )
