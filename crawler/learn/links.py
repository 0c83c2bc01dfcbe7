"""Same-site links worth following on a forum whose URL scheme is not known yet.

Left out: other hosts, fragments of the page itself, assets, feeds, and actions a reader does
not need (login, search, member pages, reply and report forms, post permalinks that show a
page again, print views, "newest post" redirects). Session parameters are dropped
(:func:`~crawler.learn.urls.clean_url`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import urljoin, urlsplit

from lxml import etree

from crawler.learn.urls import clean_url

__all__ = ["follow_links", "id_hint"]

_DENY = re.compile(
    r"login|logout|register|signup|sign_up|lostpw|password|search|memberlist|member\.php|profile|/users?/|"
    r"/u/|uid=|[?&;]u=|space|misc\.php|help|faq|rules|calendar|stats|who(?:is)?online|online\.php|"
    r"action=(?!forum)|do=|mode=|goto=|findpost|findcomment|showpost|lastpost|newpost|[?&;]pid=|replytocom|"
    r"newtopic|newthread|newreply|posting\.php|post\.php|reply|edit|delete|report|print|archive|mobile=|"
    r"rss|feed|syndication|\.xml|ucp\.php|mcp\.php|/post/\d|/posts/\d|authorid=|ordertype=|[?&;]sort\w*=|order=|"
    r"\.(?:css|js|png|jpe?g|gif|svg|ico|zip|pdf|webp|mp4|rar|7z)(?:$|\?)|/api/|/assets/|/static/|/uploads?/",
    re.IGNORECASE,
)


def _denied(path: str, query: str) -> bool:
    """Deny words in the query or in short path segments (a long slug may say "search")."""
    short = [s for s in path.split("/") if len(s) <= 24]
    return bool(_DENY.search("/" + "/".join(short) + ("/" if path.endswith("/") else "") + "?" + query))


def follow_links(root: etree._Element, url: str) -> list[str]:
    host = urlsplit(url).netloc
    here = clean_url(url)
    found: dict[str, None] = {}
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "mailto:", "tel:")) or a.get("rel") == "nofollow":
            continue
        absolute = urljoin(url, href)
        parts = urlsplit(absolute)
        if parts.netloc != host or parts.scheme not in ("http", "https"):
            continue
        if _denied(parts.path, parts.query):
            continue
        cleaned = clean_url(absolute)
        if cleaned != here:
            found.setdefault(cleaned, None)
    return list(found)


def id_hint(regex: str | None, group: str) -> str | None:
    """The literal text just before an id in a URL regex (``tid=``, ``topic/``): a link without
    it cannot match, so most links are skipped before any URL parsing."""
    if not regex:
        return None
    head = regex.split(f"(?P<{group}>", 1)[0]
    match = re.search(r"((?:[A-Za-z0-9_-]|\\[./-])+[=/-]?)$", head.replace("\\=", "="))
    return match.group(1).replace("\\", "") if match else None


@lru_cache(maxsize=64)
def _hint_pattern(hints: tuple[str, ...]) -> re.Pattern[str]:
    # "t=" must not match "start=": a hint starts the href or follows a separator.
    return re.compile("|".join(f"(?:^|[^A-Za-z0-9_]){re.escape(h)}" for h in hints) or "(?!)")


def hinted_links(root: etree._Element, url: str, hints: tuple[str, ...]) -> list[str]:
    """:func:`follow_links` for the links whose href holds one of ``hints``."""
    host = urlsplit(url).netloc
    found: dict[str, None] = {}
    pattern = _hint_pattern(hints)
    seen: set[str] = set()
    for a in root.iter("a"):
        href = a.get("href") or ""
        if href in seen or not pattern.search(href) or href.startswith(("#", "javascript:")):
            continue
        seen.add(href)
        absolute = urljoin(url, href)
        parts = urlsplit(absolute)
        if parts.netloc == host and not _denied(parts.path, parts.query):
            found.setdefault(clean_url(absolute), None)
    return list(found)
