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
* post id: the record's id (``post_123``, ``p123``), ``data-pid``, else a permalink.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from lxml import etree

from crawler.learn.dom import element_text, is_inside, link_text_len, stable_classes
from crawler.learn.generalize import best_xpath, eval_first, node_xpaths
from crawler.learn.records import USER_HREF, author_links
from crawler.learn.template import FieldRule
from crawler.learn.when import FIND_DATE, date_candidates, find_date, has_clock

__all__ = ["Record", "learn_fields"]

Record = list[etree._Element]  # the rows of one record (one element unless a table layout)

_AUTHOR_CLASS = re.compile(r"author|user-?name|poster|\bname\b|nick", re.IGNORECASE)
_BY = re.compile(r"(?:^|\s)(?:by|von|par|作者[:：]?)\s+([^\s,;|]+)", re.IGNORECASE)
_POSITION_TEXT = re.compile(r"^(?:#\s*(\d{1,6})|(\d{1,6})\s*[#楼]|第\s*(\d{1,6})\s*楼|(?:reply|回复)\s*#?\s*(\d{1,6}))$", re.I)
_LEADING_NUMBER = re.compile(r"^#\s*(\d{1,6})\b")
_POSITION_ATTRS = ("data-index", "data-postnumber", "data-position", "data-floor", "data-post-number")
_ID_ATTRS = ("data-pid", "data-post-id", "data-postid", "data-msgid", "data-id", "data-content")
_PERMALINK = re.compile(r"(?:[#?&;](?:p|pid|post|msg|comment|reply)[=_-]?|/posts?/|msg)(\d+)", re.IGNORECASE)
_BODY_HINT = re.compile(r"body|content|message|text|entry|postmsg|t_f|bbwrapper|articlebody", re.IGNORECASE)
_NOT_BODY = re.compile(r"sig|author|user|profile|avatar|meta|footer|header|info|stats|rank|poster|head", re.I)
_SIGNATURE = re.compile(r"(?:^|[\s_-])sig(?:nature)?(?:$|[\s_-])|signature|postsig", re.IGNORECASE)
_WORD = re.compile(r"\w+")
_BLOCK = {"div", "td", "section", "article", "dd", "li", "blockquote", "main", "span", "p", "tr"}


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
            name = next((n for n in node.iter() if isinstance(n.tag, str) and n.get("itemprop") == "name"), None)
            target = name if name is not None else node
            if name is not None and name.get("content"):
                return name, "@content", None
            if 0 < len(element_text(target)) <= 40:
                return target, ".", None
    links = [a for a in author_links(row) if not any(x.tag == "blockquote" for x in a.iterancestors())]
    if links:
        return links[0], ".", None
    for node in row.iter():
        if not isinstance(node.tag, str) or node is row:
            continue
        if _AUTHOR_CLASS.search(" ".join(stable_classes(node))) and 0 < len(element_text(node)) <= 40:
            return node, ".", None
    for node in row.iter():
        if isinstance(node.tag, str) and len(node) <= 6 and node is not row:
            text = element_text(node)
            if len(text) <= 80 and _BY.search(text):
                return node, ".", _BY.pattern
    return None


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
    for pattern in (r"/(?:users?|members?|u|profile|people|author)/([^/?#&]+)", r"space-uid-(\d+)", r"(\d+)"):
        values = {m.group(1) for h in hrefs if (m := re.search(pattern, h))}
        if values:
            return pattern
    return None


# -- body ----------------------------------------------------------------------------------------
def _body_candidates(row: etree._Element, avoid: list[etree._Element]) -> list[etree._Element]:
    total = max(1, len(element_text(row)))
    found = [row]
    for node in row.iter():
        if node is row or not isinstance(node.tag, str) or node.tag not in _BLOCK:
            continue
        if any(is_inside(a, node) for a in avoid):
            continue
        text = element_text(node)
        if len(text) >= 0.15 * total or (len(text) >= 3 and _BODY_HINT.search(" ".join(stable_classes(node)))):
            found.append(node)
    return found


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = [re.sub(r"\d+", "#", w) for w in _WORD.findall(text.lower())]
    if len(words) < 3:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + 3]) for i in range(len(words) - 2)}


def _templateness(texts: list[str]) -> float:
    """Share of word trigrams that most records have: high for user columns and post chrome
    ("Posts: # Threads: #", "Reply Quote"), low for bodies, whatever their vocabulary."""
    bags = [_shingles(t) for t in texts if t]
    if len(bags) < 3:
        return 0.0
    counts = Counter(g for bag in bags for g in bag)
    common = {g for g, c in counts.items() if c >= 0.5 * len(bags)}
    shares = [len(bag & common) / len(bag) for bag in bags if bag]
    return sum(shares) / len(shares) if shares else 0.0


def learn_body(records: list[Record], avoid: list[list[etree._Element]]) -> tuple[FieldRule, list[str]] | None:
    pairs_by_expr: Counter[tuple[int, str]] = Counter()
    for record, avoid_nodes in zip(records, avoid, strict=True):
        for row_index, row in enumerate(record):
            for node in _body_candidates(row, avoid_nodes):
                for expr in node_xpaths(node, row)[:6]:
                    pairs_by_expr[(row_index, expr)] += 1
    scored = []
    for (row_index, expr), _ in pairs_by_expr.most_common(120):
        nodes = [eval_first(r[row_index], expr) if row_index < len(r) else None for r in records]
        present = [n for n in nodes if n is not None]
        if len(present) < 0.6 * len(records):
            continue
        if expr == ".":
            texts = [_without_header(n, a) for n, a in zip(nodes, avoid, strict=True) if n is not None]
        else:
            texts = [element_text(n) for n in present]
        lengths = [min(len(t) - link_text_len(n) // 2, 3000) for t, n in zip(texts, present, strict=True)]
        avg = sum(lengths) / len(records)
        hint = " ".join(stable_classes(present[0])) + " " + (present[0].get("itemprop") or "")
        factor = 1.5 if _BODY_HINT.search(hint) else 1.0
        if _NOT_BODY.search(hint) and not _BODY_HINT.search(hint):
            factor *= 0.3
        wraps_header = sum(1 for n, a in zip(nodes, avoid, strict=True) if n is not None and any(is_inside(x, n) for x in a))
        if wraps_header and expr != ".":
            factor *= 0.5
        score = avg * (1 - _templateness(texts)) * factor
        scored.append((score, row_index, expr, present))
    if not scored:
        return None
    scored.sort(key=lambda s: s[0], reverse=True)
    best_score, row_index, expr, present = scored[0]
    # The deepest rule that keeps nearly all of the best rule's text (the header left out):
    # the body, not its wrapper.
    for score, r_index, other, nodes in scored[1:]:
        if r_index != row_index or score < 0.5 * best_score:
            continue
        if _covers(records, row_index, expr, other, avoid):
            best_score, expr, present = score, other, nodes
    strip = _strip_rules(records, row_index, expr, avoid)
    return FieldRule(xpath=expr, value="html", row=row_index), strip


def _without_header(record: etree._Element, avoid: list[etree._Element]) -> str:
    """The record's text less its children that hold the author or the date."""
    return " ".join(element_text(c) for c in record if isinstance(c.tag, str) and not any(is_inside(a, c) for a in avoid))


def _covers(records: list[Record], row_index: int, outer: str, inner: str, avoid: list[list[etree._Element]]) -> bool:
    """Whether ``inner`` lies inside ``outer`` and holds at least 90% of its text (text of the
    author and date nodes not counted) in nearly every record."""
    good = total = 0
    for record, avoid_nodes in zip(records, avoid, strict=True):
        if row_index >= len(record):
            continue
        a, b = eval_first(record[row_index], outer), eval_first(record[row_index], inner)
        if a is None:
            continue
        total += 1
        if b is None or b is a or not is_inside(b, a):
            continue
        header = sum(len(element_text(n)) for n in avoid_nodes if is_inside(n, a))
        wide, narrow = len(element_text(a)) - header, len(element_text(b))
        # What the inner node leaves out is a line of chrome at most ("#1", "Quote", "Reply"),
        # or blocks the template names (a likes footer, an "edited" line, an attribution).
        if narrow >= 0.9 * wide or wide - narrow <= 24 or _unnamed_text(b, a) <= max(24, 0.1 * wide):
            good += 1
    return total > 0 and good >= 0.9 * total


_CHROME_TAGS = {"header", "footer", "aside", "nav", "form", "button", "time", "ul", "ol", "menu"}


def _unnamed_text(inner: etree._Element, outer: etree._Element) -> int:
    """Characters inside ``outer`` but outside ``inner`` that no classed or chrome element holds:
    text a reader would take for part of the post."""
    loose = 0
    node = inner
    while node is not outer:
        parent = node.getparent()
        if parent is None:
            break
        loose += len((parent.text or "").strip())
        for sibling in parent:
            loose += len((sibling.tail or "").strip())
            if sibling is node or not isinstance(sibling.tag, str):
                continue
            if not stable_classes(sibling) and sibling.tag not in _CHROME_TAGS and not sibling.get("id"):
                loose += len(element_text(sibling))
        node = parent
    return loose


def _strip_rules(records: list[Record], row_index: int, expr: str, avoid: list[list[etree._Element]]) -> list[str]:
    strip: list[str] = []
    for record, avoid_nodes in zip(records, avoid, strict=True):
        body = eval_first(record[row_index], expr) if row_index < len(record) else None
        if body is None:
            continue
        for node in body.iter():
            if node is body or not isinstance(node.tag, str):
                continue
            label = " ".join(stable_classes(node)) + " " + (node.get("id") or "")
            if _SIGNATURE.search(label):
                strip.extend(x for x in node_xpaths(node, body)[:1] if x != ".")
        if expr == ".":
            # The body is the record: drop its children that hold the author or the date.
            for child in body:
                if any(is_inside(a, child) for a in avoid_nodes):
                    strip.extend(x for x in node_xpaths(child, body)[-3:-2] or node_xpaths(child, body)[:1])
    return [s for s, _ in Counter(strip).most_common() if s != "."][:4]


# -- position and id -----------------------------------------------------------------------------
def _position_node(row: etree._Element) -> tuple[etree._Element, str, str] | None:
    for attr in _POSITION_ATTRS:
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


def _post_id_node(row: etree._Element) -> tuple[etree._Element, str, str] | None:
    if re.search(r"\d+$", row.get("id") or ""):
        return row, "@id", r"(\d+)$"
    for attr in _ID_ATTRS:
        if re.search(r"\d", row.get(attr) or ""):
            return row, f"@{attr}", r"(\d+)"
    for a in row.iter("a"):
        if _PERMALINK.search(a.get("href") or ""):
            return a, "@href", _PERMALINK.pattern
        if (a.get("name") or "").isdigit():
            return a, "@name", r"(\d+)"
    return None


# -- learning ------------------------------------------------------------------------------------
def _rule(records: list[Record], found: list[tuple[int, etree._Element, str, str | None] | None], min_share: float = 0.6) -> FieldRule | None:
    rows = Counter(f[0] for f in found if f)
    if not rows:
        return None
    row_index = rows.most_common(1)[0][0]
    pairs = [(r[row_index], f[1] if f and f[0] == row_index else None) for r, f in zip(records, found, strict=True) if row_index < len(r)]
    best = best_xpath(pairs, min_share)
    if best is None:
        return None
    values = Counter(f[2] for f in found if f and f[0] == row_index)
    regexes = Counter(f[3] for f in found if f and f[0] == row_index)
    return FieldRule(xpath=best[0], value=values.most_common(1)[0][0], regex=regexes.most_common(1)[0][0], row=row_index)


def _with_row(record: Record, fn) -> tuple[int, etree._Element, str, str | None] | None:  # type: ignore[no-untyped-def]
    for index, row in enumerate(record):
        hit = fn(row)
        if hit is not None:
            return (index, *hit)
    return None


def _best_date(row: etree._Element) -> tuple[etree._Element, str, str | None] | None:
    candidates = [c for c in date_candidates(row) if not any(x.tag == "blockquote" for x in c.node.iterancestors())]
    # The innermost of nested nodes showing one date ("<span class=postdate><span class=date>"):
    # an outer one may hold more text on other records (a title after the date).
    candidates = [c for c in candidates if not any(
        o.node is not c.node and o.raw == c.raw and o.rank == c.rank and is_inside(o.node, c.node) for o in candidates)]
    if not candidates:
        return None
    best = min(enumerate(candidates), key=lambda ic: (ic[1].rank, not ic[1].clock, ic[0]))[1]
    return best.node, best.value, best.regex


def learn_fields(records: list[Record]) -> dict[str, object]:
    """Rules for every field the records share, plus the body's strip list and the date precision."""
    authors = [_with_row(r, _author_node) for r in records]
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
    avoid = [[n for n in (a[1] if a else None, d[1] if d else None) if n is not None] for a, d in zip(authors, dates, strict=True)]
    body = learn_body(records, avoid)
    precision = "time" if any(has_clock(_raw(d)) for d in dates if d) else "day"
    return {
        "author": author,
        "author_id": author_id,
        "date": date,
        "body": body[0] if body else None,
        "body_strip": body[1] if body else [],
        "position": _rule(records, [_with_row(r, _position_node) for r in records], 0.5),
        "post_id": _rule(records, [_with_row(r, _post_id_node) for r in records], 0.8),
        "date_precision": precision,
    }


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
