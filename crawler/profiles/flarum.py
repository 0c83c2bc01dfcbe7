"""Flarum: the forum is a JavaScript app over a JSON:API at ``/api``; the profile reads that.

Boards are tags: ``/api/tags`` -> ``/api/discussions?filter[tag]={slug}`` (``links.next``) ->
``/api/discussions/{id}`` (every post id in ``relationships.posts``, the first posts in
``included``) -> the rest through ``/api/posts?filter[id]=…``, 20 at a time (id-batch paging,
:class:`~crawler.profiles.jsonapi.JsonApiProfile`).
HTML URLs: ``/t/{slug}`` for a tag, ``/d/{id}-{slug}`` for a discussion.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

from scrapy.http import TextResponse

from crawler.items import Author, Board
from crawler.profiles.base import PageCursor, PageKind
from crawler.profiles.jsonapi import JsonApiProfile
from crawler.profiles.records import PostRecord, ThreadPage, ThreadRecord, ThreadRef


class Flarum(JsonApiProfile):
    name = "flarum"
    detect_order = 100

    markers = ("div#flarum-loading", "script#flarum-json-payload")

    index_url = re.compile(r"^https?://[^/]+/(?:api/tags)?(?:\?.*)?$")
    board_url = re.compile(
        r"/t/(?P<bid>[^/?#]+)|/api/discussions\?(?=.*filter(?:%5B|\[)tag(?:%5D|\])=)"
    )
    thread_url = re.compile(r"/d/(?P<tid>\d+)|/api/discussions/(?P<tid2>\d+)|/api/posts\?")
    post_permalink = "/d/{thread_id}/{number}"

    def request_url(self, kind: PageKind, url: str) -> str:
        parts = urlsplit(url)
        if parts.path.startswith("/api/"):
            return url
        if kind is PageKind.INDEX:
            return urljoin(url, "/api/tags")
        if kind is PageKind.BOARD:
            slug = parts.path.rstrip("/").rsplit("/", 1)[-1]
            return urljoin(url, f"/api/discussions?filter[tag]={slug}")
        return urljoin(url, f"/api/discussions/{self.thread_id_from(url)}")

    def is_error_document(self, data: dict[str, Any]) -> bool:
        return "errors" in data and "data" not in data

    def batch_url(self, thread_id: str, ids: list[Any]) -> str:
        return "/api/posts?filter[id]=" + ",".join(ids)

    def board_links(self, response: TextResponse) -> list[PageCursor]:
        data = self.document(response)
        if not isinstance(data.get("data"), list) or urlsplit(response.url).path != "/api/tags":
            return []
        return [
            PageCursor(
                url=urljoin(response.url, f"/t/{t['attributes']['slug']}"),
                extra={"board_name": t["attributes"].get("name"), "board_id": t["id"]},
            )
            for t in data["data"]
            if t.get("type") == "tags"
        ]

    def thread_refs(self, response: TextResponse, cursor: PageCursor) -> list[ThreadRef]:
        data = self.document(response)
        users = _included(data, "users")
        refs = []
        for d in data.get("data") or []:
            attrs = d["attributes"]
            uid = _user_id(d)
            refs.append(
                ThreadRef(
                    url=urljoin(response.url, f"/d/{attrs['slug']}"),
                    thread_id=d["id"],
                    title=attrs.get("title"),
                    author_id=uid,
                    author_name=(users.get(uid) or {}).get("username"),
                    reply_count=self.replies(attrs.get("commentCount")),
                    created_raw=attrs.get("createdAt"),
                    last_post_raw=attrs.get("lastPostedAt"),
                    board_id=cursor.extra.get("board_id"),
                    board_name=cursor.extra.get("board_name"),
                )
            )
        return refs

    def next_page(self, response: TextResponse, cursor: PageCursor) -> PageCursor | None:
        nxt = (self.document(response).get("links") or {}).get("next")
        return cursor.following(self.canonicalize(urljoin(response.url, nxt))) if nxt else None

    def parse_thread(
        self, response: TextResponse, cursor: PageCursor, ref: ThreadRef | None
    ) -> ThreadPage:
        data = self.document(response)
        users = _included(data, "users")
        if cursor.page == 1:
            discussion = data["data"]
            thread_id = discussion["id"]
            slug = discussion["attributes"]["slug"]
            raw_posts = list(_included(data, "posts").values())
            all_ids = [p["id"] for p in discussion["relationships"]["posts"]["data"]]
            thread = self._thread(discussion, response, ref, users)
        else:
            thread_id, slug = cursor.extra["thread_id"], cursor.extra["slug"]
            raw_posts = [p for p in data.get("data") or [] if p.get("type") == "posts"]
            all_ids = []
            thread = None
        posts = [
            self._post(p, response, thread_id, slug, users)
            for p in raw_posts
            if p["attributes"].get("contentType") == "comment"
        ]
        remaining = self.remaining_ids(cursor, all_ids, {p["id"] for p in raw_posts})
        state = {"thread_id": thread_id, "slug": slug}
        return ThreadPage(
            thread=thread, posts=posts, next=self.next_batch(response, cursor, remaining, state)
        )

    def _thread(
        self,
        d: dict[str, Any],
        response: TextResponse,
        ref: ThreadRef | None,
        users: dict[str, Any],
    ) -> ThreadRecord:
        attrs = d["attributes"]
        uid = _user_id(d)
        return ThreadRecord(
            thread_id=d["id"],
            url=urljoin(response.url, f"/d/{attrs['slug']}"),
            title=attrs.get("title"),
            board=Board(
                id=ref.board_id if ref else None,
                name=ref.board_name if ref else None,
                path=[ref.board_name] if ref and ref.board_name else [],
            ),
            author=Author(name=(users.get(uid) or {}).get("username"), id=uid),
            created_raw=attrs.get("createdAt"),
            reply_count=self.replies(attrs.get("commentCount")),
            last_post_at_raw=attrs.get("lastPostedAt"),
        )

    def _post(
        self,
        p: dict[str, Any],
        response: TextResponse,
        thread_id: str,
        slug: str,
        users: dict[str, Any],
    ) -> PostRecord:
        attrs = p["attributes"]
        uid = _user_id(p)
        html = attrs.get("contentHtml") or ""
        quoted = self.fragment(html).css("a.PostMention::attr(data-id)").getall()
        return PostRecord(
            post_id=p["id"],
            thread_id=thread_id,
            url=urljoin(
                response.url,
                self.post_permalink.format(thread_id=slug, number=attrs.get("number")),
            ),
            position=attrs.get("number"),
            author=Author(name=(users.get(uid) or {}).get("username"), id=uid),
            created_raw=attrs.get("createdAt"),
            body_html=html.strip() or None,
            quoted_post_ids=list(dict.fromkeys(quoted)),
            edited=bool(attrs.get("editedAt")),
        )

    def thread_id_from(self, url: str) -> str | None:
        found = super().thread_id_from(url)
        if found:
            return found
        ids = parse_qs(urlsplit(url).query).get("filter[discussion]")
        return ids[0] if ids else None


def _user_id(resource: dict[str, Any]) -> str | None:
    return (((resource.get("relationships") or {}).get("user") or {}).get("data") or {}).get("id")


def _included(data: dict[str, Any], kind: str) -> dict[str, Any]:
    found = {}
    for resource in data.get("included") or []:
        if resource.get("type") == kind:
            found[resource["id"]] = (
                {**resource, **resource.get("attributes", {})} if kind == "users" else resource
            )
    return found
