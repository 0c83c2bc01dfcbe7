"""NodeBB 3.x fixture site: the ``/api`` JSON twins of the HTML routes.

Reproduced: ``X-Powered-By``-less HTML with ``component=`` attributes, ``/api/categories``,
``/api/category/{cid}/{slug}?page=N`` and ``/api/topic/{tid}/{slug}?page=N`` with a
``pagination.next`` object, 0-based post ``index``, millisecond ``timestamp`` plus
``timestampISO``, quotes written as "@user said in [title](/post/pid)", ``edited`` timestamps,
and a private topic answering 403. Pages hold 3 topics / 3 posts here (20 by default).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import SITE_NAME, FBoard, FPost, FThread, build

JSON = "application/json; charset=utf-8"


def iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def user(u: Any) -> dict[str, Any]:
    return {
        "uid": u.id,
        "username": u.name,
        "userslug": f"user{u.id}",
        "picture": None,
        "status": "offline",
        "displayname": u.name,
    }


def home(boards: list[FBoard]) -> str:
    items = "".join(
        f'<li component="categories/category" data-cid="{b.id}" class="category-{b.id}"><h2 class="title"><a href="/category/{b.id}/{b.slug}">{e(b.name)}</a></h2><div class="description">{e(b.description)}</div></li>'
        for b in boards
    )
    return f"""<!DOCTYPE html>
<html lang="zh-CN" data-dir="ltr" style="direction: ltr;">
<head>
<title>{SITE_NAME}</title>
<meta name="viewport" content="width&#x3D;device-width, initial-scale&#x3D;1.0" />
<meta name="content-type" content="text/html; charset=UTF-8" />
<meta property="og:site_name" content="{SITE_NAME}" />
<link rel="stylesheet" type="text/css" href="/assets/client.css?v=abc123" />
<link rel="manifest" href="/manifest.webmanifest" crossorigin="use-credentials" />
<script>var config = JSON.parse('{{"relative_path":"","upload_url":"/assets/uploads","asset_base_url":"/assets","assetBaseUrl":"/assets","siteTitle":"{SITE_NAME}","version":"3.6.0"}}');</script>
</head>
<body class="page-categories template-categories parent-category-0 skin-noskin">
<div class="layout-container d-flex justify-content-between pb-4 pb-md-0">
<main id="panel" class="d-flex flex-column gap-3 flex-grow-1 mt-3" style="min-width: 0;">
<div data-widget-area="header"></div>
<ul component="categories" class="categories-list list-unstyled" itemscope itemtype="http://www.schema.org/ItemList">{items}</ul>
</main></div>
<script defer type="text/javascript" src="/assets/nodebb.min.js?v=abc123"></script>
</body>
</html>
"""


def categories(boards: list[FBoard]) -> str:
    return dump(
        {
            "title": "[[pages:categories]]",
            "categories": [
                {
                    "cid": b.id,
                    "name": b.name,
                    "description": b.description,
                    "descriptionParsed": f"<p>{e(b.description)}</p>",
                    "slug": f"{b.id}/{b.slug}",
                    "parentCid": 0,
                    "topic_count": len(b.threads),
                    "post_count": sum(len(t.posts) for t in b.threads),
                    "disabled": 0,
                    "order": b.id,
                    "link": "",
                    "numRecentReplies": 1,
                    "children": [],
                    "teaser": None,
                }
                for b in boards
            ],
            "pagination": {
                "prev": {"page": 1, "active": False},
                "next": {"page": 1, "active": False},
                "pages": [],
                "currentPage": 1,
                "pageCount": 1,
            },
        }
    )


def pagination(current: int, count: int) -> dict[str, Any]:
    return {
        "prev": {"page": max(current - 1, 1), "active": current > 1},
        "next": {"page": min(current + 1, count), "active": current < count},
        "first": {"page": 1, "active": current != 1},
        "last": {"page": count, "active": current != count},
        "rel": ([{"rel": "next", "href": f"?page={current + 1}"}] if current < count else []),
        "pages": [{"page": n, "active": n == current, "qs": f"page={n}"} for n in range(1, count + 1)],
        "currentPage": current,
        "pageCount": count,
    }


def topic_summary(b: FBoard, t: FThread) -> dict[str, Any]:
    first, last = t.posts[0], t.posts[-1]
    return {
        "tid": t.id,
        "uid": first.author.id,
        "cid": b.id,
        "mainPid": first.id,
        "title": t.title,
        "slug": f"{t.id}/{t.slug}",
        "timestamp": ms(first.at),
        "lastposttime": ms(last.at),
        "postcount": len(t.posts),
        "viewcount": t.views,
        "postercount": len({p.author.id for p in t.posts}),
        "deleted": 0,
        "locked": 0,
        "pinned": 0,
        "timestampISO": iso(first.at),
        "lastposttimeISO": iso(last.at),
        "titleRaw": t.title,
        "user": user(first.author),
        "teaser": {"pid": last.id, "timestampISO": iso(last.at), "user": user(last.author)},
        "tags": [],
        "category": {"cid": b.id, "name": b.name, "slug": f"{b.id}/{b.slug}"},
    }


def category_json(b: FBoard, page: int) -> str:
    pages = b.pages()
    return dump(
        {
            "cid": b.id,
            "name": b.name,
            "description": b.description,
            "slug": f"{b.id}/{b.slug}",
            "topic_count": len(b.threads),
            "topics": [topic_summary(b, t) for t in pages[page - 1]],
            "breadcrumbs": [{"text": "[[global:home]]", "url": "/"}, {"text": b.name}],
            "pagination": pagination(page, len(pages)),
            "title": b.name,
        }
    )


def content(post: FPost, t: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in t.posts if p.id == post.quote_of)
        parts.append(
            f'<blockquote>\n<p><a class="plugin-mentions-user plugin-mentions-a" href="/uid/{q.author.id}">@{e(q.author.name)}</a> said in <a href="/post/{q.id}">{e(t.title)}</a>:</p>\n<p>{e(q.paragraphs[0])}</p>\n</blockquote>\n'
        )
    parts.extend(f'<p dir="auto">{e(p)}</p>\n' for p in post.paragraphs)
    if post.code:
        parts.append(
            '<pre><code class="hljs language-python">'
            + "\n".join(code_lines(post.code))
            + "\n</code></pre>\n"
        )
    return "".join(parts)


def post_json(post: FPost, t: FThread) -> dict[str, Any]:
    return {
        "pid": post.id,
        "uid": post.author.id,
        "tid": t.id,
        "content": content(post, t),
        "timestamp": ms(post.at),
        "deleted": 0,
        "upvotes": 0,
        "downvotes": 0,
        "votes": 0,
        "timestampISO": iso(post.at),
        "edited": ms(post.edited_at) if post.edited_at else 0,
        "editedISO": iso(post.edited_at) if post.edited_at else "",
        "index": t.posts.index(post),
        "toPid": str(post.quote_of) if post.quote_of else None,
        "user": user(post.author),
        "editor": user(post.author) if post.edited_at else None,
        "bookmarked": False,
        "display_edit_tools": False,
    }


def topic_json(b: FBoard, t: FThread, page: int) -> str:
    pages = t.pages()
    first, last = t.posts[0], t.posts[-1]
    return dump(
        {
            "tid": t.id,
            "uid": first.author.id,
            "cid": b.id,
            "mainPid": first.id,
            "title": t.title,
            "slug": f"{t.id}/{t.slug}",
            "timestamp": ms(first.at),
            "lastposttime": ms(last.at),
            "postcount": len(t.posts),
            "viewcount": t.views,
            "timestampISO": iso(first.at),
            "lastposttimeISO": iso(last.at),
            "titleRaw": t.title,
            "posts": [post_json(p, t) for p in pages[page - 1]],
            "category": {"cid": b.id, "name": b.name, "slug": f"{b.id}/{b.slug}"},
            "breadcrumbs": [
                {"text": "[[global:home]]", "url": "/"},
                {"text": b.name, "url": f"/category/{b.id}/{b.slug}", "cid": b.id},
                {"text": t.title},
            ],
            "pagination": pagination(page, len(pages)),
            "postIndex": (page - 1) * len(pages[0]) + 1,
        }
    )


def render() -> Site:
    site = Site("nodebb", start="/")
    boards = build()
    site.add("/", home(boards), filename="index.html")
    site.add("/api/categories", categories(boards), filename="api-categories.json", content_type=JSON)
    for b in boards:
        for page in range(1, len(b.pages()) + 1):
            q = f"?page={page}" if page > 1 else ""
            site.add(
                f"/api/category/{b.id}/{b.slug}{q}",
                category_json(b, page),
                filename=f"api-category-{b.id}-{page}.json",
                content_type=JSON,
            )
        for t in b.threads:
            if t.denied:
                site.add(
                    f"/api/topic/{t.id}/{t.slug}",
                    dump({"error": "[[error:no-privileges]]"}),
                    filename=f"api-topic-{t.id}.json",
                    content_type=JSON,
                    status=403,
                )
                continue
            for page in range(1, len(t.pages()) + 1):
                q = f"?page={page}" if page > 1 else ""
                site.add(
                    f"/api/topic/{t.id}/{t.slug}{q}",
                    topic_json(b, t, page),
                    filename=f"api-topic-{t.id}-{page}.json",
                    content_type=JSON,
                )
    return site
