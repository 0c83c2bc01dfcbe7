"""Icon elements: drawn glyphs, not text, so not part of a name, a title or a breadcrumb.

An icon font draws a glyph from an element's class (Font Awesome ``<i class="fa fa-home">``)
or from a ligature word it holds (Material Icons ``<span class="material-icons">label</span>``:
the word is rendered as one glyph). Read as text, the word sticks to the name beside it
("label General Discussion"). An element is an icon by what it is, never by its words: a leaf with a
class of a ligature icon font holding one word, a leaf with a class of any icon font or
``aria-hidden="true"`` (decoration hidden from screen readers) holding no letter or digit (a
glyph, an arrow), or an icon tag (``<svg>``, ``<mat-icon>``...). A leaf with an icon class and
a word of its own ("Reply" beside a sprite) is a label: kept.
"""

from __future__ import annotations

import re

from lxml import etree

__all__ = ["is_icon"]

#: Class tokens of the icon fonts that draw a glyph from a ligature word: Material Icons and
#: Material Symbols (``material-icons-outlined``, Misago's ``material-icon``).
_LIGATURE_CLASS = re.compile(r"(?:^|\s)material-(?:icons?|symbols)[\w-]*(?=\s|$)")
#: Class tokens of other icon fonts: Font Awesome, Glyphicons, Bootstrap Icons, Material Design
#: Icons, Octicons, Ionicons, Line Awesome, Boxicons, Remix, Fontello and IcoMoon's ``icon-*``.
_ICON_CLASS = re.compile(
    r"(?:^|\s)(?:fa[srlbdk]?|fa-[\w-]+|glyphicon[\w-]*|bi|bi-[\w-]+|mdi|mdi-[\w-]+|"
    r"octicon[\w-]*|ion|ion-[\w-]+|ionicons|la[srb]?|la-[\w-]+|bx|bxs?-[\w-]+|ri-[\w-]+|"
    r"icon|icon-[\w-]+)(?=\s|$)"
)
#: Text with a letter or a digit: a word, not a glyph.
_WORDY = re.compile(r"[^\W_]")
#: Elements that only draw: vector images and the icon components of UI kits.
_ICON_TAGS = frozenset({"svg", "mat-icon", "ion-icon", "iconify-icon"})


def is_icon(element: etree._Element) -> bool:
    """Whether ``element`` draws an icon: its text is no part of the text around it."""
    if element.tag in _ICON_TAGS:
        return True
    if len(element) or not isinstance(element.tag, str):
        return False
    classes = element.get("class")
    hidden = element.get("aria-hidden") == "true"
    if not classes and not hidden:
        return False  # most elements: cheap to tell
    text = element.text or ""
    if classes and _LIGATURE_CLASS.search(classes):
        return len(text.split()) <= 1  # the ligature word ("chevron_right") is the glyph
    return (hidden or bool(_ICON_CLASS.search(classes or ""))) and not _WORDY.search(text)
