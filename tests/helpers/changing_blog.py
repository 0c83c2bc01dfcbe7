"""A WordPress blog (HTML, as :mod:`tests.extract.sitegen.wordpress` renders it) that changes
between two crawls, read by the generic ``blog`` spider through its index, ``robots.txt`` and
``sitemap.xml``.

Version 2: a new article, new comments on two articles, an edited article. The sitemap's
``lastmod`` of an article is its latest change, comments included (as SEO plugins give it),
so the incremental pass refetches exactly the articles that changed. Pages carry an ETag.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Sequence
from datetime import timedelta

from crawler.demo.fixture_server import route_key
from crawler.demo.server import Response
from tests.extract.sitegen import wordpress as wp
from tests.extract.sitegen.blog import POSTS_PER_PAGE, BComment, BPost, build_blog
from tests.extract.sitegen.content import HTTP_DATE

_HTML, _XML = "text/html; charset=UTF-8", "application/xml; charset=utf-8"


def version2() -> list[BPost]:
    posts = copy.deepcopy(build_blog())
    newest = posts[0]
    new = BPost(id=200, slug="post-new", title="A new post 新文章", author=newest.author,
                at=newest.at + timedelta(days=3), categories=["Engineering 工程"], tags=["rss"],
                parts=[["[#new] 新文章的第一段。", "The second paragraph of the new post."]])
    for post, n in ((posts[1], 2), (posts[3], 1)):
        last = max([post.at, *(c.at for c in post.comments)])
        post.comments += [BComment(700 + post.id * 10 + i, "newcomer", last + timedelta(hours=i + 1),
                                   f"A new comment {i}") for i in range(n)]
    edited = posts[5]
    edited.parts = [[*edited.parts[0][:-1], edited.parts[0][-1] + " Edited: a correction."]]
    edited.edited = newest.at + timedelta(days=2)  # type: ignore[attr-defined]
    return [new, *posts]


def _lastmod(post: BPost) -> str:
    return max([post.at, *(c.at for c in post.comments),
                getattr(post, "edited", post.at)]).isoformat()


def render(posts: list[BPost]) -> dict[str, tuple[str, bytes]]:
    pages: dict[str, tuple[str, str]] = {}
    chunks = [posts[i: i + POSTS_PER_PAGE] for i in range(0, len(posts), POSTS_PER_PAGE)]
    for n, chunk in enumerate(chunks, 1):
        pages["/" if n == 1 else f"/page/{n}/"] = (_HTML, wp.index_page(chunk, n, len(chunks)))
    for post in posts:
        pages[post.path] = (_HTML, wp.article_page(post))
        for part in range(1, len(post.parts)):
            pages[f"{post.path}{part + 1}/"] = (_HTML, wp.article_page(post, part))
        for cpage in range(2, len(post.comment_pages()) + 1):
            pages[f"{post.path}comment-page-{cpage}/"] = (_HTML, wp.article_page(post, 0, cpage))
    entries = "".join(f"<url><loc>{wp.ORIGIN}{p.path}</loc><lastmod>{_lastmod(p)}</lastmod></url>"
                      for p in posts)
    pages["/sitemap.xml"] = (_XML, '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns='
                             f'"http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>\n')
    pages["/robots.txt"] = ("text/plain", f"User-agent: *\nAllow: /\nSitemap: {wp.ORIGIN}/sitemap.xml\n")
    return {route_key(t): (ct, body.encode()) for t, (ct, body) in pages.items()}


class ChangingBlog:
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
        content_type, body = found
        body = body.replace(wp.ORIGIN.encode(), origins[host].encode())
        tag = hashlib.sha1(body).hexdigest()[:16]
        return Response(200, content_type, body, {"Date": HTTP_DATE, "ETag": f'"{tag}"'})
