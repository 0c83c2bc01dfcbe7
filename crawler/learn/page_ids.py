"""A thread's id written in its pages' markup, for URLs that name the thread by no id.

A slug URL whose only number is the title's (``/topic/thread-01-how-to/``: zero-padded, or
no number at all) gives no id the forum's database knows. The page itself often writes it: a
class of the page (``postid-7``), the id of the element listing the posts (``topic-7-replies``),
a data attribute (``data-topicid="5"``). The rule is the first attribute slot (an element's
``id``, one ``class`` token, or a ``data-*`` attribute, with its number taken out) that holds
one number on every thread page, the same on all pages of a thread and different from one
thread to the next. Seen on bbPress (``postid-7``), wpForo (``data-topicid``) and MyBB. Board
pages named by a slug write theirs alike (bbPress ``postid-4``, Asgaros ``forum-2``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from lxml import etree

from crawler.learn.slug_ids import id_like
from crawler.learn.template import Template

__all__ = ["learn_board_id", "learn_page_id", "page_thread_id", "written_number"]

#: An attribute value (or class token) with one number: a prefix, the number, a suffix.
_ONE_NUMBER = re.compile(r"([A-Za-z_-]*)(\d+)([A-Za-z_-]*)")
_SLOT = tuple[str, str, str, str]  # tag, attribute, prefix, suffix


def learn_page_id(template: Template, pages: list[tuple[str, etree._Element]]
                  ) -> dict[str, str] | None:
    """The rule (``xpath`` of attribute values, ``regex`` with one group) reading the thread
    id from a thread page (``(url, root)``), when some thread's URL gives none; else ``None``."""
    threads: dict[str, list[etree._Element]] = defaultdict(list)
    for url, root in pages:
        tid = template.thread_id(url)
        if tid is None or not template.posts.record or not root.xpath(template.posts.record):
            continue
        canonical = template.canonical_thread_url(url) or url
        threads[template.thread_id(canonical) or canonical].append(root)
    if all(t.isdigit() and id_like(t) for t in threads):
        return None
    return written_number(threads)


def learn_board_id(template: Template, pages: list[tuple[str, etree._Element]]
                   ) -> dict[str, str] | None:
    """The rule reading a board's number from its pages where board URLs name it by a slug
    (bbPress's ``postid-4``, Asgaros's ``content-container-forum-2``)."""
    boards: dict[str, list[etree._Element]] = defaultdict(list)
    for url, root in pages:
        if (bid := template.board_id(url)) is not None:
            boards[bid].append(root)
    if all(b.isdigit() and id_like(b) for b in boards):
        return None
    return written_number(boards)


def written_number(pages: dict[str, list[etree._Element]]) -> dict[str, str] | None:
    """The first attribute slot holding one number on every page, the same on the pages of one
    key (a thread, a board) and different between keys: its rule, or ``None`` (fewer than two
    keys prove nothing)."""
    if len(pages) < 2:
        return None
    found = {key: [_slots(root) for root in roots] for key, roots in pages.items()}
    order = [slot for page in next(iter(found.values())) for slot in page]
    for slot in dict.fromkeys(order):
        values = [_one(page.get(slot)) for group in found.values() for page in group]
        per_key = [{_one(page.get(slot)) for page in group} for group in found.values()]
        if None in values or any(len(v) != 1 for v in per_key):
            continue
        if len({next(iter(v)) for v in per_key}) == len(found):
            return _rule(slot)
    return None


def page_thread_id(rule: dict[str, str] | None, root: Any) -> str | None:
    """The thread id ``rule`` reads on a page (a response, a parsel selector, an lxml root):
    the first attribute value it matches, without leading zeros."""
    for value in root.xpath(rule["xpath"]) if rule else []:
        found = re.search(rule["regex"], str(value))
        if found:
            return str(int(found.group(1)))
    return None


def _slots(root: etree._Element) -> dict[_SLOT, set[str]]:
    found: dict[_SLOT, set[str]] = defaultdict(set)
    for node in root.iter():
        if not isinstance(node.tag, str):
            continue
        for attr, value in node.attrib.items():
            if attr not in ("id", "class") and not attr.startswith("data-"):
                continue
            for token in value.split() if attr == "class" else [value.strip()]:
                if match := _ONE_NUMBER.fullmatch(token):
                    prefix, number, suffix = match.groups()
                    found[(node.tag, attr, prefix, suffix)].add(str(int(number)))
    return found


def _one(values: set[str] | None) -> str | None:
    return next(iter(values)) if values and len(values) == 1 else None


def _rule(slot: _SLOT) -> dict[str, str]:
    tag, attr, prefix, suffix = slot
    edge = (r"(?:^|\s)", r"(?:\s|$)") if attr == "class" else ("^", "$")
    return {"xpath": f"//{tag}/@{attr}",
            "regex": f"{edge[0]}{re.escape(prefix)}0*(\\d+){re.escape(suffix)}{edge[1]}"}
