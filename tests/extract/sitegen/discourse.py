"""Discourse fixture site: the JSON API twins of the HTML routes.

Reproduced: the generator meta and ``#data-discourse-setup`` on the HTML page, ``/categories.json``,
``/c/{slug}/{id}.json`` with ``more_topics_url`` (0-based ``?page=``), ``/t/{slug}/{id}.json`` with
a first chunk of posts plus the full ``post_stream.stream``, ``/t/{id}/posts.json?post_ids[]=``
for the rest, quotes as ``aside.quote[data-post]`` (post *numbers*), ``version`` > 1 for edits,
and a private topic that answers 403 with ``error_type: invalid_access``.
The first chunk has 3 posts here (20 on real sites) so that the batch path runs.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import (
    POSTS_PER_PAGE,
    SITE_NAME,
    FBoard,
    FPost,
    FThread,
    build,
)

JSON = "application/json; charset=utf-8"


def iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def home(boards: list[FBoard]) -> str:
    rows = "".join(
        f'<tr><td class="category"><h3><a href="/c/{b.slug}/{b.id}">{e(b.name)}</a></h3><div class="category-description">{e(b.description)}</div></td></tr>'
        for b in boards
    )
    return f"""<!DOCTYPE html>
<html lang="zh_CN" class="desktop-view not-mobile-device text-size-normal anon">
<head>
<meta charset="utf-8">
<title>{SITE_NAME}</title>
<meta name="description" content="">
<meta name="generator" content="Discourse 3.2.0 - https://github.com/discourse/discourse version 0a1b2c3d">
<link rel="canonical" href="http://127.0.0.1/" />
<meta id="data-discourse-setup" data-base-url="http://127.0.0.1" data-base-uri="" data-environment="production" data-disable-custom-css="false">
<script defer src="/assets/start-discourse.js"></script>
</head>
<body class="crawler ">
<header><a href="/"><img src="/uploads/default/original/1X/logo.png" alt="{SITE_NAME}" id="site-logo"></a></header>
<div id="main-outlet" class="wrap" role="main">
<div class="category-list"><table class="category-list"><tbody>{rows}</tbody></table></div>
</div>
<footer class="container wrap"><nav class="crawler-nav"><ul><li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/" itemprop="url">Home </a></span></li></ul></nav>
<p class="powered-by-link">Powered by <a href="https://www.discourse.org">Discourse</a>, best viewed with JavaScript enabled</p></footer>
</body>
</html>
"""


def categories(boards: list[FBoard]) -> str:
    return dump(
        {
            "category_list": {
                "can_create_category": False,
                "can_create_topic": False,
                "categories": [
                    {
                        "id": b.id,
                        "name": b.name,
                        "color": "0088CC",
                        "slug": b.slug,
                        "topic_count": len(b.threads),
                        "post_count": sum(len(t.posts) for t in b.threads),
                        "position": b.id,
                        "description": b.description,
                        "description_text": b.description,
                        "topic_url": f"/t/about-the-{b.slug}-category/{b.id}00",
                        "read_restricted": False,
                        "permission": None,
                        "subcategory_ids": [],
                        "has_children": False,
                    }
                    for b in boards
                ],
            }
        }
    )


def topic_summary(board: FBoard, t: FThread) -> dict[str, Any]:
    first, last = t.posts[0], t.posts[-1]
    return {
        "id": t.id,
        "title": t.title,
        "fancy_title": e(t.title),
        "slug": t.slug,
        "posts_count": len(t.posts),
        "reply_count": 0,
        "highest_post_number": len(t.posts),
        "created_at": iso(first.at),
        "last_posted_at": iso(last.at),
        "bumped": True,
        "bumped_at": iso(last.at),
        "archetype": "regular",
        "unseen": False,
        "pinned": False,
        "visible": True,
        "closed": False,
        "archived": False,
        "views": t.views,
        "like_count": 0,
        "has_summary": False,
        "last_poster_username": last.author.name,
        "category_id": board.id,
        "pinned_globally": False,
        "posters": [
            {
                "extras": "latest single",
                "description": "Original Poster, Most Recent Poster",
                "user_id": first.author.id,
                "primary_group_id": None,
            }
        ],
    }


def board_json(board: FBoard, page: int) -> str:
    pages = board.pages()
    topic_list: dict[str, Any] = {
        "can_create_topic": False,
        "per_page": len(pages[0]),
        "topics": [topic_summary(board, t) for t in pages[page]],
    }
    if page + 1 < len(pages):
        topic_list["more_topics_url"] = f"/c/{board.slug}/{board.id}?page={page + 1}"
    users = [{"id": t.posts[0].author.id, "username": t.posts[0].author.name} for t in pages[page]]
    return dump({"users": users, "primary_groups": [], "topic_list": topic_list})


def cooked(post: FPost, thread: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in thread.posts if p.id == post.quote_of)
        number = thread.posts.index(q) + 1
        parts.append(
            f'<aside class="quote no-group" data-username="{e(q.author.name)}" data-post="{number}" data-topic="{thread.id}">\n<div class="title">\n<div class="quote-controls"></div>\n<img loading="lazy" alt="" width="24" height="24" src="/letter_avatar_proxy/v4/letter/x/e47774/48.png" class="avatar"> {e(q.author.name)}:</div>\n<blockquote>\n<p>{e(q.paragraphs[0])}</p>\n</blockquote>\n</aside>\n'
        )
    parts.extend(f"<p>{e(p)}</p>\n" for p in post.paragraphs)
    if post.code:
        parts.append('<pre><code class="lang-python">' + "\n".join(code_lines(post.code)) + "\n</code></pre>")
    return "".join(parts)


def post_json(post: FPost, thread: FThread) -> dict[str, Any]:
    number = thread.posts.index(post) + 1
    quote = (
        thread.posts.index(next(p for p in thread.posts if p.id == post.quote_of)) + 1
        if post.quote_of
        else None
    )
    return {
        "id": post.id,
        "name": post.author.name,
        "username": post.author.name,
        "avatar_template": "/letter_avatar_proxy/v4/letter/x/e47774/{size}.png",
        "created_at": iso(post.at),
        "cooked": cooked(post, thread),
        "post_number": number,
        "post_type": 1,
        "updated_at": iso(post.edited_at or post.at),
        "reply_count": 0,
        "reply_to_post_number": quote,
        "quote_count": 1 if quote else 0,
        "incoming_link_count": 0,
        "reads": 3,
        "score": 0.4,
        "yours": False,
        "topic_id": thread.id,
        "topic_slug": thread.slug,
        "version": 2 if post.edited_at else 1,
        "can_edit": False,
        "can_delete": False,
        "user_id": post.author.id,
        "hidden": False,
        "trust_level": 1,
        "deleted_at": None,
        "user_deleted": False,
        "wiki": False,
    }


def topic_json(board: FBoard, thread: FThread) -> str:
    first, last = thread.posts[0], thread.posts[-1]
    return dump(
        {
            "post_stream": {
                "posts": [post_json(p, thread) for p in thread.posts[:POSTS_PER_PAGE]],
                "stream": [p.id for p in thread.posts],
            },
            "timeline_lookup": [[1, 10]],
            "tags": [],
            "id": thread.id,
            "title": thread.title,
            "fancy_title": e(thread.title),
            "posts_count": len(thread.posts),
            "created_at": iso(first.at),
            "views": thread.views,
            "reply_count": 0,
            "like_count": 0,
            "last_posted_at": iso(last.at),
            "visible": True,
            "closed": False,
            "archived": False,
            "archetype": "regular",
            "slug": thread.slug,
            "category_id": board.id,
            "word_count": 120,
            "user_id": first.author.id,
            "details": {
                "can_edit": False,
                "created_by": {"id": first.author.id, "username": first.author.name},
                "last_poster": {"id": last.author.id, "username": last.author.name},
            },
            "chunk_size": POSTS_PER_PAGE,
        }
    )


def posts_json(thread: FThread, posts: list[FPost]) -> str:
    return dump({"post_stream": {"posts": [post_json(p, thread) for p in posts]}, "id": thread.id})


def render() -> Site:
    site = Site("discourse", start="/")
    boards = build()
    site.add("/", home(boards), filename="index.html")
    site.add("/categories.json", categories(boards), filename="categories.json", content_type=JSON)
    for board in boards:
        for page in range(len(board.pages())):
            query = f"?page={page}" if page else ""
            site.add(
                f"/c/{board.slug}/{board.id}.json{query}",
                board_json(board, page),
                filename=f"c-{board.id}-{page}.json",
                content_type=JSON,
            )
        for thread in board.threads:
            if thread.denied:
                denied = dump(
                    {
                        "errors": ["You are not permitted to view the requested resource."],
                        "error_type": "invalid_access",
                    }
                )
                site.add(
                    f"/t/{thread.slug}/{thread.id}.json",
                    denied,
                    filename=f"t-{thread.id}.json",
                    content_type=JSON,
                    status=403,
                )
                continue
            site.add(
                f"/t/{thread.slug}/{thread.id}.json",
                topic_json(board, thread),
                filename=f"t-{thread.id}.json",
                content_type=JSON,
            )
            rest = thread.posts[POSTS_PER_PAGE:]
            for start in range(0, len(rest), 20):
                batch = rest[start : start + 20]
                query = "&".join(f"post_ids[]={p.id}" for p in batch)
                site.add(
                    f"/t/{thread.id}/posts.json?{query}",
                    posts_json(thread, batch),
                    filename=f"t-{thread.id}-posts-{start}.json",
                    content_type=JSON,
                )
    return site
