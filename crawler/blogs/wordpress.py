"""WordPress: the REST API (``/wp-json/wp/v2``) first, theme HTML and feeds as fallback.

Pure extraction over responses and API objects; the crawl order lives in
:class:`crawler.spiders.wordpress.WordPressSpider`.

* Detection: ``meta[name=generator]`` starting with "WordPress", the ``link[rel="https://api.w.org/"]``
  API discovery link, or ``/wp-content/`` assets.
* API: ``posts?per_page=N&page=P&_embed=author,wp:term`` (``X-WP-TotalPages`` header), and
  ``comments?post=ID&per_page=N&page=P``; dates from ``date_gmt`` (naive UTC in the API). Post
  objects carry no comment count: it is the comments collection's ``X-WP-Total`` header.
  Sites without pretty permalinks expose the API as ``/?rest_route=/``; both forms are handled.
* HTML (themes following the core markup, e.g. Twenty Twenty-One): ``article.hentry``,
  ``.entry-title``, ``time.entry-date[datetime]``, ``.entry-content``, ``ol.comment-list``
  (threaded through ``ol.children``; the "Recent Comments" widget is a different list and is
  ignored), ``/comment-page-N/`` comment pages and ``<!--nextpage-->`` parts (``.page-links``).
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any
from urllib.parse import urlencode, urljoin

from parsel import Selector
from scrapy.http import Response, TextResponse
from w3lib.html import remove_tags
from w3lib.url import canonicalize_url

from crawler.profiles._utils import first_css, join_text, to_int

__all__ = ["WordPress"]

_COMMENT_ID = re.compile(r"comment-(\d+)")


class WordPress:
    name = "wordpress"
    #: Comment and post listing page size for API requests (the API maximum is 100).
    per_page = 100

    generator_prefixes = ("WordPress",)

    # -- detection -----------------------------------------------------------------------------
    @classmethod
    def detect(cls, response: Response) -> bool:
        if not isinstance(response, TextResponse):
            return False
        generator = response.css('meta[name="generator"]::attr(content)').get("")
        if generator.startswith(cls.generator_prefixes):
            return True
        return (
            bool(response.css('link[rel="https://api.w.org/"]'))
            or "/wp-content/" in response.text[:20000]
        )

    @staticmethod
    def api_root(response: TextResponse) -> str | None:
        href = response.css('link[rel="https://api.w.org/"]::attr(href)').get()
        return response.urljoin(href) if href else None

    # -- API URLs ------------------------------------------------------------------------------
    @staticmethod
    def api_url(root: str, route: str, params: dict[str, Any]) -> str:
        """``root`` + ``wp/v2/<route>`` with ``params``, for both API root forms."""
        if "rest_route=" in root:
            base, _, rest_route = root.partition("rest_route=")
            return base + urlencode(
                {"rest_route": rest_route.rstrip("/") + "/wp/v2/" + route, **params}
            )
        return (
            urljoin(root if root.endswith("/") else root + "/", f"wp/v2/{route}")
            + "?"
            + urlencode(params)
        )

    def posts_url(self, root: str, page: int) -> str:
        return self.api_url(
            root, "posts", {"per_page": self.per_page, "page": page, "_embed": "author,wp:term"}
        )

    def comments_url(self, root: str, post_id: int | str, page: int) -> str:
        return self.api_url(
            root, "comments", {"post": post_id, "per_page": self.per_page, "page": page}
        )

    @staticmethod
    def total_pages(response: Response) -> int:
        return to_int(response.headers.get(b"X-WP-TotalPages", b"1").decode("latin-1")) or 1

    @classmethod
    def total_items(cls, response: Response, on_page: int) -> int | None:
        """Items in a whole collection: ``X-WP-Total``; without the header (proxies may drop
        it) the items on this page if it is the only one, else ``None``."""
        total = to_int(response.headers.get(b"X-WP-Total", b"").decode("latin-1"))
        if total is not None:
            return total
        return on_page if cls.total_pages(response) == 1 else None

    # -- API objects -> item fields ----------------------------------------------------------
    @staticmethod
    def article_from_api(post: dict[str, Any]) -> dict[str, Any]:
        embedded = post.get("_embedded") or {}
        terms = [t for group in embedded.get("wp:term") or [] for t in group or []]
        authors = embedded.get("author") or []
        return {
            "url": canonicalize_url(post["link"]),
            "title": _plain((post.get("title") or {}).get("rendered")),
            "author": authors[0].get("name") if authors and isinstance(authors[0], dict) else None,
            "published_raw": _gmt(post.get("date_gmt")) or post.get("date"),
            "updated_raw": _gmt(post.get("modified_gmt")) or post.get("modified"),
            "categories": [_plain(t["name"]) for t in terms if t.get("taxonomy") == "category"],
            "tags": [_plain(t["name"]) for t in terms if t.get("taxonomy") == "post_tag"],
            "body_html": ((post.get("content") or {}).get("rendered") or "").strip() or None,
        }

    @staticmethod
    def comment_from_api(comment: dict[str, Any], article_url: str) -> dict[str, Any]:
        parent = comment.get("parent")
        return {
            "article_url": article_url,
            "comment_id": str(comment["id"]),
            "parent_id": str(parent) if parent else None,
            "author": comment.get("author_name"),
            "created_raw": _gmt(comment.get("date_gmt")) or comment.get("date"),
            "body_html": ((comment.get("content") or {}).get("rendered") or "").strip() or None,
        }

    # -- HTML ----------------------------------------------------------------------------------
    @staticmethod
    def article_links(response: TextResponse) -> list[str]:
        hrefs = response.css(
            "article.hentry .entry-title a::attr(href), article.post .entry-title a::attr(href)"
        ).getall()
        return list(dict.fromkeys(canonicalize_url(response.urljoin(h)) for h in hrefs))

    @staticmethod
    def next_index_page(response: TextResponse) -> str | None:
        href = first_css(
            response,
            "nav.pagination a.next::attr(href)",
            ".nav-links a.next::attr(href)",
            "a.next.page-numbers::attr(href)",
            'link[rel="next"]::attr(href)',
        )
        return response.urljoin(href) if href else None

    @staticmethod
    def feed_url(response: TextResponse) -> str | None:
        href = response.css(
            'link[rel="alternate"][type="application/rss+xml"]::attr(href), '
            'link[rel="alternate"][type="application/atom+xml"]::attr(href)'
        ).get()
        return response.urljoin(href) if href else None

    @staticmethod
    def article_from_html(response: TextResponse) -> dict[str, Any] | None:
        article = response.css("article.hentry, article.post, article[id^=post-]")[:1]
        if not article:
            return None
        canonical = response.css('link[rel="canonical"]::attr(href)').get()
        body = article.css(".entry-content")[:1]
        return {
            "url": canonicalize_url(response.urljoin(canonical or response.url)),
            "title": join_text(article.css(".entry-title")[:1]) or join_text(response.css("title")),
            "author": first_css(
                article,
                ".byline a[rel=author]::text",
                ".author.vcard a::text",
                "a[rel=author]::text",
            )
            or first_css(response, 'meta[name="author"]::attr(content)'),
            "published_raw": first_css(
                article,
                "time.entry-date.published::attr(datetime)",
                "time.entry-date::attr(datetime)",
                "time[datetime]::attr(datetime)",
            ),
            "updated_raw": first_css(article, "time.updated::attr(datetime)"),
            "categories": [
                t.strip() for t in article.css(".cat-links a::text").getall() if t.strip()
            ],
            "tags": [
                t.strip() for t in article.css(".tags-links a[rel=tag]::text").getall() if t.strip()
            ],
            "body_html": _body(body),
            "comment_count": to_int(join_text(response.css("h2.comments-title")[:1])),
        }

    @staticmethod
    def part_links(response: TextResponse) -> list[str]:
        """Further parts of an article split with ``<!--nextpage-->`` (after the current one)."""
        current = canonicalize_url(response.url)
        links = [
            canonicalize_url(response.urljoin(h))
            for h in response.css(".page-links a.post-page-numbers::attr(href)").getall()
        ]
        seen_current = False
        after = []
        for link in links:
            if link == current:
                seen_current = True
            elif link not in after and (seen_current or _part_number(link) > _part_number(current)):
                after.append(link)
        return after

    @staticmethod
    def part_body(response: TextResponse) -> str | None:
        return _body(response.css("article .entry-content")[:1])

    @staticmethod
    def comments_from_html(
        response: TextResponse | Selector, article_url: str
    ) -> list[dict[str, Any]]:
        comments = []
        for li in response.css("ol.comment-list li[id^=comment-]"):
            comment_id = _COMMENT_ID.search(li.attrib["id"])
            if not comment_id:
                continue
            parent = li.xpath("ancestor::li[starts-with(@id, 'comment-')][1]/@id").get()
            body = (
                li.xpath("./article").css(".comment-content")[:1] or li.css(".comment-content")[:1]
            )
            comments.append(
                {
                    "article_url": article_url,
                    "comment_id": comment_id.group(1),
                    "parent_id": _COMMENT_ID.search(parent).group(1) if parent else None,
                    "author": join_text(
                        li.xpath("./article").css(".comment-author .fn")[:1]
                        or li.css(".comment-author .fn")[:1]
                    ),
                    "created_raw": first_css(
                        li.xpath("./article") or li,
                        ".comment-metadata time::attr(datetime)",
                        "time::attr(datetime)",
                    ),
                    "body_html": _body(body),
                }
            )
        return comments

    @staticmethod
    def next_comment_page(response: TextResponse) -> str | None:
        href = first_css(
            response,
            "nav.comments-pagination a.next::attr(href)",
            ".comment-navigation .nav-next a::attr(href)",
        )
        return canonicalize_url(response.urljoin(href)) if href else None


def _gmt(value: str | None) -> str | None:
    # date_gmt is naive UTC ("2024-03-29T12:30:00"); say so, so no site zone gets applied.
    return f"{value}+00:00" if value and not value.endswith(("Z", "+00:00")) else value


def _plain(html: str | None) -> str | None:
    if html is None:
        return None
    text = unescape(remove_tags(html)).strip()
    return text or None


def _body(sel: Any) -> str | None:
    if not sel:
        return None
    nodes = sel.xpath("./node()[not(self::nav[contains(@class, 'page-links')])]").getall()
    html = "".join(nodes).strip()
    return html or None


def _part_number(url: str) -> int:
    match = re.search(r"/(\d+)/?$", url.split("?")[0])
    return int(match.group(1)) if match else 1
