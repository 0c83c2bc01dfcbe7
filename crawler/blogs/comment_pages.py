"""The other pages of a post's comments, for engines that split them (25 or 50 a page).

A comment page is the post's own URL plus a page number the engine adds for its comments: a
path tail (``/comment-page-2/``, ``/comments/2``; ``/comments/`` alone for engines that show the
comments on a page of their own, the post's "4 comments" link leading there) or a query parameter
(``?cpage=2``, ``&comments=2``, ``?comments_page=2``). A path in a query (``?u=/2024/post/``)
counts as a path. A bare ``page`` parameter (``?page=1``) is also a post's
own pager (a post split over pages): it counts only in a link inside the comment section. Every
such link is returned, older and newer pages alike: engines that show the newest comments first
link only backwards. :func:`shown_page` tells which page the post's own URL shows (the one its
pager does not link), so that its other address (``/comment-page-1/``) is not read twice.
:func:`comments_feed` is the post's own feed of comments, for themes that show no comment dates.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from crawler.blogs.urls import canonical
from crawler.learn.dom import parse

__all__ = ["comment_pages", "comments_feed", "post_of", "shown_page"]

_PAGE_TAIL = re.compile(r"/(?:comments?|cpage)[-_/]?(?:page[-_/]?)?(\d*)/?$", re.IGNORECASE)
_PAGE_PARAM = re.compile(r"(?:c|comments?[-_]?)page|comments?", re.IGNORECASE)
_IN_COMMENTS = (
    "ancestor::*[contains(translate(@id, 'COMENT', 'coment'), 'comment') or "
    "contains(translate(@class, 'COMENT', 'coment'), 'comment')]"
)


def comment_pages(text: str, url: str, article_url: str) -> dict[str, int]:
    """Links of the page *url* to other pages of *article_url*'s comments, with their numbers."""
    root = parse(text, url)
    post = _key(canonical(article_url))
    here = canonical(url)
    found: dict[str, int] = {}
    for link in root.xpath("//a[@href]"):
        href = canonical(urljoin(url, link.get("href") or ""))
        if href == here or href in found:
            continue
        key, marker, number = _without_page(href)
        if marker and key == post and (marker != "page" or link.xpath(_IN_COMMENTS)):
            found[href] = number
    return found


def comments_feed(text: str, url: str) -> str | None:
    """The post's own feed of its comments (a ``<link rel=alternate>`` feed under the post's URL:
    ``/post/feed/``, ``?action=view&url=post&feed``) where the page shows comment blocks but
    no comment this reader could date (themes that leave the date to the feed)."""
    root = parse(text, url)
    if not root.xpath("//*[contains(concat(' ', normalize-space(@class), ' '), ' comment ') or "
                      "starts-with(@id, 'comment-') or starts-with(@id, 'comment_')]"
                      "[normalize-space()]"):
        return None
    for href in root.xpath("//link[@rel='alternate'][contains(@type, 'rss') or "
                           "contains(@type, 'atom')]/@href"):
        feed = urljoin(url, href)
        if feed != url and feed.startswith(url):
            return feed
    return None


def shown_page(numbers: list[int]) -> int:
    """The page of comments the post's own URL shows, from the numbers its pager links: the
    first where the pager does not link it (oldest first), else the one after the last (newest
    first: "1 … 7 8 9" shows page 10)."""
    return 1 if 1 not in numbers else max(numbers) + 1


_Key = tuple[str, str, tuple[tuple[str, str], ...]]


def post_of(url: str) -> str:
    """The post whose comments the page *url* shows (``/post/comments/``: ``/post/``), else
    *url* itself."""
    parts = urlsplit(url)
    tail = _PAGE_TAIL.search(parts.path.rstrip("/") + "/")
    if tail:
        return canonical(urlunsplit(parts._replace(path=parts.path[: tail.start()] + "/")))
    query = parse_qsl(parts.query, True)
    for n, (name, value) in enumerate(query):
        tail = _PAGE_TAIL.search(value.rstrip("/") + "/") if value.startswith("/") else None
        if tail:
            query[n] = (name, value[: tail.start()] + "/")
            return canonical(urlunsplit(parts._replace(query=urlencode(query))))
    return url


def _key(url: str) -> _Key:
    parts = urlsplit(url)
    query = [(k, v.rstrip("/") if v.startswith("/") else v)
             for k, v in parse_qsl(parts.query, True)]
    return parts.netloc, parts.path.rstrip("/"), tuple(sorted(query))


def _without_page(url: str) -> tuple[_Key, str | None, int]:
    """*url*'s key less its comment page number, the marker that held it (None: none) and the
    number (0: a page of comments with no number)."""
    host, path, query = _key(url)
    tail = _PAGE_TAIL.search(path + "/")
    if tail:
        return (host, path[: tail.start()], query), "tail", int(tail.group(1) or 0)
    for n, (name, value) in enumerate(query):  # a path in a query: ?u=/2024/post/comments/
        tail = _PAGE_TAIL.search(value + "/") if value.startswith("/") else None
        if tail:
            rest = tuple(sorted((*query[:n], (name, value[: tail.start()]), *query[n + 1:])))
            return (host, path, rest), "tail", int(tail.group(1) or 0)
    for name, value in query:
        if value.isdigit() and (name.lower() == "page" or _PAGE_PARAM.fullmatch(name)):
            rest = tuple(p for p in query if p != (name, value))
            return (host, path, rest), name.lower(), int(value)
    return (host, path, query), None, 0
