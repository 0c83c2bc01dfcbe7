"""The records the learned reader emits for a thread page: its posts and its thread.

Plain data, as :class:`~crawler.learn.strategy.Output` carries it; the spider builds the
items from it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from crawler.items import Author, Board
from crawler.learn.apply import board_of, read_thread
from crawler.learn.links import is_denied
from crawler.learn.paging import next_page_url, page_value
from crawler.learn.rows import ROW_FIELDS
from crawler.learn.template import Template
from crawler.learn.thread import listing_heading, title_board
from crawler.learn.urls import clean_url
from crawler.learn.when import date_order, to_ymd

__all__ = ["is_first_page", "listed_on", "next_thread_page", "post_key", "post_record",
           "thread_record"]


def post_record(template: Template, post: dict[str, Any], tid: str, url: str,
                position: int) -> dict[str, Any]:
    post_id, rules = post["post_id"] or post["digest"], template.posts
    rules.date_order = rules.date_order or date_order([post["created_raw"] or ""])
    return {
        "post_id": post_id,
        "thread_id": tid,
        "url": f"{named_url(template, url)}#{post_id}",
        "position": position,
        "author": Author(name=post["author_name"], id=post["author_id"]),
        "created_raw": to_ymd(post["created_raw"], rules.date_order, rules.utc_offset),
        "created_precision": template.posts.date_precision,
        "body_html": post["body_html"],
        "attachments": post.get("attachments") or [],  # a record's files (.files)
        "quoted_post_ids": [],
        "edited": False,
    }


def thread_record(template: Template, root: Any, url: str, tid: str,
                  posts: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any]:
    info = read_thread(template, root)
    crumbs = _named_board(template, [(name, href) for name, href in info["crumbs"]
                                     if template.thread_id(href) is None and not is_denied(href)],
                          row.get("listed_on"))
    if not crumbs and (named := title_board(root, info["title"])):
        crumbs = [(named, "")]  # no trail, no badge, no listing: "Topic - Board - Site"
    board_id = board_of(template, crumbs)
    opener = posts[0] if posts and posts[0]["position"] == 1 else None
    board = Board(id=board_id, name=crumbs[-1][0] if crumbs else None,
                  path=[n for n, _ in crumbs])
    return {
        "thread_id": tid,
        "url": named_url(template, url),
        "title": info["title"],
        "board": board,
        "author": opener["author"] if opener else Author(),
        "created_raw": opener["created_raw"] if opener else None,
        "created_precision": template.posts.date_precision,
        **{k: row[k] for k in ROW_FIELDS if row.get(k) is not None},
    }


def listed_on(template: Template, root: Any, url: str) -> dict[str, Any]:
    """What a board page tells the threads it lists: the board (its URL and heading), as the
    thread's own page may name no board (no trail, or a trail of menu links)."""
    if template.board_id(url) is None or not (heading := listing_heading(root)):
        return {}
    return {"listed_on": [heading[0], clean_url(url), heading[1]]}


def _named_board(template: Template, crumbs: list[tuple[str, str]],
                 listed: list[str] | None) -> list[tuple[str, str]]:
    """The trail, its board named as the board page that listed the thread names itself: a
    page with no trail gets that board; a trail's link to that board labelled with words
    the board's title does not hold ("Message List") is a menu link, named by the heading."""
    if not listed:
        return crumbs
    name, url, title = listed
    if not crumbs:
        return [(name, url)]
    for index, (label, href) in enumerate(crumbs):
        if template.board_id(href) == template.board_id(url) and label not in title:
            return [*crumbs[:index], (name, href)]
    return crumbs


def next_thread_page(template: Template, root: Any, url: str, tid: str) -> str | None:
    """The next page of thread *tid* that its page *root* links, if any."""
    return next_page_url(template.paging, root, url, lambda link: template.thread_id(link) == tid)


def named_url(template: Template, url: str) -> str:
    """The URL a page's records name. A first page linked with its page parameter
    (``?page=1``, ``start=0``) is the same page as the bare URL: which form the crawl happened
    to read first must not change the records (unless the parameter also holds the id)."""
    url, param = clean_url(url), template.paging.param
    if not param or not is_first_page(template, url) or f"{param}=" in template.thread_url:
        return url
    parts = urlsplit(url)
    query = "&".join(i for i in parts.query.split("&") if not i.startswith(f"{param}="))
    return parts._replace(query=query).geturl()


def is_first_page(template: Template, url: str) -> bool:
    """Whether *url* (a canonical thread URL) is its thread's first page."""
    return page_value(template.paging, url) == template.paging.base


def post_key(post: dict[str, Any]) -> str:
    return str(post.get("post_id") or post.get("digest"))
