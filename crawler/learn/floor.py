"""The page-level floor: the posts one page holds, read with no site template.

A page whose repeated records read as posts (an author or a date, and prose) is read by itself:
its best record group gives post rules learned on that page alone. The site template, learned
across pages, makes the fields consistent and later pages cheap; it never decides whether a
page with posts is read. ``python -m crawler read FILE|URL`` prints what this floor reads.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from lxml import etree

from crawler.learn.apply import read_posts
from crawler.learn.opener import with_opener
from crawler.learn.posts import Sample, learn_post_rules
from crawler.learn.records import mine_records
from crawler.learn.template import PostRules, Template

__all__ = ["floor_posts", "page_rules", "read_page"]


def page_rules(root: etree._Element, url: str, page: int | None = None) -> PostRules | None:
    """Post rules for this page alone, from its best record group that yields a body rule."""
    for group in mine_records(root)[:3]:
        rules = learn_post_rules([Sample(root, url, group, page)])
        if rules is not None and rules.body is not None:
            return with_opener(rules, [root])
    return None


def floor_posts(root: etree._Element, url: str) -> list[dict[str, Any]]:
    """The posts of one page as :func:`~crawler.learn.apply.read_posts` gives them (those with
    a body); ``[]`` for a page without post records."""
    rules = page_rules(root, url)
    if rules is None:
        return []
    template = Template(host=urlsplit(url).netloc, posts=rules, thread_url="(?P<tid>.*)")
    return [p for p in read_posts(template, root, url) if p["body_html"]]


def read_page(root: etree._Element, url: str) -> list[dict[str, Any]]:
    """:func:`floor_posts` with ``position`` filled in page order where the page shows none."""
    posts = floor_posts(root, url)
    for index, post in enumerate(posts, 1):
        if post["position"] is None:
            post["position"] = index
    return posts
