"""Detection by the engine's markup: the ids and classes every captured page of the engine
carries (its page chrome) and no page of another engine's fixture site does.

A generator ``<meta>`` is the strongest fingerprint; when the engine prints one, its product
word is used. Otherwise up to :data:`MOST` selectors such as ``div#brd-wrap`` are chosen, ids
before classes, first in the page first (its chrome), and a page must match all but one of
them (at least one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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
    for node in page.xpath("//*[@id or @class]"):
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


def fingerprint(pages: Iterable[str], others: Iterable[str]) -> Fingerprint:
    """The fingerprint shared by ``pages`` (HTML of the engine) that none of ``others`` (HTML of
    other engines' pages) has."""
    mine = [Selector(text=text) for text in pages]
    order = list(_selectors(mine[0])) if mine else []
    common = set(order).intersection(*(_selectors(p) for p in mine[1:]))
    rest = [Selector(text=text) for text in others]
    generator = _generator(mine)
    if generator and any(Fingerprint(generator, ()).matches(p) for p in rest):
        generator = ()
    for page in rest:
        if not common:
            break
        common -= {c for c in common if page.css(c)}
    ranked = sorted(common, key=lambda c: ("#" not in c, order.index(c)))
    return Fingerprint(generator, tuple(sorted(ranked[:MOST])))
