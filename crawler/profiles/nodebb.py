"""NodeBB: every page route has a JSON twin under ``/api``; the profile reads only those.

``/api/categories`` -> ``/api/category/{cid}/{slug}?page=N`` -> ``/api/topic/{tid}/{slug}?page=N``.
Posts carry ``index`` (0-based position), ``timestampISO`` and ``edited`` (ms, 0 = never).
Quotes are Markdown blockquotes whose first line links ``/post/{pid}``.
Detection: the ``X-Powered-By: NodeBB`` header when present, else ``component=`` markup.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from scrapy.http import Response, TextResponse

from crawler.items import Author, Board
from crawler.login.forms import LoginForm
from crawler.profiles._utils import str_or_none
from crawler.profiles.base import PageCursor, PageKind
from crawler.profiles.jsonapi import JsonApiProfile
from crawler.profiles.records import PostRecord, ThreadPage, ThreadRecord, ThreadRef

_POST_LINK = re.compile(r"/post/(\d+)")


class NodeBB(JsonApiProfile):
    name = "nodebb"
    detect_order = 90

    markers = ('script[src*="nodebb.min.js"]', "[component]", 'link[href*="/assets/client.css"]')
    min_markers = 2

    index_url = re.compile(r"^https?://[^/]+/(?:api/)?(?:categories)?(?:\?.*)?$")
    board_url = re.compile(r"/category/(?P<bid>\d+)(?:/|$|\?)")
    thread_url = re.compile(r"/topic/(?P<tid>\d+)(?:/|$|\?)")
    post_permalink = "/post/{post_id}"
    login = LoginForm(
        # the form has no token input: its CSRF token is the page's config.csrf_token; a
        # wrong password answers 403 "[[error:invalid-username-or-password]]" (read as such:
        # every page's noscript warning is an .alert-danger)
        url="/login", error=("#login-error-notify",),
        logged_in='[component="user/logout"], a[href*="logout"]',
        denied=("[[error:no-privileges]]", "[[error:not-logged-in]]", "[[global:403.title]]"),
        token="_csrf", token_pattern=r'"csrf_token":"([^"]+)"',
    )

    @classmethod
    def detect(cls, response: Response) -> bool:
        powered = response.headers.get(b"X-Powered-By", b"").decode("latin-1")
        return powered.startswith("NodeBB") or super().detect(response)

    def request_url(self, kind: PageKind, url: str) -> str:
        parts = urlsplit(url)
        if kind is PageKind.INDEX:
            return urljoin(url, "/api/categories")
        if parts.path.startswith("/api/"):
            return url
        return urlunsplit(parts._replace(path="/api" + parts.path))

    def is_error_document(self, data: dict[str, Any]) -> bool:
        return "error" in data and len(data) <= 2

    def board_links(self, response: TextResponse) -> list[PageCursor]:
        data = self.document(response)
        cursors = []
        for category in _walk(data.get("categories") or []):
            url = self.canonicalize(urljoin(response.url, f"/category/{category['slug']}"))
            cursors.append(PageCursor(url=url, extra={"board_name": category.get("name")}))
        if data.get("cid") is not None:  # a category page lists its children too
            cursors = [c for c in cursors if self.board_id_from(c.url) != str(data["cid"])]
        return cursors

    def thread_refs(self, response: TextResponse, cursor: PageCursor) -> list[ThreadRef]:
        data = self.document(response)
        return [
            ThreadRef(
                url=self.canonicalize(urljoin(response.url, f"/topic/{t['slug']}")),
                thread_id=str(t["tid"]),
                title=t.get("titleRaw") or t.get("title"),
                author_name=(t.get("user") or {}).get("username"),
                author_id=str_or_none((t.get("user") or {}).get("uid")),
                reply_count=self.replies(t.get("postcount")),
                view_count=t.get("viewcount"),
                created_raw=t.get("timestampISO"),
                last_post_raw=t.get("lastposttimeISO"),
                board_id=str_or_none(t.get("cid") or data.get("cid")),
                board_name=data.get("name") or cursor.extra.get("board_name"),
            )
            for t in data.get("topics") or []
        ]

    def next_page(self, response: TextResponse, cursor: PageCursor) -> PageCursor | None:
        # Numbered pages, for category and topic alike: NodeBB lists no ids to batch.
        nxt = (self.document(response).get("pagination") or {}).get("next") or {}
        if not nxt.get("active"):
            return None
        url = urlunsplit(urlsplit(cursor.url)._replace(query=f"page={nxt['page']}"))
        return cursor.following(self.canonicalize(url))

    def parse_thread(
        self, response: TextResponse, cursor: PageCursor, ref: ThreadRef | None
    ) -> ThreadPage:
        data = self.document(response)
        thread_id = str_or_none(data.get("tid")) or self.thread_id_from(response.url) or ""
        posts = [self._post(p, response, thread_id) for p in data.get("posts") or []]
        thread = self._thread(data, response) if cursor.page == 1 else None
        return ThreadPage(thread=thread, posts=posts, next=self.next_page(response, cursor))

    def _thread(self, data: dict[str, Any], response: TextResponse) -> ThreadRecord:
        category = data.get("category") or {}
        crumbs = [
            c["text"]
            for c in data.get("breadcrumbs") or []
            if c.get("url") and not c["text"].startswith("[[")
        ]
        opener = next(iter(data.get("posts") or []), {})
        return ThreadRecord(
            thread_id=str(data["tid"]),
            url=self.canonicalize(urljoin(response.url, f"/topic/{data['slug']}")),
            title=data.get("titleRaw") or data.get("title"),
            board=Board(
                id=str_or_none(category.get("cid")), name=category.get("name"), path=crumbs
            ),
            author=Author(
                name=(opener.get("user") or {}).get("username"), id=str_or_none(data.get("uid"))
            ),
            created_raw=data.get("timestampISO"),
            reply_count=self.replies(data.get("postcount")),
            view_count=data.get("viewcount"),
            last_post_at_raw=data.get("lastposttimeISO"),
        )

    def _post(self, post: dict[str, Any], response: TextResponse, thread_id: str) -> PostRecord:
        html = post.get("content") or ""
        links = self.fragment(html).css("blockquote a[href*='/post/']::attr(href)").getall()
        quoted = [m.group(1) for m in map(_POST_LINK.search, links) if m]
        index = post.get("index")
        return PostRecord(
            post_id=str(post["pid"]),
            thread_id=thread_id,
            url=urljoin(response.url, self.post_permalink.format(post_id=post["pid"])),
            position=index + 1 if isinstance(index, int) else None,
            author=Author(
                name=(post.get("user") or {}).get("username"), id=str_or_none(post.get("uid"))
            ),
            created_raw=post.get("timestampISO") or post.get("timestamp"),
            body_html=html.strip() or None,
            quoted_post_ids=list(dict.fromkeys(quoted)),
            edited=bool(post.get("edited")),
        )


def _walk(categories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for category in categories:
        out.append(category)
        out.extend(_walk(category.get("children") or []))
    return out
