"""lxml helpers shared by the learner: parsing, text, class tokens and XPath building.

The learner works on plain lxml trees, not on parsel selectors: mining compares thousands of
subtrees, and a learned template is a handful of XPath expressions evaluated with lxml, which is
what a profile's CSS selectors compile to as well.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from lxml import etree

from crawler.learn.icons import is_icon

__all__ = [
    "class_tokens",
    "content_digest",
    "drop_tree",
    "element_text",
    "full_text",
    "has_class_xpath",
    "iter_text",
    "link_text_len",
    "parse",
    "stable_classes",
    "xpath_literal",
]

_SPACE = re.compile(r"\s+")
#: Class tokens that say how a block looks, not what it is (zebra rows, states, numbered ids).
_NOISE = re.compile(
    r"^(?:odd|even|alt\d*|bg\d|row\d*|first|last|new|old|unread|read|active|hidden|clearfix|"
    r"sticky|selected|highlight\w*|depth-\d+|js-\w+|is-\w+|has-\w+|u-\w+|col-\w+|"
    r"(?:\w*?[-_])?\d+|\w*\d{2,}\w*)$",
    re.IGNORECASE,
)
_SKIP_TAGS = {"script", "style", "noscript", "template", "head", "title", "meta", "link"}


def parse(text: str | bytes, base_url: str | None = None) -> etree._Element:
    """An lxml tree of a page; comments and processing instructions are dropped."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    if not text.strip():
        text = b"<html><body></body></html>"  # lxml refuses an empty document; a page may be one
    # Plain lxml elements: lxml.html's element classes cost a Python lookup for each node the
    # learner touches (about a tenth of learning a site), and no method of theirs is used.
    parser = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
    root = etree.fromstring(text, parser=parser, base_url=base_url)
    if root is None:  # markup with no element at all
        root = etree.fromstring(b"<html><body></body></html>", parser=parser, base_url=base_url)
    return root


def iter_text(element: etree._Element) -> Iterator[str]:
    """Text nodes below ``element`` in document order, script, style and icons left out."""
    if not isinstance(element.tag, str) or element.tag in _SKIP_TAGS:
        return
    if element.text:
        yield element.text
    for child in element:
        if not is_icon(child):  # an icon font's ligature word ("chevron_right") draws a glyph
            yield from iter_text(child)
        if child.tail:
            yield child.tail


def element_text(element: etree._Element | None) -> str:
    """All text below ``element``, whitespace collapsed."""
    if element is None:
        return ""
    return _SPACE.sub(" ", " ".join(iter_text(element))).strip()


def full_text(element: etree._Element) -> str:
    """``element``'s text, or its ``title`` when the text is the title cut short with an
    ellipsis (a long board name in a trail shown as "General Discussion ...")."""
    text = element_text(element)
    whole = _SPACE.sub(" ", element.get("title") or "").strip()
    shown = text.rstrip(".… ").strip()
    if text != shown and shown and len(whole) > len(shown) and whole.startswith(shown):
        return whole
    return text


def link_text_len(element: etree._Element) -> int:
    return sum(len(element_text(a)) for a in element.iter("a"))


def class_tokens(element: etree._Element) -> list[str]:
    value = element.get("class") or ""
    return value.split()


def stable_classes(element: etree._Element) -> list[str]:
    """Class tokens that name what an element is (zebra, state and numbered tokens dropped)."""
    return [c for c in class_tokens(element) if not _NOISE.match(c) and len(c) < 40]


def shape(element: etree._Element) -> tuple[str, ...]:
    """Tag and stable classes: siblings of one kind share it. A table row also shows its cells
    (a header row of ``th`` is not a row of ``td``)."""
    own = (str(element.tag), *sorted(set(stable_classes(element))))
    if element.tag != "tr":
        return own
    cells = tuple(f"{c.tag}.{'.'.join(sorted(stable_classes(c)))}" for c in element
                  if isinstance(c.tag, str))
    return (*own, *cells)


def xpath_literal(value: str) -> str:
    if "'" not in value:
        return f"'{value}'"
    if '"' not in value:
        return f'"{value}"'
    parts = value.split("'")
    return "concat(" + ", \"'\", ".join(f"'{p}'" for p in parts) + ")"


def has_class_xpath(token: str) -> str:
    return (f"contains(concat(' ', normalize-space(@class), ' '), "
            f"{xpath_literal(' ' + token + ' ')})")


def tag_test(element: etree._Element) -> str:
    tag = element.tag
    return tag if isinstance(tag, str) and re.match(r"^[a-z][a-z0-9]*$", tag) else "*"


def is_inside(node: etree._Element, container: etree._Element) -> bool:
    return any(ancestor is container for ancestor in node.iterancestors()) or node is container


def first(nodes: object) -> etree._Element | None:
    if isinstance(nodes, list) and nodes and isinstance(nodes[0], etree._Element):
        return nodes[0]
    return None


def drop_tree(element: etree._Element) -> None:
    """Remove ``element`` and what it holds, keeping its tail text in place (as lxml.html's)."""
    parent = element.getparent()
    if parent is None:
        return
    if element.tail:
        previous = element.getprevious()
        if previous is None:
            parent.text = (parent.text or "") + element.tail
        else:
            previous.tail = (previous.tail or "") + element.tail
    parent.remove(element)


def inner_html(element: etree._Element) -> str:
    """The markup inside ``element`` (its own tag left out)."""
    parts = [_escape(element.text) if element.text else ""]
    for child in element:
        parts.append(etree.tostring(child, encoding="unicode", method="html", with_tail=True))
    return "".join(parts).strip()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def content_digest(author: str | None, text: str, date: str | None = None) -> str:
    """A post's id when the page gives none: its author, date and text (a repeated post on a
    later page has the same digest; two "+1" replies by one author at other times do not)."""
    data = f"{author or ''}\x1f{date or ''}\x1f{_SPACE.sub(' ', text).strip()[:2000]}".encode()
    return hashlib.sha1(data).hexdigest()[:16]
