"""Which number of a URL slot names the thread when the slot also holds a title's numbers.

A slug URL carries the thread's id beside numbers of its title: ``/14-thread-12-dates``,
``/123-title-with-2024-in-it``, ``/threads/top-10-tips.123/``. The id sits in a fixed place of
the segment, its start or its end, in every thread's URL; a title's numbers come and go with
the title (``/124-another-title`` has none). So a place is read the same way in each URL: the
number opening the segment, the one closing it, or (when the counts agree) the n-th; a place
that holds a number in every URL and takes the most values is the id's. Between places that
tie (one thread's pages), a number that opens the segment before a word is the id: the title
follows it.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["id_like", "is_titled", "leads_title", "number_at"]

#: A slot that opens with a number, or closes with one (an extension after it: ``.html``).
_OPENS = re.compile(r"\d")
_CLOSES = re.compile(r"\d(?:\.[A-Za-z]{2,5})?$")
#: A number opening the segment, then a separator and a letter: the title follows the id.
_LEADING = re.compile(r"\d+[-_.][^\W\d_]")
#: Words and numbers joined by dashes or underscores, no file extension: a title's slug.
_TITLED = re.compile(r"(?=.*[^\W\d_]{3})(?=.*\d)[\w%-]*[-_][\w%-]*")


def number_at(other: Any, index: int, first: Any) -> str | None:
    """The number of slot ``other`` (one URL's) in the place number ``index`` of slot ``first``
    (the first URL's) has: opening the slot, closing it (before an extension), else the same
    index when the counts agree. Slots are :class:`crawler.learn.urls.Slot`."""
    numbers, count = other.numbers, len(first.numbers)
    if not numbers:
        return None
    if index == 0 and _OPENS.match(first.text):
        return numbers[0] if _OPENS.match(other.text) else None
    if index == count - 1 and _CLOSES.search(first.text):
        return numbers[-1] if _CLOSES.search(other.text) else None
    return numbers[index] if len(numbers) == count else None


def leads_title(text: str, index: int) -> bool:
    """Whether number ``index`` of the slot ``text`` opens it, before a word (``14-thread-12``)."""
    return index == 0 and bool(_LEADING.match(text))


def id_like(number: str) -> bool:
    """Not a first page's offset (0 or 1, SMF's ``topic=13.0``) nor a title's zero-padded
    number (``thread-01``): ids are written without leading zeros."""
    return number not in ("0", "1") and not number.startswith("0")


def is_titled(segment: str) -> bool:
    """Whether a path segment before the id is a title's slug with a number in it
    (``title-2``, ``top-10-tips``): other threads' segments there differ, so any text fits."""
    return bool(_TITLED.fullmatch(segment))
