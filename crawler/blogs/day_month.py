"""The order a blog writes numeric dates in, learned from every page of the site.

A comment dated ``06/01/2024`` on a page whose numbers are all 12 or less, under ``lang=en``,
reads either way; another post's comment ``20/01/2024`` says the site writes the day first.
:class:`SiteDayMonth` keeps the comments whose numeric date is still ambiguous until a page of
the site settles the order (a first number above 12, a second above 12), then gives them in it;
those still waiting when the crawl ends keep their date as shown (the pipeline reads it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from scrapy.http import TextResponse

from crawler.items import Comment
from crawler.learn.when import date_order

__all__ = ["SiteDayMonth"]

_NUMERIC = re.compile(r"\b(\d{1,2})([-/.])(\d{1,2})\2(\d{4})\b")


class SiteDayMonth:
    def __init__(self) -> None:
        self.order: str | None = None
        #: Comments (with their fetch time) whose day and month are not told apart yet.
        self.held: list[tuple[dict[str, Any], str]] = []

    def learn(self, page: TextResponse) -> Iterator[Comment]:
        """The order the numeric dates a page shows settle, if any; the comments it frees."""
        if self.order is None:
            shown = " ".join(page.xpath("//body//text()[not(ancestor::script or "
                                        "ancestor::style)]").getall())
            self.order = date_order([m.group(0) for m in _NUMERIC.finditer(shown)])
            if self.order is not None:
                held, self.held = self.held, []
                for comment, crawled_at in held:
                    yield from self.comments([comment], crawled_at)

    def comments(self, comments: list[dict[str, Any]], crawled_at: str) -> Iterator[Comment]:
        """Comment items of *comments*, numeric dates in the site's order; those whose order is
        still unknown wait (:meth:`release` gives them at the end)."""
        for comment in comments:
            raw = comment.get("created_raw") or ""
            match = _NUMERIC.search(raw)
            if match and _ambiguous(match) and self.order is None:
                self.held.append((comment, crawled_at))
                continue
            if match and self.order in ("DMY", "MDY"):
                comment = {**comment, "created_raw": _NUMERIC.sub(self._ymd, raw)}
            yield Comment(crawled_at=crawled_at, **comment)

    def release(self) -> Iterator[Comment]:
        """The comments still waiting: the site never told; they keep their date as shown."""
        held, self.held = self.held, []
        for comment, crawled_at in held:
            yield Comment(crawled_at=crawled_at, **comment)

    def _ymd(self, match: re.Match[str]) -> str:
        first, second, year = int(match.group(1)), int(match.group(3)), match.group(4)
        month, day = (first, second) if self.order == "MDY" else (second, first)
        return f"{year}-{month:02d}-{day:02d}"


def _ambiguous(match: re.Match[str]) -> bool:
    first, second = int(match.group(1)), int(match.group(3))
    return first <= 12 and second <= 12 and first != second
