"""Per-record heuristics for the post fields, and the rules learned from them.

For each record of the sample pages a heuristic points at a node (the author link, the date,
the body…); :func:`crawler.learn.generalize.best_xpath` turns the nodes into one rule that the
records share. Heuristics, in the order a person reading the page would use them:

* author: ``data-author``/``data-username`` on the record, ``itemprop=author``, a link to a
  member page, an element classed ``author``/``username``/``poster``, "by NAME" text;
* date: see :mod:`crawler.learn.when` (machine attributes, then ``title``, then text);
* body: among the record's large elements, the rule whose text is long and differs most
  between records (user columns and post chrome repeat words: "Posts:", "Joined:", "Reply");
* position: ``data-index``-like attributes or "#12" / "12#" / "12楼" texts that count up by one;
* post id: :mod:`crawler.learn.ids` (a number given once per post, not once per thread).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from lxml import etree

from crawler.learn.body import learn_body
from crawler.learn.dom import element_text, is_inside, stable_classes
from crawler.learn.generalize import best_xpath, eval_first
from crawler.learn.names import name_nodes
from crawler.learn.records import USER_HREF, author_links
from crawler.learn.template import FieldRule
from crawler.learn.when import (
    FIND_DATE,
    date_candidates,
    find_date,
    has_clock,
    looks_like_date,
)

__all__ = ["ID_ATTRS", "PERMALINK", "POSITION_ATTRS", "Record", "learn_fields"]

Record = list[etree._Element]  # the rows of one record (one element unless a table layout)

_AUTHOR_CLASS = re.compile(r"author|user-?name|poster|\bname\b|nick", re.IGNORECASE)
_BY = re.compile(r"(?:^|\s)(?:by|von|par|作者[:：]?)\s+([^\s,;|]+)", re.IGNORECASE)
_POSITION_TEXT = re.compile(
    r"^(?:#\s*(\d{1,6})|(\d{1,6})\s*[#楼]|第\s*(\d{1,6})\s*楼|(?:reply|回复)\s*#?\s*(\d{1,6}))$",
    re.IGNORECASE)
_LEADING_NUMBER = re.compile(r"^#\s*(\d{1,6})\b")
POSITION_ATTRS = (
    "data-index", "data-postnumber", "data-position", "data-floor", "data-post-number"
)
ID_ATTRS = ("data-pid", "data-post-id", "data-postid", "data-msgid", "data-id", "data-content")
#: A link to the post itself; its id may be the thread's and the post's number joined by a dot
#: (``msg=3.2``: post 2 of thread 3), the only name that post has.
PERMALINK = re.compile(
    r"(?:[#?&;](?:p|pid|post|msg|comment|reply)[=_-]?|/posts?/|msg)(\d+(?:\.\d+)?)(?!\.?\d)",
    re.IGNORECASE)


def _find(record: Record, test) -> tuple[int, etree._Element] | None:  # type: ignore[no-untyped-def]
    for index, row in enumerate(record):
        node = test(row)
        if node is not None:
            return index, node
    return None


# -- author --------------------------------------------------------------------------------------
def _author_node(row: etree._Element) -> tuple[etree._Element, str, str | None] | None:
    for attr in ("data-author", "data-username"):
        if row.get(attr):
            return row, f"@{attr}", None
    for node in row.iter():
        if isinstance(node.tag, str) and node.get("itemprop") == "author":
            name = next((n for n in node.iter()
                         if isinstance(n.tag, str) and n.get("itemprop") == "name"), None)
            target = name if name is not None else node
            if name is not None and name.get("content"):
                return name, "@content", None
            if 0 < len(element_text(target)) <= 40:
                return target, ".", None
    links = [a for a in author_links(row)
             if not any(x.tag == "blockquote" for x in a.iterancestors())]
    if links:
        return _name_link(links), ".", None
    for node in row.iter():
        if not isinstance(node.tag, str) or node is row:
            continue
        if (_AUTHOR_CLASS.search(" ".join(stable_classes(node)))
                and 0 < len(element_text(node)) <= 40):
            return _name_inside(node), ".", None
    for node in row.iter():
        if isinstance(node.tag, str) and len(node) <= 6 and node is not row:
            text = element_text(node)
            if len(text) <= 80 and _BY.search(text):
                return node, ".", _BY.pattern
    return None


#: The text of an avatar link: the name's initial (a letter avatar) or a badge's number.
_AVATAR_TEXT = re.compile(r"^(?:\w|\d[\d.,kK]*)$")


def _name_link(links: list[etree._Element]) -> etree._Element:
    """The first member link, or when its text is no name but an avatar's (an initial, a
    reputation badge "1" over an image) the next link to the same member page: the name."""
    first = links[0]
    if not _AVATAR_TEXT.match(element_text(first)):
        return first
    href = first.get("href")
    return next((a for a in links[1:] if a.get("href") == href
                 and not _AVATAR_TEXT.match(element_text(a))), first)


_NOT_A_NAME = re.compile(r"^(?:by|von|par|de|por|da|door|av|作者)\b|[»«|]", re.IGNORECASE)


def _name_inside(node: etree._Element) -> etree._Element:
    """The name in an author element that also says "by" or the date ("par alice » Lun 8
    Jan 2018 15:33"): its first child element holding a short text that is no date."""
    if _plain_name(element_text(node)):
        return node
    for child in node.iter():
        if child is not node and isinstance(child.tag, str) and _plain_name(element_text(child)):
            return child
    return node


def _plain_name(text: str) -> bool:
    """A name alone: no "by", no date ("par alice » Lun 8 Jan 2018")."""
    return 0 < len(text) <= 40 and not (_NOT_A_NAME.search(text) or looks_like_date(text))


def _author_id(row: etree._Element, author: etree._Element) -> etree._Element | None:
    if author.tag == "a" and USER_HREF.search(author.get("href") or ""):
        return author
    return next((a for a in row.iter("a") if USER_HREF.search(a.get("href") or "")), None)


def id_regex(hrefs: Sequence[str]) -> str | None:
    """A regex whose group 1 is the part of member links that differs between members."""
    for name in ("uid", "u", "userid", "user_id", "user", "mid", "id"):
        pattern = rf"[?&;]{name}=([^&;#]+)"
        values = {m.group(1) for h in hrefs if (m := re.search(pattern, h))}
        if len(values) >= min(2, len(set(hrefs))) and len(values) >= 1:
            return pattern
    for pattern in (r"/(?:users?|members?|u|profile|people|author)/([^/?#&]+)", r"space-uid-(\d+)",
                    r"(\d+)"):
        values = {m.group(1) for h in hrefs if (m := re.search(pattern, h))}
        if values:
            return pattern
    return None


# -- position and id -----------------------------------------------------------------------------
def _position_node(row: etree._Element) -> tuple[etree._Element, str, str] | None:
    for attr in POSITION_ATTRS:
        if (row.get(attr) or "").isdigit():
            return row, f"@{attr}", r"(\d+)"
    for node in row.iter():
        if not isinstance(node.tag, str):
            continue
        if node.get("itemprop") == "position":
            return node, "@content" if node.get("content") else ".", r"(\d+)"
        if len(node) <= 2:
            text = element_text(node)
            if len(text) <= 14 and _POSITION_TEXT.match(text):
                return node, ".", r"(\d+)"
            if len(text) <= 100 and _LEADING_NUMBER.match(text):
                return node, ".", _LEADING_NUMBER.pattern
    return None


def _permalink_node(row: etree._Element) -> tuple[etree._Element, str, str] | None:
    for a in row.iter("a"):
        if PERMALINK.search(a.get("href") or ""):
            return a, "@href", PERMALINK.pattern
        if (a.get("name") or "").isdigit():
            return a, "@name", r"(\d+)"
    return None


# -- learning ------------------------------------------------------------------------------------
def _rule(records: list[Record], found: list[tuple[int, etree._Element, str, str | None] | None],
          min_share: float = 0.6) -> FieldRule | None:
    rows = Counter(f[0] for f in found if f)
    if not rows:
        return None
    row_index = rows.most_common(1)[0][0]
    pairs = [(r[row_index], f[1] if f and f[0] == row_index else None)
             for r, f in zip(records, found, strict=True) if row_index < len(r)]
    best = best_xpath(pairs, min_share)
    if best is None:
        return None
    values = Counter(f[2] for f in found if f and f[0] == row_index)
    regexes = Counter(f[3] for f in found if f and f[0] == row_index)
    return FieldRule(xpath=best[0], value=values.most_common(1)[0][0],
                     regex=regexes.most_common(1)[0][0], row=row_index)


def _with_row(record: Record, fn) -> tuple[int, etree._Element, str, str | None] | None:  # type: ignore[no-untyped-def]
    for index, row in enumerate(record):
        hit = fn(row)
        if hit is not None:
            return (index, *hit)
    return None


def _best_date(row: etree._Element) -> tuple[etree._Element, str, str | None] | None:
    candidates = [c for c in date_candidates(row)
                  if not any(x.tag == "blockquote" for x in c.node.iterancestors())]
    # The innermost of nested nodes showing one date ("<span class=postdate><span class=date>"):
    # an outer one may hold more text on other records (a title after the date).
    candidates = [c for c in candidates if not any(
        o.node is not c.node and o.raw == c.raw and o.rank == c.rank and is_inside(o.node, c.node)
        for o in candidates)]
    if not candidates:
        return None
    best = min(enumerate(candidates), key=lambda ic: (ic[1].rank, not ic[1].clock, ic[0]))[1]
    return best.node, best.value, best.regex


def learn_fields(records: list[Record]) -> dict[str, object]:
    """Rules for every field the records share, plus the body's strip list and the date
    precision."""
    authors = [_with_row(r, _author_node) for r in records]
    if sum(1 for a in authors if a) < 0.6 * len(records):
        # No profile links nor author classes: the name at one place in every record.
        names = name_nodes(records) or []
        authors = ([a or _name_hit(r, n) for a, r, n in zip(authors, records, names, strict=False)]
                   + authors[len(names):])
    dates = [_with_row(r, _best_date) for r in records]
    author = _rule(records, authors)
    date = _rule(records, dates)
    author_ids = []
    for record, hit in zip(records, authors, strict=True):
        found = None
        for index, row in enumerate(record):
            node = _author_id(row, hit[1]) if hit else None
            if node is not None:
                found = (index, node, "@href", None)
                break
        author_ids.append(found)
    author_id = _rule(records, author_ids)
    if author_id is not None:
        hrefs = [h for r in records if (h := _href(r, author_id))]
        author_id.regex = id_regex(hrefs)
        if author_id.regex is None:
            author_id = None
    avoid = [[n for n in (a[1] if a else None, d[1] if d else None) if n is not None]
             for a, d in zip(authors, dates, strict=True)]
    body = learn_body(records, avoid)
    precision = "time" if any(has_clock(_raw(d)) for d in dates if d) else "day"
    return {
        "author": author,
        "author_id": author_id,
        "date": date,
        "body": body[0] if body else None,
        "body_strip": body[1] if body else [],
        "position": _rule(records, [_with_row(r, _position_node) for r in records], 0.5),
        "date_precision": precision,
    }


def _name_hit(record: Record,
              node: etree._Element | None) -> tuple[int, etree._Element, str, str | None] | None:
    if node is None:
        return None
    row = next((i for i, r in enumerate(record) if is_inside(node, r)), 0)
    return row, node, ".", None


def _raw(hit: tuple[int, etree._Element, str, str | None]) -> str:
    _, node, value, regex = hit
    text = (node.get(value[1:]) or "") if value.startswith("@") else element_text(node)
    if regex == FIND_DATE:
        return find_date(text) or text
    match = re.search(regex, text) if regex else None
    return match.group(1) if match else text


def _href(record: Record, rule: FieldRule) -> str | None:
    node = eval_first(record[rule.row], rule.xpath) if rule.row < len(record) else None
    return node.get("href") if node is not None else None
