"""What a learned template and the posts it read say about the engine: the limits its profile
declares (:data:`crawler.profiles.base.LIMITS`) and where a person should look."""

from __future__ import annotations

from typing import Any

from protego import Protego

from crawler.learn.apply import board_of, read_thread
from crawler.learn.dom import parse
from crawler.learn.repeats import repeat_said
from crawler.learn.template import Template

__all__ = ["limits_and_doubts", "robots_doubts"]

#: The template reader never reads these: quotes and edit marks are not learned.
NOT_LEARNED = frozenset({"quote_ids", "edits"})
#: The fields a post should have, and how a missing one is said.
POST_FIELDS = {"author": "an author", "created": "a date", "body_html": "a body",
               "position": "a position"}


def limits_and_doubts(template: Template, posts: list[dict[str, Any]],
                      pages: list[tuple[str, str]],
                      declared: frozenset[str] = frozenset()) -> tuple[frozenset[str], list[str]]:
    """The limits to declare, with ``declared`` (``--limit``, what the user knows of the
    engine), and the doubts to print, from the template, the posts a crawl read and the
    captured ``pages`` ((url, html))."""
    limits = set(NOT_LEARNED) | declared
    doubts = [("quotes and edit marks are not read (limits quote_ids, edits): add selectors by hand"
              " if the engine shows them")]
    if declared:
        doubts.append(f"declared with --limit: {', '.join(sorted(declared))}")
    if not _boards_named(template, pages):
        limits.add("board_ids")
        doubts.append("no thread page names its board by an id (limit board_ids)")
    if template.posts.post_id is None:
        limits.add("opening_post_id")
        doubts.append("no post id was found on the page: posts are named by a digest")
    if template.posts.date_precision == "day":
        limits.add("clock_time")
        doubts.append("dates are read to the day only (created_precision 'day')")
    if repeat := repeat_said(template):
        limits.add("repeated_posts")
        doubts.append(f"a repeated post: {repeat} (limit repeated_posts; the profile drops it"
                      " and counts positions without it)")
    if not template.board_url:
        doubts.append("no board URL pattern was learned: boards are not told apart from pages")
    if template.posts_per_page is None:
        doubts.append("posts per page unknown: positions on later pages come from the pager")
    for name, said in POST_FIELDS.items():
        missing = sum(1 for post in posts if not _value(post, name))
        if missing:
            doubts.append(f"{missing} of {len(posts)} posts read have no {said.split(' ', 1)[1]}")
    keys = [(p.get("thread_id"), p.get("position")) for p in posts]
    if len(set(keys)) < len(keys):
        doubts.append("the same position was read twice in a thread (a repeated post?)")
    return frozenset(limits), doubts


def robots_doubts(robots_txt: str, urls: dict[str, str], agent: str) -> list[str]:
    """Which of ``urls`` (what -> URL) robots.txt refuses to ``agent``: the crawler obeys it,
    so a JSON API it disallows cannot be the way to read the engine."""
    parser = Protego.parse(robots_txt)
    return [f"robots.txt disallows {what} ({url})" for what, url in urls.items()
            if not parser.can_fetch(url, agent)]


def _boards_named(template: Template, pages: list[tuple[str, str]]) -> bool:
    """Whether a captured thread page names its board by an id (a breadcrumb to a board URL)."""
    for url, text in pages:
        if template.thread_id(url) is not None:
            crumbs = read_thread(template, parse(text, url))["crumbs"]
            if board_of(template, [c for c in crumbs if template.thread_id(c[1]) is None]):
                return True
    return False


def _value(post: dict[str, Any], name: str) -> Any:
    value = post.get(name)
    if name == "author":
        return (value or {}).get("name")
    return value
