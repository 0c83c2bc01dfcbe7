"""Extraction for blogs without a dedicated reader (Hugo, Hexo, Jekyll, Ghost, Typecho…).

Discovery links come from RSS/Atom feeds, sitemaps and listing pages; article pages are
recognised from their metadata (``og:type=article``, ``article:published_time``, JSON-LD
``BlogPosting``/``Article``) and their body is taken by trafilatura's main-content extraction.
Metadata prefers what the page declares (Open Graph, JSON-LD, ``time[datetime]``) over
trafilatura's guesses, which only keep the day of a date.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any
from urllib.parse import urlsplit

import trafilatura
from scrapy.http import TextResponse
from w3lib.url import canonicalize_url

from crawler.profiles._utils import first_css, join_text

logger = logging.getLogger(__name__)

__all__ = ["ARTICLE_TYPES", "BlogPage"]

ARTICLE_TYPES = {"Article", "BlogPosting", "NewsArticle", "TechArticle", "Report"}
_NOT_ARTICLE = re.compile(
    r"/(?:tags?|categor(?:y|ies)|authors?|page|feed|search|archives?|wp-(?:admin|login|json|content|includes)|login|"
    r"comments?|label|topics?)(?:/|$)|\.(?:xml|css|js|png|jpe?g|gif|svg|ico|zip|pdf|json)$",
    re.IGNORECASE,
)


class BlogPage:
    """Reads one blog page; every method is a pure function of the response."""

    def __init__(self, response: TextResponse) -> None:
        self.response = response
        self._ld: list[dict[str, Any]] | None = None

    # -- discovery -----------------------------------------------------------------------------
    def feeds(self) -> list[str]:
        hrefs = self.response.css(
            'link[rel="alternate"][type="application/rss+xml"]::attr(href), '
            'link[rel="alternate"][type="application/atom+xml"]::attr(href)'
        ).getall()
        # Comment feeds list comments, not articles.
        return [self.response.urljoin(h) for h in hrefs if "comment" not in h.lower()]

    def next_page(self) -> str | None:
        href = first_css(
            self.response,
            'link[rel="next"]::attr(href)',
            'a[rel="next"]::attr(href)',
            "a.next::attr(href)",
            ".pagination a.next::attr(href)",
            ".nav-previous a::attr(href)",
        )
        return self.response.urljoin(href) if href else None

    def article_links(self) -> list[str]:
        """Same-site links that look like article permalinks (not tags, pages, feeds…)."""
        host = urlsplit(self.response.url).netloc
        here = canonicalize_url(self.response.url)
        links = []
        for href in (
            self.response.css("main a[href], article a[href], #content a[href], body a[href]")
            .xpath("@href")
            .getall()
        ):
            url = canonicalize_url(self.response.urljoin(href))
            parts = urlsplit(url)
            if (
                parts.netloc != host
                or url == here
                or parts.path in ("", "/")
                or _NOT_ARTICLE.search(parts.path)
            ):
                continue
            links.append(url)
        return list(dict.fromkeys(links))

    # -- article -------------------------------------------------------------------------------
    def platform(self) -> str:
        generator = self.response.css('meta[name="generator"]::attr(content)').get("")
        word = re.match(r"[A-Za-z][A-Za-z-]*", generator.strip())
        return word.group(0).lower() if word else "generic"

    def is_article(self) -> bool:
        og_type = self.response.css('meta[property="og:type"]::attr(content)').get("")
        if og_type.lower() == "article" or self.response.css('meta[property="article:published_time"]'):
            return True
        if any(_types(item) & ARTICLE_TYPES for item in self.json_ld()):
            return True
        # One main <article> with a date: comment lists and widgets also use <article>, skip them.
        main = self.response.xpath(
            "//article[not(ancestor::article)][not(ancestor::*[contains(@class, 'comment')])]"
        )
        if len(main) != 1 or not main.css("time[datetime]"):
            return False
        # A listing page with a single entry looks the same, except that the entry's heading
        # links to the entry's own page.
        here = canonicalize_url(self.response.url)
        heading_links = main.css("h1 a::attr(href), h2 a::attr(href)").getall()
        return not any(canonicalize_url(self.response.urljoin(h)) != here for h in heading_links)

    def article(self) -> dict[str, Any]:
        response = self.response
        html = response.text
        meta = trafilatura.bare_extraction(html, url=response.url, with_metadata=True, include_comments=False)
        meta_dict = meta.as_dict() if meta is not None and hasattr(meta, "as_dict") else (meta or {})
        # favor_precision: on short posts the default (recall) mode falls back to a baseline
        # that swallows breadcrumbs and bylines into the body.
        body = trafilatura.extract(
            html,
            url=response.url,
            output_format="html",
            include_comments=False,
            include_formatting=True,
            favor_precision=True,
        )
        ld = next((item for item in self.json_ld() if _types(item) & ARTICLE_TYPES), {})
        canonical = response.css('link[rel="canonical"]::attr(href)').get()
        return {
            "url": canonicalize_url(response.urljoin(canonical or response.url)),
            "title": first_css(response, 'meta[property="og:title"]::attr(content)')
            or ld.get("headline")
            or meta_dict.get("title")
            or join_text(response.css("h1")[:1]),
            "author": _author(ld)
            or first_css(response, 'meta[name="author"]::attr(content)')
            or meta_dict.get("author"),
            "published_raw": first_css(response, 'meta[property="article:published_time"]::attr(content)')
            or ld.get("datePublished")
            or first_css(response, "article time[datetime]::attr(datetime)")
            or meta_dict.get("date"),
            "updated_raw": first_css(response, 'meta[property="article:modified_time"]::attr(content)')
            or ld.get("dateModified"),
            "tags": response.css('meta[property="article:tag"]::attr(content)').getall()
            or _list(meta_dict.get("tags")),
            "categories": response.css('meta[property="article:section"]::attr(content)').getall()
            or _list(meta_dict.get("categories")),
            "body_html": _inner_body(body),
        }

    def json_ld(self) -> list[dict[str, Any]]:
        if self._ld is None:
            self._ld = []
            for script in self.response.css('script[type="application/ld+json"]::text').getall():
                try:
                    data = json.loads(script)
                except ValueError:
                    continue
                for item in data if isinstance(data, list) else [data]:
                    if isinstance(item, dict):
                        self._ld.append(item)
                        self._ld.extend(i for i in item.get("@graph") or [] if isinstance(i, dict))
        return self._ld


def _types(item: dict[str, Any]) -> set[str]:
    value = item.get("@type")
    return set(value if isinstance(value, list) else [value]) - {None}


def _author(ld: dict[str, Any]) -> str | None:
    author = ld.get("author")
    if isinstance(author, list):
        author = author[0] if author else None
    if isinstance(author, dict):
        return author.get("name")
    return author if isinstance(author, str) else None


def _list(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def _inner_body(html: str | None) -> str | None:
    if not html:
        return None
    match = re.search(r"<body>(.*)</body>", html, re.DOTALL)
    inner = (match.group(1) if match else html).strip()
    return inner or None
