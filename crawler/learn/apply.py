"""Applying a learned template to a page: XPath rules only, no learning on the way.

:func:`read_posts` gives the post fields of a thread page; :func:`read_thread` the page's title
and breadcrumb trail. Positions, repeats and ids across pages are the caller's business
(:mod:`crawler.learn.strategy`), which knows the page number and what came before.
"""

from __future__ import annotations

import copy
import re
from typing import Any
from urllib.parse import urljoin

from lxml import etree

from crawler.learn.dom import content_digest, element_text, full_text, inner_html, iter_text
from crawler.learn.embedded import read_data_posts
from crawler.learn.files import record_attachments
from crawler.learn.generalize import eval_first
from crawler.learn.template import FieldRule, Template
from crawler.learn.thread import drop_page_mark, heading_title
from crawler.learn.urls import id_position, slots
from crawler.learn.when import FIND_DATE, find_date

__all__ = ["board_of", "matches", "read_field", "read_posts", "read_thread", "record_rows"]

_SPACE = re.compile(r"\s+")


def _compiled(expr: str) -> etree.XPath:
    return _XPATHS.setdefault(expr, etree.XPath(expr))


_XPATHS: dict[str, etree.XPath] = {}


def record_rows(template: Template, root: etree._Element) -> list[list[etree._Element]]:
    records = []
    for node in _compiled(template.posts.record)(root):
        rows = [node]
        sibling = node.getnext()
        while sibling is not None and len(rows) < template.posts.span:
            rows.append(sibling)
            sibling = sibling.getnext()
        records.append(rows)
    return records


def read_field(rule: FieldRule | None, rows: list[etree._Element],
               text: Any = element_text) -> str | None:
    """The field's value in a record; ``text`` renders a node whose whole text is the value."""
    if rule is None or rule.row >= len(rows):
        return None
    node = eval_first(rows[rule.row], rule.xpath)
    if node is None:
        return None
    if rule.value == ".":
        value = text(node)
    elif rule.value == "text()":
        value = _SPACE.sub(" ", node.text or "").strip()
    elif rule.value.startswith("@"):
        value = (node.get(rule.value[1:]) or "").strip()
    else:
        value = inner_html(node)
    if value and rule.regex == FIND_DATE:
        value = find_date(value) or ""
    elif value and rule.regex:
        match = re.search(rule.regex, value)
        value = match.group(1) if match else ""
    return value or None


def _body(template: Template, rows: list[etree._Element]) -> tuple[str | None, str]:
    rules = template.posts
    if rules.body is None or rules.body.row >= len(rows):
        return None, ""
    node = eval_first(rows[rules.body.row], rules.body.xpath)
    if node is None:
        return None, ""
    if rules.body_strip:
        node = copy.deepcopy(node)
        for expr in rules.body_strip:
            for junk in _compiled(expr)(node):
                if (isinstance(junk, etree._Element) and junk is not node
                        and junk.getparent() is not None):
                    parent = junk.getparent()
                    tail = junk.tail
                    parent.remove(junk)
                    if tail and tail.strip():
                        _append_text(parent, tail)
    html = inner_html(node)
    return (html or None), element_text(node)


def _append_text(parent: etree._Element, text: str) -> None:
    last = parent[-1] if len(parent) else None
    if last is None:
        parent.text = (parent.text or "") + text
    else:
        last.tail = (last.tail or "") + text


_BYLINE = re.compile(r"^(?:by|von|par|por|door)\s+(?=\S)", re.IGNORECASE)
#: A date after "»" or "|" ("par alice » Lun 8 Jan 2018").
_TRAILER = re.compile(r"\s*[»|].*$")
_NUMBER = re.compile(r"^[-+]?\d[\d.,]*$")
#: A page number or a previous/next link: "2", "« Previous", "Next »", "›".
_PAGER_TEXT = re.compile(r"^[«‹<\s]*(?:\d+|next|prev(?:ious)?|older|newer|)[»›>\s]*$", re.I)


def _without_badges(node: etree._Element) -> str:
    """A name's text without the elements beside it that hold only a number (a post count or
    reputation badge: "alice <span>5</span>"); a name with digits of its own keeps them."""
    badges = [e for e in node.iterdescendants()
              if isinstance(e.tag, str) and _NUMBER.match(element_text(e) or "x")]
    if not badges:
        return _inline_text(node)
    node = copy.deepcopy(node)
    for badge in [e for e in node.iterdescendants()
                  if isinstance(e.tag, str) and _NUMBER.match(element_text(e) or "x")]:
        if badge.getparent() is not None:
            badge.getparent().remove(badge)  # its tail goes too: what follows a badge is no name
    return _inline_text(node)


def _inline_text(node: etree._Element) -> str:
    """Text as one runs it: "<b>+</b>forster" is "+forster" (``element_text`` spaces the pieces)."""
    return _SPACE.sub(" ", "".join(iter_text(node))).strip()


def clean_author(name: str | None) -> str | None:
    """The name alone: without "by"/"par"/"von", or a date after "»"."""
    if not name:
        return name
    cleaned = _TRAILER.sub("", _BYLINE.sub("", name)).strip()
    return cleaned or name


def read_posts(template: Template, root: etree._Element, url: str) -> list[dict[str, Any]]:
    """The posts of a thread page as plain fields; ``position`` is the page's own number for the
    post (rule value plus delta) or ``None`` where the page shows none."""
    rules = template.posts
    if rules.data:
        return read_data_posts(rules.data, root)
    posts = []
    for rows in record_rows(template, root):
        body_html, body_text = _body(template, rows)
        author = clean_author(read_field(rules.author, rows, _without_badges))
        raw_position = read_field(rules.position, rows)
        position = (int(raw_position) + rules.position_delta
                    if raw_position and raw_position.isdigit() else None)
        post_id = read_field(rules.post_id, rows)
        created_raw = read_field(rules.date, rows)
        posts.append(
            {
                "post_id": post_id,
                "digest": content_digest(author, body_text, created_raw),
                "author_name": author,
                "author_id": read_field(rules.author_id, rows),
                "created_raw": created_raw,
                "body_html": body_html,
                "body_text": body_text,
                "position": position,
                "attachments": record_attachments(rows, url),
            }
        )
    return posts


def read_thread(template: Template, root: etree._Element) -> dict[str, Any]:
    """Title and breadcrumb trail ``[(name, href)]`` of a thread page."""
    title = None
    if template.title.xpath:
        node = eval_first(root, template.title.xpath)
        title = element_text(node) if node is not None else None
    if not title:
        shown = root.findtext(".//title") or ""
        title = (heading_title(root, template.title.strip)
                 or strip_title(shown, template.title.strip))
    crumbs = []
    base = root.getroottree().docinfo.URL or ""  # relative hrefs: the URL forms are anchored
    if template.breadcrumbs:
        for link in _compiled(template.breadcrumbs)(root):
            name = full_text(link)
            if name and not _PAGER_TEXT.match(name):  # a board's pager shown inside the trail
                crumbs.append((name, urljoin(base, link.get("href") or "")))
    half = len(crumbs) // 2
    if half and crumbs[:half] == crumbs[half:]:  # the trail printed above and below the posts
        crumbs = crumbs[:half]
    return {"title": title or None, "crumbs": crumbs}


def board_of(template: Template, crumbs: list[tuple[str, str]]) -> str | None:
    """The board's id: from the last crumb the learned board URL form names; before one is
    learned (no board page among the first pages), the first number of the last crumb's id
    slot (a board's own link is its first page: ``board=1.0`` is board 1)."""
    for _, href in reversed(crumbs):
        if (found := template.board_id(href)) is not None:
            return found
    if template.board_url is not None or not crumbs:
        return None
    at = id_position([crumbs[-1][1]], None)
    return slots(crumbs[-1][1])[at[0]].numbers[0] if at else None


def strip_title(text: str, affixes: list[str]) -> str:
    text = _SPACE.sub(" ", text).strip()
    for affix in affixes:
        if text.endswith(affix):
            text = text[: -len(affix)]
        elif text.startswith(affix):
            text = text[len(affix) :]
    return drop_page_mark(text.strip()).strip()


def matches(template: Template, root: etree._Element, url: str | None = None) -> bool:
    """Whether a page still fits ``template``: a thread URL (when given) whose posts the rules
    read. A theme change breaks the record or body rule, and this turns ``False``."""
    if url is not None and template.thread_id(url) is None:
        return False
    posts = read_posts(template, root, url or "")
    return bool(posts) and sum(1 for p in posts if p.get("body_html")) >= max(1, len(posts) // 2)
