"""Detection by the engine's markup: the ids and classes every captured page of the engine
carries (its page chrome) and no page of another engine's fixture site does.

A generator ``<meta>`` is the strongest fingerprint; when the engine prints one, its product
word is used. Otherwise up to :data:`MOST` selectors such as ``div#brd-wrap`` are chosen, and a
page must match all but one of them (at least one). They are taken around the posts: from the
smallest element holding a thread page's post records, else its parent, and so on up, the first
that holds :data:`MOST` selectors every thread page has. A forum that is a plugin of a site
platform (a forum inside WordPress) shares the page's head and theme with every page of the
platform; its own markup is the part around the posts. Among those, the ones on the most
captured pages (the listings' too) come first, ids before classes, first in the page first;
and the generator is left out, as it may name the platform the forum runs in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lxml import etree
from parsel import Selector

__all__ = ["Fingerprint", "fingerprint"]

MOST = 3
#: Ids and classes with a number in them name one post or one board, not the engine.
_NUMBERED = re.compile(r"\d")


class Fingerprint:
    """What a generated profile detects its engine by."""

    def __init__(self, generator: tuple[str, ...], markers: tuple[str, ...]) -> None:
        self.generator = generator
        self.markers = markers
        self.min_markers = max(1, len(markers) - 1)

    def matches(self, page: Selector) -> bool:
        meta = page.css('meta[name="generator"]::attr(content)').get("")
        if meta and any(meta.startswith(p) for p in self.generator):
            return True
        hits = sum(1 for marker in self.markers if page.css(marker))
        return bool(self.markers) and hits >= self.min_markers


def _selectors(page: Selector) -> dict[str, None]:
    """Ids and classes of ``page`` in document order (the page chrome comes first)."""
    found: dict[str, None] = {}
    for node in page.xpath("descendant-or-self::*[@id or @class]"):
        tag = node.root.tag
        if not isinstance(tag, str):
            continue
        ident = node.attrib.get("id", "")
        if ident and not _NUMBERED.search(ident) and re.fullmatch(r"[\w-]+", ident):
            found[f"{tag}#{ident}"] = None
        for name in node.attrib.get("class", "").split():
            if not _NUMBERED.search(name) and re.fullmatch(r"[A-Za-z][\w-]+", name):
                found[f"{tag}.{name}"] = None
    return found


def _generator(pages: list[Selector]) -> tuple[str, ...]:
    metas = {p.css('meta[name="generator"]::attr(content)').get("") for p in pages}
    if len(metas) != 1 or not (meta := metas.pop()):
        return ()
    word = meta.split()[0]
    return (word,) if len(word) > 2 else ()


def fingerprint(pages: Iterable[str], others: Iterable[str], record: str | None = None
                ) -> Fingerprint:
    """The fingerprint shared by ``pages`` (HTML of the engine) that none of ``others`` (HTML of
    other engines' pages) has; taken around the posts when ``record`` (the XPath of a post)
    finds them."""
    # as HTML, as the crawler reads them (parsel takes a text opening with <?xml for XML)
    mine = [Selector(text=text, type="html") for text in pages]
    rest = [Selector(text=text, type="html") for text in others]
    generator = _generator(mine)
    if generator and any(Fingerprint(generator, ()).matches(p) for p in rest):
        generator = ()
    threads = [p for p in mine if record and p.xpath(record)]
    if threads and (around := _around_posts(threads, mine, rest, record or "")):
        return Fingerprint((), around)  # a generator may name the platform (WordPress)
    order = list(_selectors(mine[0])) if mine else []
    common = set(order).intersection(*(_selectors(p) for p in mine[1:]))
    common = _absent(common, rest)
    ranked = sorted(common, key=lambda c: ("#" not in c, order.index(c)))
    return Fingerprint(generator, tuple(sorted(ranked[:MOST])))


def _absent(common: set[str], rest: list[Selector]) -> set[str]:
    for page in rest:
        if not common:
            break
        common -= {c for c in common if page.css(c)}
    return common


def _around_posts(threads: list[Selector], mine: list[Selector], rest: list[Selector],
                  record: str) -> tuple[str, ...]:
    """Selectors of the smallest element around the first thread page's posts (climbing from
    the records' common ancestor) that every thread page has and no other engine's page."""
    shared = set(_selectors(threads[0])).intersection(*(_selectors(p) for p in threads[1:]))
    area: etree._Element | None = _common_ancestor([n.root for n in threads[0].xpath(record)])
    found: set[str] = set()
    while area is not None and isinstance(area.tag, str):
        inside = Selector(root=area)
        found = _absent(set(_selectors(inside)) & shared, rest)
        if len(found) >= MOST or area.tag == "body":
            break
        area = area.getparent()
    order = list(_selectors(threads[0]))
    ranked = sorted(found, key=lambda c: (-sum(1 for p in mine if p.css(c)), "#" not in c,
                                          order.index(c)))
    return tuple(sorted(ranked[:MOST]))


def _common_ancestor(nodes: list[etree._Element]) -> etree._Element:
    """The deepest element holding every one of ``nodes`` (lxml elements)."""
    chain = list(nodes[0].iterancestors())[::-1] + [nodes[0]]
    for node in nodes[1:]:
        mine = {id(a) for a in node.iterancestors()} | {id(node)}
        chain = [a for a in chain if id(a) in mine]
    return chain[-1]
