"""The post body: the rule whose text is long and differs most between records.

User columns and post chrome repeat words ("Posts:", "Joined:", "Reply"); a body does not. Of
the rules that hold nearly all of the best one's text, the deepest wins (the body, not its
wrapper); what it leaves out must be chrome: a line, or blocks the template names (a likes
footer, an "edited" line, an attribution). Children that hold the author or the date are
stripped from a body that wraps them, as are signatures.
"""

from __future__ import annotations

import copy
import re
from collections import Counter

from lxml import etree

from crawler.learn.dom import (
    drop_tree,
    element_text,
    is_inside,
    link_text_len,
    stable_classes,
)
from crawler.learn.generalize import eval_first, node_xpaths
from crawler.learn.template import FieldRule

__all__ = ["learn_body"]

Record = list[etree._Element]

_BODY_HINT = re.compile(r"body|content|message|text|entry|postmsg|t_f|bbwrapper|articlebody",
                        re.IGNORECASE)
_NOT_BODY = re.compile(
    r"sig|author|user|profile|avatar|meta|footer|header|info|stats|rank|poster|head", re.IGNORECASE)
_SIGNATURE = re.compile(r"(?:^|[\s_-])sig(?:nature)?(?:$|[\s_-])|signature|postsig", re.IGNORECASE)
_WORD = re.compile(r"\w+")
_BLOCK = {"div", "td", "section", "article", "dd", "li", "blockquote", "main", "span", "p", "tr"}


def _body_candidates(row: etree._Element, avoid: list[etree._Element]) -> list[etree._Element]:
    total = max(1, len(element_text(row)))
    found = [row]
    for node in row.iter():
        if node is row or not isinstance(node.tag, str) or node.tag not in _BLOCK:
            continue
        if _wraps_header(node, avoid):
            continue
        text = element_text(node)
        if len(text) >= 0.15 * total or (
                len(text) >= 3 and _BODY_HINT.search(" ".join(stable_classes(node)))):
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


def learn_body(records: list[Record],
               avoid: list[list[etree._Element]]) -> tuple[FieldRule, list[str]] | None:
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
            texts = [_without_header(n, a) for n, a in zip(nodes, avoid, strict=True)
                     if n is not None]
        else:
            texts = [" ".join(_less_header(n, a)) for n, a in zip(nodes, avoid, strict=True)
                     if n is not None]
        lengths = [min(len(t) - link_text_len(n) // 2, 3000)
                   for t, n in zip(texts, present, strict=True)]
        avg = sum(lengths) / len(records)
        hint = " ".join(stable_classes(present[0])) + " " + (present[0].get("itemprop") or "")
        factor = 1.5 if _BODY_HINT.search(hint) else 1.0
        if _NOT_BODY.search(hint) and not _BODY_HINT.search(hint):
            factor *= 0.3
        wraps_header = sum(1 for n, a in zip(nodes, avoid, strict=True)
                           if n is not None and _wraps_header(n, a))
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


def _header_children(node: etree._Element, avoid: list[etree._Element]) -> list[etree._Element]:
    """Children of ``node`` that hold the author or the date and little else (a byline, a
    footer with the date): a body that wraps them loses them."""
    holding = [c for c in node if isinstance(c.tag, str) and any(is_inside(a, c) for a in avoid)]
    if not holding:
        return []
    total = max(1, len(element_text(node)))
    return [c for c in holding if len(element_text(c)) <= 0.3 * total]


def _less_header(node: etree._Element, avoid: list[etree._Element]) -> list[str]:
    """The texts of ``node`` with its header children left out."""
    header = _header_children(node, avoid)
    texts = [node.text or ""]
    for child in node:
        if not any(child is h for h in header):
            texts.append(element_text(child) if isinstance(child.tag, str) else "")
        texts.append(child.tail or "")
    return [t.strip() for t in texts if t and t.strip()]


def _wraps_header(node: etree._Element, avoid: list[etree._Element]) -> bool:
    """Whether the author or date lies inside ``node`` other than in a header child."""
    header = _header_children(node, avoid)
    return any(is_inside(a, node) and not any(is_inside(a, h) for h in header) for a in avoid)


def _without_header(record: etree._Element, avoid: list[etree._Element]) -> str:
    """The record's text less its children that hold the author or the date."""
    return " ".join(element_text(c) for c in record
                    if isinstance(c.tag, str) and not any(is_inside(a, c) for a in avoid))


def _covers(records: list[Record], row_index: int, outer: str, inner: str,
            avoid: list[list[etree._Element]]) -> bool:
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
        if (narrow >= 0.9 * wide or wide - narrow <= 24
                or _unnamed_text(b, a, avoid_nodes) <= max(24, 0.1 * wide)):
            good += 1
    return total > 0 and good >= 0.9 * total


#: Blocks that are never post text: a subject line (``h3``), a button row, a byline.
_CHROME_TAGS = {"header", "footer", "aside", "nav", "form", "button", "time", "menu",
                "h1", "h2", "h3", "h4", "h5", "h6"}


def _unnamed_text(inner: etree._Element, outer: etree._Element, avoid: list[etree._Element]) -> int:
    """Characters inside ``outer`` but outside ``inner`` that no classed or chrome element holds,
    nor the byline (the element with the author or the date): text a reader would take for
    part of the post."""
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
            if stable_classes(sibling) or sibling.tag in _CHROME_TAGS or sibling.get("id"):
                continue
            if not any(is_inside(a, sibling) for a in avoid):
                loose += len(element_text(sibling))
        node = parent
    return loose


def _strip_rules(records: list[Record], row_index: int, expr: str,
                 avoid: list[list[etree._Element]]) -> list[str]:
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
        # The body is the record, or it wraps a byline: drop its children that hold the author
        # or the date.
        header = list(body) if expr == "." else _header_children(body, avoid_nodes)
        for child in header:
            if isinstance(child.tag, str) and any(is_inside(a, child) for a in avoid_nodes):
                strip.extend(x for x in node_xpaths(child, body)[-3:-2]
                             or node_xpaths(child, body)[:1])
    bodies = [b for r in records if row_index < len(r)
              if (b := eval_first(r[row_index], expr)) is not None]
    chrome = _hidden_copies(bodies) + _repeated_link_rows(bodies)
    return chrome + [s for s, _ in Counter(strip).most_common() if s != "."][:4 - len(chrome)]


#: Elements a browser does not show: ``hidden``, or an inline ``display: none``.
HIDDEN = ".//*[@hidden or contains(translate(@style, ' ', ''), 'display:none')]"


def _hidden_copies(bodies: list[etree._Element]) -> list[str]:
    """:data:`HIDDEN`, when most bodies hold a hidden copy of their own shown text (a quote
    of the post made ready for the reply box): not shown, so not the post's text. A hidden
    spoiler holds other text than the rest, and stays."""
    copies = 0
    for body in bodies:
        hidden = body.xpath(HIDDEN)
        if not hidden:
            continue
        shown = set(_WORD.findall(_shown_text(body)))
        kept = set(_WORD.findall(" ".join(element_text(h) for h in hidden)))
        if shown and len(shown & kept) >= 0.8 * len(shown):
            copies += 1
    return [HIDDEN] if copies * 2 > len(bodies) else []


def _shown_text(body: etree._Element) -> str:
    """``body``'s text less its hidden elements (their tails are shown)."""
    body = copy.deepcopy(body)
    for node in body.xpath(HIDDEN):
        drop_tree(node)
    return element_text(body)


def _repeated_link_rows(bodies: list[etree._Element]) -> list[str]:
    """Blocks of links that the body of (nearly) every record holds with one same text: the
    row of buttons an engine prints under each post ("Reply Quote"), never the post's words.
    Each comes with an XPath that names the block by an attribute (a bare tag or position
    could take the post's own links on other pages) and selects only such blocks here."""
    if len(bodies) < 3:
        return []
    seen: Counter[str] = Counter()
    nodes: dict[str, list[etree._Element]] = {}
    for body in bodies:
        for node in _link_rows(body, 0.5 * len(element_text(body))):
            text = element_text(node)
            seen[text] += 1
            nodes.setdefault(text, []).append(node)
    found = []
    for text, count in seen.items():
        if count < 0.8 * len(bodies):
            continue
        node = nodes[text][0]
        body = next(b for b in bodies if is_inside(node, b))
        for expr in node_xpaths(node, body):
            if "@" in expr and all(element_text(n) == text for b in bodies
                                   for n in b.xpath(expr) if isinstance(n, etree._Element)):
                found.append(expr)
                break
    return found[:2]


def _link_rows(node: etree._Element, most: float) -> list[etree._Element]:
    """The outermost elements under ``node`` whose text is mostly link text and short."""
    rows = []
    for child in node:
        if not isinstance(child.tag, str):
            continue
        text = element_text(child)
        if text and len(text) <= most and link_text_len(child) >= 0.5 * len(text):
            rows.append(child)
        else:
            rows.extend(_link_rows(child, most))
    return rows


