"""Flarum: the forum is a JavaScript app over a JSON:API at ``/api``; the profile reads that.

Boards are tags: ``/api/tags`` -> ``/api/discussions?filter[tag]={slug}`` (``links.next``) ->
``/api/discussions/{id}`` (every post id in ``relationships.posts``, the first posts in
``included``) -> the rest through ``/api/posts?filter[id]=…`` in batches of 20.
HTML URLs: ``/t/{slug}`` for a tag, ``/d/{id}-{slug}`` for a discussion.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

from parsel import Selector
from scrapy.http import TextResponse

from crawler.items import Author, Board
from crawler.profiles._utils import json_or_none
from crawler.profiles.base import ForumProfile, PageCursor, PageKind, ThreadPage, ThreadRef

BATCH = 20


class Flarum(ForumProfile):
    name = "flarum"

    markers = ("div#flarum-loading", "script#flarum-json-payload")

    index_url = re.compile(r"^https?://[^/]+/(?:api/tags)?(?:\?.*)?$")
    board_url = re.compile(r"/t/(?P<bid>[^/?#]+)|/api/discussions\?(?=.*filter(?:%5B|\[)tag(?:%5D|\])=)")
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

    def is_soft_404(self, response: TextResponse) -> bool:
        data = json_or_none(response)
        return isinstance(data, dict) and "errors" in data and "data" not in data

    def board_links(self, response: TextResponse) -> list[PageCursor]:
        data = json_or_none(response) or {}
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
        data = json_or_none(response) or {}
        users = _included(data, "users")
        refs = []
        for d in data.get("data") or []:
            attrs = d["attributes"]
            uid = (((d.get("relationships") or {}).get("user") or {}).get("data") or {}).get("id")
            refs.append(
                ThreadRef(
                    url=urljoin(response.url, f"/d/{attrs['slug']}"),
                    thread_id=d["id"],
                    title=attrs.get("title"),
                    author_id=uid,
                    author_name=(users.get(uid) or {}).get("username"),
                    reply_count=max(int(attrs.get("commentCount") or 1) - 1, 0),
                    created_raw=attrs.get("createdAt"),
                    last_post_raw=attrs.get("lastPostedAt"),
                    board_id=cursor.extra.get("board_id"),
                    board_name=cursor.extra.get("board_name"),
                )
            )
        return refs

    def next_page(self, response: TextResponse, cursor: PageCursor) -> PageCursor | None:
        nxt = ((json_or_none(response) or {}).get("links") or {}).get("next")
        if not nxt:
            return None
        return PageCursor(
            url=self.canonicalize(urljoin(response.url, nxt)), page=cursor.page + 1, extra=dict(cursor.extra)
        )

    def parse_thread(self, response: TextResponse, cursor: PageCursor, ref: ThreadRef | None) -> ThreadPage:
        data = json_or_none(response) or {}
        users = _included(data, "users")
        if cursor.page == 1:
            discussion = data["data"]
            thread_id = discussion["id"]
            slug = discussion["attributes"]["slug"]
            raw_posts = list(_included(data, "posts").values())
            all_ids = [p["id"] for p in discussion["relationships"]["posts"]["data"]]
            seen = {p["id"] for p in raw_posts}
            remaining = [i for i in all_ids if i not in seen]
            thread = self._thread(discussion, response, ref, users)
        else:
            thread_id, slug = cursor.extra["thread_id"], cursor.extra["slug"]
            raw_posts = [p for p in data.get("data") or [] if p.get("type") == "posts"]
            remaining = list(cursor.extra.get("remaining") or [])
            thread = None
        posts = [
            self._post(p, response, thread_id, slug, users)
            for p in raw_posts
            if p["attributes"].get("contentType") == "comment"
        ]
        nxt = None
        if remaining:
            nxt = PageCursor(
                url=urljoin(response.url, "/api/posts?filter[id]=" + ",".join(remaining[:BATCH])),
                page=cursor.page + 1,
                extra={"remaining": remaining[BATCH:], "thread_id": thread_id, "slug": slug},
            )
        return ThreadPage(thread=thread, posts=posts, next=nxt)

    def _thread(
        self, d: dict[str, Any], response: TextResponse, ref: ThreadRef | None, users: dict[str, Any]
    ) -> dict[str, Any]:
        attrs = d["attributes"]
        uid = (((d.get("relationships") or {}).get("user") or {}).get("data") or {}).get("id")
        return {
            "thread_id": d["id"],
            "url": urljoin(response.url, f"/d/{attrs['slug']}"),
            "title": attrs.get("title"),
            "board": Board(
                id=ref.board_id if ref else None,
                name=ref.board_name if ref else None,
                path=[ref.board_name] if ref and ref.board_name else [],
            ),
            "author": Author(name=(users.get(uid) or {}).get("username"), id=uid),
            "created_raw": attrs.get("createdAt"),
            "reply_count": max(int(attrs.get("commentCount") or 1) - 1, 0),
            "last_post_at_raw": attrs.get("lastPostedAt"),
        }

    def _post(
        self, p: dict[str, Any], response: TextResponse, thread_id: str, slug: str, users: dict[str, Any]
    ) -> dict[str, Any]:
        attrs = p["attributes"]
        uid = (((p.get("relationships") or {}).get("user") or {}).get("data") or {}).get("id")
        html = attrs.get("contentHtml") or ""
        quoted = Selector(text=html or "<p></p>").css("a.PostMention::attr(data-id)").getall()
        return {
            "post_id": p["id"],
            "thread_id": thread_id,
            "url": urljoin(
                response.url, self.post_permalink.format(thread_id=slug, number=attrs.get("number"))
            ),
            "position": attrs.get("number"),
            "author": Author(name=(users.get(uid) or {}).get("username"), id=uid),
            "created_raw": attrs.get("createdAt"),
            "body_html": html.strip() or None,
            "quoted_post_ids": list(dict.fromkeys(quoted)),
            "edited": bool(attrs.get("editedAt")),
        }

    def thread_id_from(self, url: str) -> str | None:
        found = super().thread_id_from(url)
        if found:
            return found
        ids = parse_qs(urlsplit(url).query).get("filter[discussion]")
        return ids[0] if ids else None


def _included(data: dict[str, Any], kind: str) -> dict[str, Any]:
    found = {}
    for resource in data.get("included") or []:
        if resource.get("type") == kind:
            found[resource["id"]] = (
                {**resource, **resource.get("attributes", {})} if kind == "users" else resource
            )
    return found
