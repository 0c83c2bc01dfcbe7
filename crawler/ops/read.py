"""``python -m crawler read FILE|URL``: the posts the page-level floor reads from one page.

No site template and no crawl: the page alone (:func:`crawler.learn.floor.read_page`), so a
person can check on any page what the generic reader finds there. One line per post (position,
author, date, first words), then the count.
"""

from __future__ import annotations

import sys
import urllib.request
from pathlib import Path
from typing import TextIO

from crawler.learn.dom import parse
from crawler.learn.floor import read_page

__all__ = ["main", "page_text"]

#: Characters of a post's text shown.
WORDS = 60
#: Bytes read from a URL at most (a page, not a download).
MAX_BYTES = 20_000_000


def page_text(source: str, timeout: float = 20.0) -> tuple[bytes, str]:
    """The page's bytes and the URL it is read under (a file's ``file://`` URL)."""
    if source.startswith(("http://", "https://")):
        request = urllib.request.Request(source, headers={"User-Agent": "forum-crawler read"})
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (http only)
            return response.read(MAX_BYTES), response.geturl()
    path = Path(source)
    return path.read_bytes(), path.resolve().as_uri()


def main(source: str, out: TextIO = sys.stdout) -> int:
    try:
        body, url = page_text(source)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        print(f"error: cannot read {source}: {reason}", file=sys.stderr)
        return 2
    posts = read_page(parse(body, url), url)
    for post in posts:
        text = " ".join((post["body_text"] or "").split())
        words = text if len(text) <= WORDS else text[:WORDS].rsplit(" ", 1)[0] + " ..."
        author, date = post["author_name"] or "-", post["created_raw"] or "-"
        print(f"{post['position']:>3}  {author}  {date}  {words}", file=out)
    print(f"{len(posts)} posts", file=out)
    return 0 if posts else 1
