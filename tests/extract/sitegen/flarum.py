"""Flarum 1.8 fixture site: the JSON:API under ``/api``.

Reproduced: ``#flarum-loading`` and ``script#flarum-json-payload`` on the HTML page,
``/api/tags``, ``/api/discussions?filter[tag]=slug`` with absolute ``links.next``
(``page[offset]``), ``/api/discussions/{id}`` with ``relationships.posts`` listing every post id
and the first posts in ``included``, the rest through ``/api/posts?filter[id]=…``, users in
``included``, ``PostMention`` links for quotes, ``editedAt`` for edits, and a private discussion
answering 404 with a JSON:API error.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import (
    POSTS_PER_PAGE,
    SITE_NAME,
    THREADS_PER_PAGE,
    FBoard,
    FPost,
    FThread,
    User,
    build,
)

JSON = "application/vnd.api+json"
ORIGIN = "http://fixture.invalid"


def iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def user(u: User) -> dict[str, Any]:
    return {
        "type": "users",
        "id": str(u.id),
        "attributes": {"username": u.name, "displayName": u.name, "avatarUrl": None, "slug": u.name},
    }


def home(boards: list[FBoard]) -> str:
    payload = {
        "resources": [],
        "session": {"userId": 0, "csrfToken": "abc"},
        "locale": "zh-Hans",
        "apiDocument": {"data": [tag(b) for b in boards]},
    }
    noscript = "".join(f'<li><a href="{ORIGIN}/t/{b.slug}">{e(b.name)}</a></li>' for b in boards)
    return f"""<!doctype html>
<html  dir="ltr"        lang="zh-Hans" >
<head>
<meta charset="utf-8">
<title>{SITE_NAME}</title>
<link rel="stylesheet" href="{ORIGIN}/assets/forum.css?v=0a1b2c3d">
<link rel="canonical" href="{ORIGIN}/">
<meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1, minimum-scale=1">
<meta name="description" content="">
<meta name="theme-color" content="#4D698E">
</head>
<body>
<div id="app" class="App">
<div id="app-navigation" class="App-navigation"></div>
<div id="drawer" class="App-drawer"><header id="header" class="App-header"><div id="header-navigation" class="Header-navigation"></div><div class="container"><h1 class="Header-title"><a href="{ORIGIN}" id="home-link">{SITE_NAME}</a></h1></div></header></div>
<main class="App-content"><div id="content"></div>
<div id="flarum-loading" style="display: none">正在加载...</div>
<noscript><div class="Alert"><div class="container">This site is best viewed in a modern browser with JavaScript enabled.</div></div>
<div class="container"><h2>全部主题</h2><ul>{noscript}</ul></div></noscript>
<div id="flarum-loading-error" style="display: none"><div class="Alert"><div class="container">Something went wrong while trying to load the full version of this site.</div></div></div>
</main></div>
<script src="{ORIGIN}/assets/forum.js?v=0a1b2c3d"></script>
<script src="{ORIGIN}/assets/forum-zh-Hans.js?v=0a1b2c3d"></script>
<script id="flarum-json-payload" type="application/json">{dump(payload)}</script>
<script>document.getElementById('flarum-loading').style.display = 'block'; var flarum = {{extensions: {{}}}};</script>
</body>
</html>
"""


def tag(b: FBoard) -> dict[str, Any]:
    return {
        "type": "tags",
        "id": str(b.id),
        "attributes": {
            "name": b.name,
            "description": b.description,
            "slug": b.slug,
            "color": "#888",
            "discussionCount": len(b.threads),
            "position": b.id,
            "isChild": False,
            "isHidden": False,
        },
    }


def discussion(b: FBoard, t: FThread, posts: list[FPost] | None = None) -> dict[str, Any]:
    first, last = t.posts[0], t.posts[-1]
    rel: dict[str, Any] = {
        "user": {"data": {"type": "users", "id": str(first.author.id)}},
        "tags": {"data": [{"type": "tags", "id": str(b.id)}]},
    }
    if posts is not None:
        rel["posts"] = {"data": [{"type": "posts", "id": str(p.id)} for p in t.posts]}
    return {
        "type": "discussions",
        "id": str(t.id),
        "attributes": {
            "title": t.title,
            "slug": f"{t.id}-{t.slug}",
            "commentCount": len(t.posts),
            "participantCount": len({p.author.id for p in t.posts}),
            "createdAt": iso(first.at),
            "lastPostedAt": iso(last.at),
            "lastPostNumber": len(t.posts),
            "canReply": False,
            "isSticky": False,
            "isLocked": False,
        },
        "relationships": rel,
    }


def cooked(post: FPost, t: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in t.posts if p.id == post.quote_of)
        number = t.posts.index(q) + 1
        parts.append(
            f'<p><a href="{ORIGIN}/d/{t.id}-{t.slug}/{number}" class="PostMention" data-id="{q.id}" rel="ugc nofollow">{e(q.author.name)}</a></p>\n<blockquote><p>{e(q.paragraphs[0])}</p></blockquote>\n'
        )
    parts.extend(f"<p>{e(p)}</p>\n" for p in post.paragraphs)
    if post.code:
        parts.append(
            '<pre><code class="language-python">' + "\n".join(code_lines(post.code)) + "</code></pre>\n"
        )
    return "".join(parts)


def post_res(p: FPost, t: FThread) -> dict[str, Any]:
    attrs = {
        "number": t.posts.index(p) + 1,
        "createdAt": iso(p.at),
        "contentType": "comment",
        "contentHtml": cooked(p, t),
        "renderFailed": False,
        "canEdit": False,
        "canDelete": False,
    }
    if p.edited_at:
        attrs["editedAt"] = iso(p.edited_at)
    return {
        "type": "posts",
        "id": str(p.id),
        "attributes": attrs,
        "relationships": {
            "discussion": {"data": {"type": "discussions", "id": str(t.id)}},
            "user": {"data": {"type": "users", "id": str(p.author.id)}},
        },
    }


def users_of(posts: list[FPost]) -> list[dict[str, Any]]:
    seen = {p.author.id: p.author for p in posts}
    return [user(u) for u in seen.values()]


def list_url(b: FBoard, offset: int) -> str:
    q = f"filter[tag]={b.slug}" + (f"&page[offset]={offset}" if offset else "")
    return f"/api/discussions?{q}"


def discussions_json(b: FBoard, page: int) -> str:
    pages = b.pages()
    links = {"first": ORIGIN + list_url(b, 0)}
    if page + 1 < len(pages):
        links["next"] = ORIGIN + list_url(b, (page + 1) * THREADS_PER_PAGE).replace("[", "%5B").replace(
            "]", "%5D"
        )
    threads = pages[page]
    return dump(
        {
            "links": links,
            "data": [discussion(b, t) for t in threads],
            "included": users_of([t.posts[0] for t in threads]) + [tag(b)],
        }
    )


def discussion_json(b: FBoard, t: FThread) -> str:
    first_posts = t.posts[:POSTS_PER_PAGE]
    return dump(
        {
            "data": discussion(b, t, posts=t.posts),
            "included": [post_res(p, t) for p in first_posts] + users_of(first_posts) + [tag(b)],
        }
    )


def posts_json(t: FThread, posts: list[FPost]) -> str:
    return dump(
        {
            "links": {"first": ORIGIN + "/api/posts"},
            "data": [post_res(p, t) for p in posts],
            "included": users_of(posts),
        }
    )


def render() -> Site:
    site = Site("flarum", start="/")
    boards = build()
    site.add("/", home(boards), filename="index.html")
    site.add(
        "/api/tags", dump({"data": [tag(b) for b in boards]}), filename="api-tags.json", content_type=JSON
    )
    for b in boards:
        for page in range(len(b.pages())):
            site.add(
                list_url(b, page * THREADS_PER_PAGE),
                discussions_json(b, page),
                filename=f"api-discussions-{b.id}-{page}.json",
                content_type=JSON,
            )
        for t in b.threads:
            if t.denied:
                site.add(
                    f"/api/discussions/{t.id}",
                    dump({"errors": [{"status": "404", "code": "not_found"}]}),
                    filename=f"api-discussion-{t.id}.json",
                    content_type=JSON,
                    status=404,
                )
                continue
            site.add(
                f"/api/discussions/{t.id}",
                discussion_json(b, t),
                filename=f"api-discussion-{t.id}.json",
                content_type=JSON,
            )
            rest = t.posts[POSTS_PER_PAGE:]
            if rest:
                ids = ",".join(str(p.id) for p in rest[:20])
                site.add(
                    f"/api/posts?filter[id]={ids}",
                    posts_json(t, rest[:20]),
                    filename=f"api-posts-{t.id}.json",
                    content_type=JSON,
                )
    return site
