"""Posts repeated across a thread's pages: found on a thread's consecutive pages, dropped when
read, and counted out of the positions.

Two classes, each seen on engines of several families: the opening post shown again on top of
every later page, and the previous page's last post shown again on top of the next (Misago's
paginator: ten posts a page, the pages stepping by nine). A repeat may take one of the page's
slots (the page still shows its size) or come on top of them: the pages tell, as the first page
holds :attr:`Template.posts_per_page` posts and a full later page
:attr:`Template.later_page_posts` new ones.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from lxml import etree

from crawler.learn.apply import read_posts
from crawler.learn.emit import post_key
from crawler.learn.paging import page_number
from crawler.learn.template import Template
from crawler.learn.urls import clean_url

__all__ = ["drop_repeat", "learn_repeats", "offset_posts", "posts_before", "repeat_said"]

#: A quirk is the site's when at least this share of the later pages that could show it do.
SHARE = 2 / 3


def learn_repeats(template: Template, pages: Iterable[tuple[str, etree._Element]]) -> None:
    """Set the template's repeat quirks and page sizes from thread pages ``(url, root)``. Only
    plain thread pages count (a permalink shows some page under another URL)."""
    threads: dict[str, dict[int, list[dict[str, Any]]]] = defaultdict(dict)
    for url, root in pages:
        tid = template.thread_id(url)
        canonical = template.canonical_thread_url(url)
        if tid is not None and canonical is not None and clean_url(canonical) == clean_url(url):
            threads[tid][page_number(template.paging, url)] = read_posts(template, root, url)
    votes = {"first": [0, 0], "last": [0, 0]}  # [pages that repeat it, pages that could]
    for posts in threads.values():
        for number, items in posts.items():
            if number > 1 and items and posts.get(1):
                _vote(votes["first"], _same(items[0], posts[1][0]))
            if number > 2 and items and posts.get(number - 1):
                _vote(votes["last"], _same(items[0], posts[number - 1][-1]))
            elif number == 2 and items and posts.get(1) and len(posts[1]) > 1:
                _vote(votes["last"], _same(items[0], posts[1][-1]))
    template.repeats_first_post = _holds(votes["first"])
    template.repeats_last_post = _holds(votes["last"]) and not template.repeats_first_post
    _learn_sizes(template, threads.values())


def repeat_said(template: Template) -> str | None:
    """The template's repeat quirk in words, for a person to check on the pages."""
    if template.repeats_first_post:
        return "later pages show the opening post again on top"
    if template.repeats_last_post:
        return "each later page shows the previous page's last post again on top"
    return None


def drop_repeat(template: Template, number: int, posts: list[dict[str, Any]],
                cursor: dict[str, Any]) -> list[dict[str, Any]]:
    """``posts`` of page ``number`` less the post repeated on top: the one the walk's cursor
    names (the opening post, the last post before), or where the walk's cursor is not at hand
    (a page reached by a link), the first post of a site that repeats one."""
    seen = {cursor.get("op"), cursor.get("last")} - {None}
    repeats = template.repeats_first_post or template.repeats_last_post
    if number > 1 and posts and (post_key(posts[0]) in seen or (repeats and not seen)):
        return posts[1:]
    return posts


def posts_before(template: Template, number: int) -> int | None:
    """Posts of a thread before its page ``number`` (the walk's cursor not at hand)."""
    if number == 1:
        return 0
    size = template.posts_per_page
    if not size:
        return None
    later = template.later_page_posts or size
    return size + (number - 2) * later


def offset_posts(template: Template, offset: int) -> int:
    """Posts before a page whose URL skips ``offset`` posts: one more when the opening post
    stands apart above a full page of replies (a full first page holds one post more than the
    step, as a question above its answers does): the offset counts replies."""
    if template.posts_per_page == template.paging.step + 1 and offset:
        return offset + 1
    return offset


def _learn_sizes(template: Template, threads: Iterable[dict[int, list[dict[str, Any]]]]) -> None:
    """The first page's size and the new posts of a full later page (one with a page after)."""
    repeats = template.repeats_first_post or template.repeats_last_post
    firsts, laters = [], []
    for posts in threads:
        for number, items in posts.items():
            if number + 1 in posts:
                (firsts if number == 1 else laters).append(len(items) - (repeats and number > 1))
    sizes = firsts or laters
    if sizes:
        template.posts_per_page = max(sizes)
    if repeats and template.posts_per_page:
        # No full later page among the samples: the repeat takes a slot, the page keeps its size.
        later = max(laters) if laters else template.posts_per_page - 1
        template.later_page_posts = later if later != template.posts_per_page else None


def _vote(tally: list[int], repeated: bool) -> None:
    tally[0] += repeated
    tally[1] += 1


def _holds(tally: list[int]) -> bool:
    return tally[1] > 0 and tally[0] >= tally[1] * SHARE


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a.get("post_id") and b.get("post_id"):
        return a["post_id"] == b["post_id"]
    return a.get("digest") == b.get("digest")
