"""Crawl-trap rules applied to every discovered URL before it is queued.

Endless calendars and ``?page=N`` are bounded by the per-host budget
(:setting:`CRAWLER_HOST_PAGE_LIMIT`) and the depth limit; these rules catch the
shapes that give themselves away in the URL alone.
"""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import ParseResult, SplitResult, parse_qsl, urlsplit

from w3lib.url import url_query_cleaner

# Session parameters that make one page look like endlessly many (phpBB sid, PHP,
# Java, vBulletin's s=<32 hex>); dropped before fingerprinting.
SESSION_PARAMS = ("sid", "phpsessid", "jsessionid", "sessionid", "session_id", "sessid")
_VB_SESSION = re.compile(r"(?:^|[?&;])s=[0-9a-f]{32}(?=$|[&;#])", re.IGNORECASE)
_PATH_SESSION = re.compile(r";jsessionid=[^/?#]*", re.IGNORECASE)


def strip_session_ids(url: str) -> str:
    """*url* without session ids, or *url* itself when it has none."""
    lowered = url.lower()
    if not any(p + "=" in lowered for p in SESSION_PARAMS) and not _VB_SESSION.search(url):
        return url
    query_names = {name for name, _ in parse_qsl(urlsplit(url).query, keep_blank_values=True)}
    drop = [n for n in query_names if n.lower() in SESSION_PARAMS]
    if _VB_SESSION.search(url):
        drop.append("s")
    cleaned = url_query_cleaner(url, drop, remove=True, keep_fragments=True) if drop else url
    return _PATH_SESSION.sub("", cleaned)


def strip_userinfo(url: str) -> str:
    """*url* without its userinfo (``http://user:pw@host/x`` is ``http://host/x``: the same page
    of the same host, which Scrapy's download handler refuses as 'invalid hostname'), or
    *url* itself when it has none."""
    if "@" not in url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


class TrapRules:
    """Each rule returns its reason (a stats key suffix) or None."""

    def __init__(self, max_url_length: int, max_repeated_segment: int, max_query_params: int):
        self.max_url_length = max_url_length
        self.max_repeated_segment = max_repeated_segment
        self.max_query_params = max_query_params

    def reason(self, url: str, parts: SplitResult | ParseResult | None = None) -> str | None:
        """Why *url* looks like a trap, if it does; *parts*: its parse, if already made
        (the scheduler passes Scrapy's cached one: a parse per link costs)."""
        # cheap counts first: the exact ones (Counter, parse_qsl) only for suspects
        if self.max_url_length and len(url) > self.max_url_length:
            return "url_length"
        parts = parts or urlsplit(url)
        segments = [s for s in parts.path.split("/") if s]
        if self.max_repeated_segment and len(segments) > len(set(segments)) and \
                max(Counter(segments).values()) > self.max_repeated_segment:
            return "repeated_path_segment"
        query = parts.query
        if self.max_query_params and query.count("&") + query.count(";") >= self.max_query_params \
                and len(parse_qsl(query, keep_blank_values=True)) > self.max_query_params:
            return "query_params"
        return None
