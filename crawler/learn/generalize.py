"""From one node per record to one relative XPath that finds it in every record.

For a node found by a heuristic in each record, :func:`node_xpaths` lists relative XPath
expressions that reach it from the record root (an ``itemprop``, an id prefix, a class token, a
class token of an ancestor, an attribute, the tag path). :func:`best_xpath` keeps the expression
whose first match is the heuristic's node in the most records: what the records share is what
the site's template rendered, what varies is content.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from lxml import etree

from crawler.learn.dom import has_class_xpath, stable_classes, tag_test, xpath_literal

__all__ = ["best_xpath", "eval_first", "node_xpaths"]

_ID_PREFIX = re.compile(r"^([A-Za-z_:-]*?[A-Za-z_:-])\d+$")
_ATTRS = ("itemprop", "component", "data-role", "data-component", "role")
_PRESENCE = ("datetime", "data-timestamp", "data-time", "data-pid", "data-index", "title")


@lru_cache(maxsize=2048)
def _compiled(expr: str) -> etree.XPath:
    return etree.XPath(expr)


def eval_first(record: etree._Element, expr: str) -> etree._Element | None:
    if expr == ".":
        return record
    try:
        found = _compiled(expr)(record)
    except etree.XPathError:
        return None
    for node in found if isinstance(found, list) else []:
        if isinstance(node, etree._Element):
            return node
    return None


def _step(node: etree._Element) -> list[str]:
    """Tests that pick ``node`` among its peers, most meaningful first."""
    tag = tag_test(node)
    tests = []
    for attr in _ATTRS:
        value = node.get(attr)
        if value and len(value) < 60:
            tests.append(f"{tag}[@{attr}={xpath_literal(value)}]")
    node_id = node.get("id") or ""
    match = _ID_PREFIX.match(node_id)
    if match:
        tests.append(f"{tag}[starts-with(@id, {xpath_literal(match.group(1))})]")
    for token in stable_classes(node)[:4]:
        tests.append(f"{tag}[{has_class_xpath(token)}]")
    for attr in _PRESENCE:
        if node.get(attr) is not None:
            tests.append(f"{tag}[@{attr}]")
    return tests


def node_xpaths(node: etree._Element, record: etree._Element) -> list[str]:
    """Relative XPath expressions from ``record`` to ``node``, specific ones first."""
    if node is record:
        return ["."]
    own = _step(node)
    exprs = [f".//{test}" for test in own]
    # An ancestor inside the record that names the region (div.author > a, td.postbody p).
    for ancestor in node.iterancestors():
        if ancestor is record:
            break
        for test in _step(ancestor)[:3]:
            exprs.append(f".//{test}//{tag_test(node)}")
            exprs.extend(f".//{test}//{t}" for t in own[:2])
    exprs.append(_tag_path(node, record))
    exprs.append(f".//{tag_test(node)}")
    return list(dict.fromkeys(exprs))


def _tag_path(node: etree._Element, record: etree._Element) -> str:
    steps = []
    current = node
    while current is not record and current is not None:
        parent = current.getparent()
        if parent is None:
            break
        same = [c for c in parent if c.tag == current.tag]
        tag = tag_test(current)
        steps.append(f"{tag}[{same.index(current) + 1}]" if len(same) > 1 else tag)
        current = parent
    return "./" + "/".join(reversed(steps))


def best_xpath(
    pairs: Sequence[tuple[etree._Element, etree._Element | None]],
    min_share: float = 0.6,
) -> tuple[str, float] | None:
    """The expression that finds the wanted node in most records.

    :param pairs: ``(record, wanted node or None)``; ``None`` = the heuristic found nothing there.
    :returns: ``(xpath, share of records where it finds the wanted node)`` or ``None``.
    """
    wanted = [(r, n) for r, n in pairs if n is not None]
    if not wanted:
        return None
    votes: Counter[str] = Counter()
    order: dict[str, int] = {}
    for record, node in wanted:
        for index, expr in enumerate(node_xpaths(node, record)):
            votes[expr] += 1
            order[expr] = min(order.get(expr, 99), index)
    best: tuple[float, int, str] | None = None
    for expr, _ in votes.most_common(40):
        hits = wrong = 0
        for record, node in pairs:
            found = eval_first(record, expr)
            if node is not None and found is node:
                hits += 1
            elif found is not None and node is not None:
                wrong += 1
        score = (hits - 2 * wrong) / len(wanted)
        key = (score, -order[expr], expr)
        if best is None or key[:2] > best[:2]:
            best = key
    if best is None or best[0] < min_share:
        return None
    return best[2], best[0]
