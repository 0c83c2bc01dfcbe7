"""Posters' names where a page links no member profile (``<b>Django8</b>`` in a user cell).

The records of a post list are rendered by one template, so the name sits at the same place in
each: the same tag path from the record down to a short text. Among such places the name is
the first, in reading order, whose texts read like names (short, a few words, no date, no
number alone, no label) and differ between records; labels such as "Quote" or "Reply" are the
same in every record and ranks ("Member") are rarer than names only in long threads, which is
why the first place wins.
"""

from __future__ import annotations

import re
from collections import defaultdict

from lxml import etree

from crawler.learn.dom import element_text
from crawler.learn.when import looks_like_date

__all__ = ["name_nodes"]

_LABEL = re.compile(r"[:#@»«|]|^(?:re|aw|sv|wg)\b|^\W*$", re.IGNORECASE)
_SKIP = {"script", "style", "blockquote", "button", "option", "select", "textarea",
         "h1", "h2", "h3", "h4"}


def _leaves(record: list[etree._Element]) -> dict[tuple[str, ...], etree._Element]:
    """The first element at each tag path whose own text is a short name-like text."""
    found: dict[tuple[str, ...], etree._Element] = {}
    for row_index, row in enumerate(record):
        for node in row.iter():
            if not isinstance(node.tag, str) or node.tag in _SKIP or len(node) > 2:
                continue
            if any(a.tag in _SKIP for a in node.iterancestors()):
                continue
            text = element_text(node)
            if not _name_like(text):
                continue
            path = (str(row_index),
                    *(str(a.tag) for a in reversed(list(node.iterancestors())) if _inside(a, row)),
                    str(node.tag))
            found.setdefault(path, node)
    return found


def _inside(ancestor: etree._Element, row: etree._Element) -> bool:
    return ancestor is row or any(a is row for a in ancestor.iterancestors())


def _name_like(text: str) -> bool:
    # A name is a word or three, not a sentence or a title ("Parkinson mit 24 Jahren?").
    if not 2 <= len(text) <= 40 or len(text.split()) > 3 or text.isdigit() or text[-1] in "?!.,;":
        return False
    return not _LABEL.search(text) and not looks_like_date(text)


def name_nodes(records: list[list[etree._Element]]) -> list[etree._Element | None] | None:
    """Per record, the element holding the poster's name, or ``None`` when no place fits."""
    if len(records) < 2:
        return None
    per_record = [_leaves(r) for r in records]
    order: dict[tuple[str, ...], int] = {}
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    for leaves in per_record:
        for index, path in enumerate(leaves):
            counts[path] += 1
            order[path] = min(order.get(path, index), index)
    for path in sorted(counts, key=lambda p: order[p]):
        nodes = [leaves.get(path) for leaves in per_record]
        present = [n for n in nodes if n is not None]
        if len(present) < 0.8 * len(records):
            continue
        texts = [element_text(n) for n in present]
        common = max(texts.count(t) for t in set(texts))
        if len(records) >= 3 and (len(set(texts)) < 2 or common > 0.7 * len(present)):
            continue  # a label the template repeats, not a name
        return nodes
    return None
