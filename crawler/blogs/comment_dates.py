"""Dates of comment blocks: dates shown as text (no ``<time>``), a time alone under the day
said once, an age in several units ("2 years, 10 months ago"), and numeric dates in the
page's order (06/01/2024 is 6 January on a French page, June 1 on an American one)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from lxml import etree

from crawler.dates import normalize_date
from crawler.learn.dom import element_text
from crawler.learn.when import date_order, find_date

__all__ = ["date_of", "day_month_resolved", "inside", "text_dates"]

_CLOCK = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\b\.?)?", re.IGNORECASE)
#: A time of day alone ("at 12:37:00", "- 9:05 pm"): the day is the previous comment's.
_CLOCK_ONLY = re.compile(r"\W*(?:\w{1,3}\s+)?\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?\W*",
                         re.IGNORECASE)
_NUMERIC = re.compile(r"\b(\d{1,2})([-/.])(\d{1,2})\2(\d{4})\b")
#: Languages that write numeric dates month first; every other language writes the day first.
_MONTH_FIRST = ("en-us", "fil", "tl")


def day_month_resolved(
    comments: list[dict[str, Any]], root: etree._Element
) -> list[dict[str, Any]]:
    """Ambiguous numeric dates written year first, in the order the page's dates show (a day
    above 12 somewhere) or else its language states; bare ``en`` says neither and is left."""
    raws = [c["created_raw"] for c in comments if c.get("created_raw")]
    order = date_order(raws) or _language_order(root.get("lang") or "")
    if order not in ("DMY", "MDY"):
        return comments
    for comment in comments:
        comment["created_raw"] = _NUMERIC.sub(
            lambda m: _ymd(m, order), comment.get("created_raw") or ""
        )
    return comments


def _language_order(lang: str) -> str | None:
    lang = lang.strip().lower().replace("_", "-")
    if not lang or lang == "en":
        return None
    return "MDY" if lang.startswith(_MONTH_FIRST) else "DMY"


def _ymd(match: re.Match[str], order: str) -> str:
    first, second, year = int(match.group(1)), int(match.group(3)), match.group(4)
    month, day = (first, second) if order == "MDY" else (second, first)
    return f"{year}-{month:02d}-{day:02d}"


def text_dates(section: etree._Element) -> list[etree._Element]:
    """Innermost elements whose short text holds a date, for themes without ``<time>``; and
    where they show only a time ("at 12:37"), the day said once for the comments of one day,
    the elements in the same place (tag and class) as a whole date."""
    found = []
    for node in section.iter():
        if not isinstance(node.tag, str) or node.tag in ("script", "style", "form", "textarea"):
            continue
        text = element_text(node)
        if len(text) <= 120 and find_date(text):
            # document order: an ancestor comes first and gives way to its inner date
            found = [f for f in found if not inside(node, f)] + [node]
    places = {_place(f) for f in found}
    clocks = [n for n in section.iter() if isinstance(n.tag, str) and _place(n) in places
              and _CLOCK_ONLY.fullmatch(element_text(n))]
    chosen = {*found, *clocks}
    return [n for n in section.iter() if n in chosen] if found else found


def _place(node: etree._Element) -> tuple[str, str | None, str | None]:
    parent = node.getparent()
    return str(node.tag), node.get("class"), parent.get("class") if parent is not None else None


def date_of(date: etree._Element, day: str | None = None) -> str | None:
    """The date *date* shows; a time alone is on *day* (a date shown earlier)."""
    shown = date.get("datetime") or _whole_date(date) or find_date(element_text(date))
    if shown or not day:
        return shown
    clock = _CLOCK.search(element_text(date))
    return f"{_CLOCK.sub('', day).strip()} {clock.group(0)}" if clock else None


def _whole_date(date: etree._Element) -> str | None:
    """The text of an element that shows only a date, where it is longer than the date found
    in it ("2 years, 10 months ago": an age in several units)."""
    text, found = element_text(date), find_date(element_text(date)) or ""
    if (len(date) or len(text) > 40 or not found or text == found or not text.endswith(found)
            or not normalize_date(text, base=datetime.now(UTC))):
        return None
    return text


def inside(node: etree._Element, container: etree._Element) -> bool:
    return any(a is container for a in node.iterancestors())
