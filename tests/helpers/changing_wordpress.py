"""A WordPress 6.1 blog in REST API mode that changes between two crawls (the ``wordpress``
spider reads it through ``wp-json``), as :mod:`tests.extract.sitegen.wordpress` renders it.

Version 2 is :func:`tests.helpers.changing_blog.version2`: a new article, new comments on two
articles (three in all), an edited article. As on a real WordPress, the edit moves the post's
``modified``/``modified_gmt``, and a new comment changes nothing in the post object: the
site-wide comment listing (``wp/v2/comments``, newest first, ``_embed=up`` embedding the post)
is where new comments show. API answers carry no ETag (WordPress sends none).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from crawler.demo.fixture_server import route_key
from crawler.demo.server import Response
from tests.extract.sitegen import wordpress as wp
from tests.extract.sitegen.blog import COMMENTS_PER_PAGE, POSTS_PER_PAGE, BPost, build_blog
from tests.extract.sitegen.content import HTTP_DATE
from tests.helpers.changing_blog import version2

_HTML = "text/html; charset=UTF-8"


def _post_json(post: BPost) -> dict[str, Any]:
    data = wp.post_json(post)
    edited = getattr(post, "edited", None)
    if edited is not None:
        data["modified"] = edited.replace(tzinfo=None).isoformat()
        data["modified_gmt"] = wp.gmt(edited)
    return data


def _pages(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i: i + size] for i in range(0, len(items), size)] or [[]]


def render(posts: list[BPost]) -> dict[str, tuple[str, bytes, dict[str, str]]]:
    pages: dict[str, tuple[str, str, dict[str, str]]] = {}
    chunks = _pages(posts, POSTS_PER_PAGE)
    for n, chunk in enumerate(chunks, 1):
        pages["/" if n == 1 else f"/page/{n}/"] = (_HTML, wp.index_page(chunk, n, len(chunks)), {})
        pages[f"/wp-json/wp/v2/posts?per_page={POSTS_PER_PAGE}&page={n}&_embed=author,wp:term"] = (
            wp.JSON, json.dumps([_post_json(p) for p in chunk], ensure_ascii=False),
            wp.wp_headers(len(posts), POSTS_PER_PAGE))
    for post in posts:
        ordered = sorted(post.comments, key=lambda c: c.at, reverse=True)
        for n, chunk in enumerate(_pages(ordered, COMMENTS_PER_PAGE), 1):
            pages[f"/wp-json/wp/v2/comments?post={post.id}&per_page={COMMENTS_PER_PAGE}&page={n}"] = (
                wp.JSON, json.dumps([wp.comment_json(c, post) for c in chunk], ensure_ascii=False),
                wp.wp_headers(len(post.comments), COMMENTS_PER_PAGE))
    # the site-wide comment listing, newest first, each comment with its post embedded
    every = sorted(((c, p) for p in posts for c in p.comments), key=lambda cp: cp[0].at, reverse=True)
    for n, chunk in enumerate(_pages(every, COMMENTS_PER_PAGE), 1):
        listed = [{**wp.comment_json(c, p),
                   "_embedded": {"up": [{"id": p.id, "link": f"{wp.ORIGIN}{p.path}", "type": "post"}]}}
                  for c, p in chunk]
        pages[f"/wp-json/wp/v2/comments?per_page={COMMENTS_PER_PAGE}&page={n}&_embed=up"] = (
            wp.JSON, json.dumps(listed, ensure_ascii=False), wp.wp_headers(len(every), COMMENTS_PER_PAGE))
    pages["/robots.txt"] = ("text/plain", "User-agent: *\nAllow: /\n", {})
    return {route_key(t): (ct, body.encode(), headers) for t, (ct, body, headers) in pages.items()}


class ChangingWordPress:
    """A one-host :class:`~crawler.demo.server.Site` serving :attr:`version` 1 or 2."""

    hosts = 1
    start = "/"

    def __init__(self) -> None:
        self.versions = {1: render(build_blog()), 2: render(version2())}
        self.version = 1

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response:
        found = self.versions[self.version].get(route_key(target))
        if found is None:
            return Response(404, "text/plain", b"not found", {"Date": HTTP_DATE})
        content_type, body, headers = found
        body = body.replace(wp.ORIGIN.encode(), origins[host].encode())
        return Response(200, content_type, body, {"Date": HTTP_DATE, **headers})
