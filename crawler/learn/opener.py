"""The opening post when it is rendered apart from the replies (Vanilla's discussion block above
its comment list, a question above its answers).

Such a post has the replies' fields under other markup around them: the author, date and body
rules learned on the replies still read it. It is the nearest block before the first reply (a
previous sibling of the reply list or of one of its ancestors) that the three rules read and
that holds no reply; one XPath that names it on every sample page joins the record rule.
"""

from __future__ import annotations

from lxml import etree

from crawler.learn.apply import read_field
from crawler.learn.dom import has_class_xpath, stable_classes, tag_test, xpath_literal
from crawler.learn.generalize import eval_first
from crawler.learn.template import PostRules

__all__ = ["with_opener"]

_LEVELS = 4


def _candidate(rules: PostRules, root: etree._Element) -> etree._Element | None:
    records = root.xpath(rules.record)
    if not records:
        return None
    node = records[0]
    for _ in range(_LEVELS):
        parent = node.getparent()
        if parent is None:
            return None
        for previous in node.itersiblings(preceding=True):
            if isinstance(previous.tag, str) and _reads_as_post(rules, previous):
                return previous
        node = parent
    return None


def _reads_as_post(rules: PostRules, node: etree._Element) -> bool:
    rows = [node]
    body = rules.body
    return bool(
        body is not None and eval_first(node, body.xpath) is not None
        and read_field(rules.author, rows) and read_field(rules.date, rows)
    )


def _names(node: etree._Element) -> list[str]:
    tag = tag_test(node)
    tests = [f"//{tag}[@id={xpath_literal(node.get('id') or '')}]"] if node.get("id") else []
    classes = stable_classes(node)
    if len(classes) >= 2:
        tests.append(f"//{tag}[{' and '.join(has_class_xpath(t) for t in classes[:3])}]")
    tests += [f"//{tag}[{has_class_xpath(t)}]" for t in classes]
    return tests


def with_opener(rules: PostRules, roots: list[etree._Element]) -> PostRules:
    """``rules`` whose record rule also selects a separately rendered opening post, when every
    sample page that has one names it the same way; else ``rules`` unchanged."""
    if rules.span != 1 or rules.data or rules.author is None or rules.date is None:
        return rules
    found = [(root, node) for root in roots if (node := _candidate(rules, root)) is not None]
    if not found:
        return rules
    for expr in _names(found[0][1]):
        if all(root.xpath(expr) == [node] for root, node in found):
            rules.record = f"{expr} | {rules.record}"
            return rules
    return rules
