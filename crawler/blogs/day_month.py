"""The order a blog writes numeric dates in, learned from every page of the site.

A comment dated ``06/01/2024`` on a page whose numbers are all 12 or less, under ``lang=en``,
reads either way; another post's comment ``20/01/2024`` says the site writes the day first.
:class:`SiteDayMonth` keeps the comments whose numeric date is still ambiguous until a page of
the site settles the order (a first number above 12, a second above 12), then gives them in it;
they wait in their page's callback (a :class:`~crawler.blogs.waits.Later`), and those still
waiting when the wait ends keep their date as shown (the pipeline reads it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from scrapy.http import TextResponse

from crawler.blogs.waits import Later
from crawler.items import Comment
from crawler.learn.when import date_order

__all__ = ["SiteDayMonth"]

_NUMERIC = re.compile(r"\b(\d{1,2})([-/.])(\d{1,2})\2(\d{4})\b")


class SiteDayMonth:
    def __init__(self) -> None:
        self.order: str | None = None

    def learn(self, page: TextResponse) -> None:
        """The order the numeric dates a page shows settle, if any."""
        if self.order is None:
            shown = " ".join(page.xpath("//body//text()[not(ancestor::script or "
                                        "ancestor::style)]").getall())
            self.order = date_order([m.group(0) for m in _NUMERIC.finditer(shown)])

    def comments(self, comments: list[dict[str, Any]],
                 crawled_at: str) -> Iterator[Comment | Later]:
        """Comment items of *comments*, numeric dates in the site's order; those whose order is
        still unknown come in a :class:`Later` (ready once a page tells the order)."""
        waiting = []
        for comment in comments:
            match = _NUMERIC.search(comment.get("created_raw") or "")
            if match and _ambiguous(match) and self.order is None:
                waiting.append(comment)
            else:
                yield self._comment(comment, crawled_at)
        if waiting:
            yield Later(lambda: self.order is not None,
                        lambda: [self._comment(c, crawled_at) for c in waiting], self._untold)

    def _untold(self) -> None:
        """The site did not tell within the wait: numeric dates stay as shown from now on."""
        self.order = "shown"

    def _comment(self, comment: dict[str, Any], crawled_at: str) -> Comment:
        """The comment, its numeric date in the site's order (as shown while it is unknown)."""
        raw = comment.get("created_raw") or ""
        if self.order in ("DMY", "MDY") and _NUMERIC.search(raw):
            comment = {**comment, "created_raw": _NUMERIC.sub(self._ymd, raw)}
        return Comment(crawled_at=crawled_at, **comment)

    def _ymd(self, match: re.Match[str]) -> str:
        first, second, year = int(match.group(1)), int(match.group(3)), match.group(4)
        month, day = (first, second) if self.order == "MDY" else (second, first)
        return f"{year}-{month:02d}-{day:02d}"


def _ambiguous(match: re.Match[str]) -> bool:
    first, second = int(match.group(1)), int(match.group(3))
    return first <= 12 and second <= 12 and first != second
