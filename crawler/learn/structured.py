"""Structured data first: schema.org microdata posts become itemprop rules.

When a site marks its posts up as schema.org items (``DiscussionForumPosting``, ``Comment``,
``SocialMediaPosting``, ``Answer``), the record and its fields are declared: the record is the
item, ``author``/``datePublished``/``articleBody``/``text`` are its properties. The learner
then uses these XPath rules rather than mined ones; position and post id, which schema.org
leaves out, still come from the record heuristics. Reading items with extruct would re-parse
every page; the declared properties are plain attributes, so XPath reads them as cheaply as
any other rule.
"""

from __future__ import annotations

import re

from lxml import etree

from crawler.learn.dom import (
    element_text,
    has_class_xpath,
    stable_classes,
    tag_test,
    xpath_literal,
)
from crawler.learn.fields import _position_node, _rule, _with_row
from crawler.learn.ids import pick_post_id, post_id_candidates
from crawler.learn.template import FieldRule, PostRules

__all__ = ["POSTING_TYPES", "microdata_rules"]

POSTING_TYPES = ("DiscussionForumPosting", "SocialMediaPosting", "Comment", "Answer", "Question")
_TYPE_TEST = " or ".join(f"substring(@itemtype, string-length(@itemtype) - {len(t) - 1}) = '{t}'"
                         for t in POSTING_TYPES)
RECORD = f"//*[@itemscope][{_TYPE_TEST}]"
_BODY = ".//*[@itemprop='articleBody' or @itemprop='text']"
_DATE = ".//*[@itemprop='datePublished' or @itemprop='dateCreated']"
_AUTHOR_NAME = ".//*[@itemprop='author']//*[@itemprop='name']"
_AUTHOR = ".//*[@itemprop='author']"
_NESTED = f".//*[@itemscope][{_TYPE_TEST}]"


def _value_of(nodes: list[etree._Element]) -> str:
    """Which attribute of the date nodes holds the date."""
    for attr in ("content", "datetime", "title"):
        if nodes and all(n.get(attr) for n in nodes):
            return f"@{attr}"
    return "."


def _own_block(item: etree._Element) -> etree._Element | None:
    """The block of an item that holds other items (schema.org's ``Question`` around its
    ``Answer`` items, as a Q&A page marks them up) that is its own post: the outermost element
    holding its body and no other item, down through wrappers of one child (the box with the
    post's id). ``None`` when the item holds no other item."""
    if not item.xpath(_NESTED):
        return None
    body = next((b for b in item.xpath(_BODY) if not _in_nested(b, item)), None)
    if body is None:
        return None
    node = body
    while (parent := node.getparent()) is not None and parent is not item \
            and not parent.xpath(_NESTED):
        node = parent
    while len(children := [c for c in node if isinstance(c.tag, str)]) == 1:
        node = children[0]
    return node if node.xpath(_BODY) else None


def _in_nested(node: etree._Element, item: etree._Element) -> bool:
    """Whether ``node`` belongs to another item inside ``item``."""
    for ancestor in node.iterancestors():
        if ancestor is item:
            return False
        if ancestor.get("itemscope") is not None and ancestor.xpath(f"self::*[{_TYPE_TEST}]"):
            return True
    return False


def _narrowed(roots: list[etree._Element]) -> str:
    """The record rule: :data:`RECORD`, items that hold other items read as their own block
    when one name tells that block on every sample page that has one."""
    blocks = [(root, block) for root in roots for item in root.xpath(RECORD)
              if (block := _own_block(item)) is not None]
    if not blocks:
        return RECORD
    for own in _names(blocks[0][1]):
        inner = f"//*[@itemscope][{_TYPE_TEST}]//{own}"
        if all(root.xpath(inner) == [b for r, b in blocks if r is root] for root, _ in blocks):
            return f"{inner} | //*[@itemscope][{_TYPE_TEST}][not(.//{own})]"
    return RECORD


def _names(node: etree._Element) -> list[str]:
    tag, classes = tag_test(node), stable_classes(node)
    tests = [f"{tag}[{has_class_xpath(t)}]" for t in classes]
    if node.get("id") and not re.search(r"\d", node.get("id") or ""):
        tests.insert(0, f"{tag}[@id={xpath_literal(node.get('id') or '')}]")
    return tests


def microdata_rules(roots: list[etree._Element]) -> PostRules | None:
    """Rules from schema.org posting items, when the pages have several with a body each."""
    record = _narrowed(roots)
    per_page = [[[r] for r in root.xpath(record)] for root in roots]
    records = [r for page in per_page for r in page]
    with_body = [r for r in records if r[0].xpath(_BODY)]
    if len(with_body) < 2 or len(with_body) < 0.8 * len(records):
        return None
    dates = [n for r in with_body for n in r[0].xpath(_DATE)[:1]]
    if len(dates) < 0.8 * len(with_body):
        return None
    names = [n for r in with_body for n in r[0].xpath(_AUTHOR_NAME)[:1]]
    if len(names) >= 0.8 * len(with_body):
        author = FieldRule(_AUTHOR_NAME,
                           _value_of(names) if _value_of(names) == "@content" else ".")
    else:
        authors = [n for r in with_body for n in r[0].xpath(_AUTHOR)[:1]]
        short = [a for a in authors if 0 < len(element_text(a)) <= 60 or a.get("content")]
        if len(short) < 0.8 * len(with_body):
            return None
        author = FieldRule(_AUTHOR, "@content" if all(a.get("content") for a in short) else ".")
    rules = PostRules(
        record=record,
        author=author,
        author_id=_author_id_rule(with_body),
        date=FieldRule(_DATE, _value_of(dates)),
        body=FieldRule(_BODY, "html"),
        position=_rule(with_body, [_with_row(r, _position_node) for r in with_body], 0.5),
    )
    pick_post_id(rules, post_id_candidates(with_body), per_page)
    return rules


def _author_id_rule(records: list[list[etree._Element]]) -> FieldRule | None:
    from crawler.learn.fields import id_regex

    links = [a for r in records for a in r[0].xpath(f"{_AUTHOR}/descendant-or-self::a[@href]")[:1]]
    if len(links) < 0.8 * len(records):
        return None
    regex = id_regex([a.get("href") or "" for a in links])
    return FieldRule(f"{_AUTHOR}/descendant-or-self::a[@href]", "@href", regex) if regex else None
