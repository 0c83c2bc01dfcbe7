"""``scrapy crawl wordpress -a start_url=https://blog.example/``: a WordPress blog, API first.

1. The start page gives the REST API root (``link[rel="https://api.w.org/"]``).
2. API mode: all posts through ``wp/v2/posts`` (pages from ``X-WP-TotalPages``), then the
   comments of each post through ``wp/v2/comments?post=ID``, with their ``parent``. A post
   object has no comment count, so each Article waits for its first comments page and takes
   ``comment_count`` from its ``X-WP-Total`` header (the article rides in that request's
   ``cb_kwargs``); if the comments request fails the Article is emitted without a count.
   Run again (an incremental pass): the posts pages are revisited, so a new post and an
   edited one (its ``modified_gmt`` moved) come back; a new comment changes nothing in its
   post, so the pass also reads the site-wide comment listing (``wp/v2/comments``, newest
   first, ``_embed=up`` for each comment's post) down to the newest comment the crawl had
   seen; the items pipeline lets only the new ones out.
3. HTML mode, when the page has no API link or the API refuses (401/403/404 are common on
   hardened sites): the index pages (``/page/N/``) -> each article page (joining
   ``<!--nextpage-->`` parts) -> its comment pages (``/comment-page-N/``); the RSS feed when the
   theme shows no article list.

Stats: ``wordpress/mode/api`` or ``wordpress/mode/html``.
Spider arguments: ``start_url`` (required), ``per_page`` (API page size, default 100),
``timezone`` (for dates without an offset).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar
from urllib.parse import urlsplit

import scrapy
from scrapy.http import Response, TextResponse
from twisted.python.failure import Failure
from w3lib.url import canonicalize_url

from crawler.blogs.feeds import feed_links
from crawler.blogs.wordpress import WordPress
from crawler.frontier.keys import host_of
from crawler.incremental import LISTING, row_meta
from crawler.items import Article, Comment
from crawler.login.logins import Logins
from crawler.node.api import node_of
from crawler.spiders.arguments import one_site
from crawler.spiders.common import SPIDER_SETTINGS, check_timezone, fetch_time, site_domain

logger = logging.getLogger(__name__)

BLOG_SETTINGS: dict[str, Any] = dict(SPIDER_SETTINGS)


@one_site  # -a start_urls=URL (start_url: an alias), crawler/spiders/arguments.py
class WordPressSpider(scrapy.Spider):
    name = "wordpress"
    custom_settings: ClassVar[dict[str, Any]] = BLOG_SETTINGS
    default_charset = None

    def __init__(
        self,
        start_url: str | None = None,
        per_page: str | int = 100,
        timezone: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.check_arguments(start_url=start_url, per_page=per_page, timezone=timezone)
        assert start_url is not None
        self.start_url = start_url
        self.site = urlsplit(start_url).netloc
        self.allowed_domains = [site_domain(start_url)]
        self.site_timezone = timezone
        self.wp = WordPress()
        self.wp.per_page = int(per_page)
        self._newest_comment = ""  # date_gmt of the newest API comment read (revisit state)

    @staticmethod
    def check_arguments(
        start_url: str | None = None,
        per_page: str | int = 100,
        timezone: str | None = None,
        **_: Any,
    ) -> None:
        """One-line ``ValueError`` for bad ``-a`` arguments (``scrapy crawl`` calls it up front)."""
        check_timezone(timezone)
        if not str(per_page).isdigit() or not 1 <= int(per_page) <= 100:
            raise ValueError(
                f"per_page {per_page!r} must be a whole number from 1 to 100 (the REST API limit)"
            )

    async def start(self) -> AsyncIterator[scrapy.Request]:
        yield scrapy.Request(self.start_url, callback=self.parse_home, dont_filter=True,
                             meta=LISTING)

    def parse_home(self, response: Response) -> Iterator[Any]:
        if not isinstance(response, TextResponse):
            return
        root = self.wp.api_root(response)
        logins = Logins.of(self.crawler)
        if root is not None and self.site.lower() in (*logins.versions, *logins.cookie_sites):
            # the REST API answers a cookie session as a guest (it wants an X-WP-Nonce): the
            # theme's pages show the user's private posts
            logger.info("%(site)s: logged in: read from the theme's pages, not the REST API "
                        "(it shows a cookie session only the public posts)", {"site": self.site})
            root = None
        if root is None:
            yield from self.parse_index(response)
            return
        yield scrapy.Request(
            self.wp.posts_url(root, 1),
            callback=self.parse_api_posts,
            errback=self.api_refused,
            cb_kwargs={"root": root, "page": 1},
            meta={"home": response.url, **LISTING},
        )
        since = self._seen_comments(response)
        if since is not None:  # a revisit pass: new comments leave their posts unchanged
            yield self._recent_comments(root, 1, since)

    # -- API mode ------------------------------------------------------------------------------
    def parse_api_posts(self, response: Response, root: str, page: int) -> Iterator[Any]:
        posts = _json_list(response)
        if posts is None:
            yield from self._fallback(response.meta["home"], "not a post list")
            return
        if page == 1:
            self.crawler.stats.inc_value("wordpress/mode/api")
        crawled_at = fetch_time(response)
        for post in posts:
            fields = self.wp.article_from_api(post)
            # Emitted with the count from the first comments page (parse_api_comments).
            article = {**fields, "crawled_at": crawled_at}
            yield scrapy.Request(
                self.wp.comments_url(root, post["id"], 1),
                callback=self.parse_api_comments,
                errback=self.api_comments_failed,
                cb_kwargs={
                    "root": root,
                    "post_id": post["id"],
                    "article_url": fields["url"],
                    "page": 1,
                    "article": article,
                },
                # an edited post comes back (the API gives no comment count to watch)
                meta=row_meta(str(post["id"]), post.get("modified_gmt") or post.get("modified")),
            )
        if page < self.wp.total_pages(response):
            yield scrapy.Request(
                self.wp.posts_url(root, page + 1),
                callback=self.parse_api_posts,
                cb_kwargs={"root": root, "page": page + 1},
                meta={"home": response.meta["home"], **LISTING},
            )

    def parse_api_comments(
        self,
        response: Response,
        root: str,
        post_id: int,
        article_url: str,
        page: int,
        article: dict[str, Any] | None = None,
    ) -> Iterator[Any]:
        listed = _json_list(response)
        comments = listed or []
        if article is not None:
            count = self.wp.total_items(response, len(comments)) if listed is not None else None
            yield Article(
                site=self.site, platform=self.wp.name, **{**article, "comment_count": count}
            )
        crawled_at = fetch_time(response)
        for comment in comments:
            yield Comment(crawled_at=crawled_at, **self.wp.comment_from_api(comment, article_url))
        self._saw_comments(response, comments)
        if page < self.wp.total_pages(response):
            yield scrapy.Request(
                self.wp.comments_url(root, post_id, page + 1),
                callback=self.parse_api_comments,
                cb_kwargs={
                    "root": root, "post_id": post_id, "article_url": article_url, "page": page + 1
                },
            )

    # -- new comments on a revisit pass ------------------------------------------------------
    def _seen_comments(self, response: Response) -> str:  # type: ignore[return]
        """On a revisit pass, the ``date_gmt`` of the newest comment the crawl read ("" for
        none known); None on a crawl's first pass (or without the frontier's revisits)."""
        node = node_of(self.crawler)
        revisits = node.revisits if node is not None else None
        if revisits is None or not revisits.reading:
            return None  # type: ignore[return-value]
        (stored,) = revisits.get(host_of(response.request), [_NEWEST])
        return stored.decode() if stored else ""

    def _saw_comments(self, response: Response, comments: list[dict[str, Any]]) -> None:
        """Keep the newest comment's date for the next pass (:meth:`_seen_comments`)."""
        newest = max((str(c.get("date_gmt") or "") for c in comments), default="")
        if newest <= self._newest_comment:
            return
        self._newest_comment = newest
        node = node_of(self.crawler)
        if node is not None and node.revisits is not None:
            node.revisits.set(host_of(response.request), _NEWEST, newest.encode())

    def _recent_comments(self, root: str, page: int, since: str) -> scrapy.Request:
        return scrapy.Request(
            self.wp.api_url(
                root, "comments", {"per_page": self.wp.per_page, "page": page, "_embed": "up"}
            ),
            callback=self.parse_api_recent_comments,
            errback=self.api_recent_failed,
            cb_kwargs={"root": root, "page": page, "since": since},
            dont_filter=True,  # read again on every pass
        )

    def parse_api_recent_comments(
        self, response: Response, root: str, page: int, since: str
    ) -> Iterator[Any]:
        """The site-wide comment listing, newest first: every comment on it (the unchanged
        ones are dropped by the items pipeline), then the next page unless this one reached
        *since*, the newest comment of the last pass."""
        comments = _json_list(response)
        if comments is None:
            return
        crawled_at = fetch_time(response)
        for comment in comments:
            article_url = _comment_article(comment)
            if article_url:
                yield Comment(
                    crawled_at=crawled_at, **self.wp.comment_from_api(comment, article_url)
                )
        self._saw_comments(response, comments)
        oldest = min((str(c.get("date_gmt") or "") for c in comments), default="")
        if comments and oldest > since and page < self.wp.total_pages(response):
            yield self._recent_comments(root, page + 1, since)

    def api_recent_failed(self, failure: Failure) -> None:
        logger.info(
            "WordPress comment listing unavailable at %(url)s (%(reason)s): new comments on "
            "unchanged posts are not read in this pass",
            {"url": failure.request.url, "reason": failure.getErrorMessage()},  # type: ignore[attr-defined]
        )

    def api_comments_failed(self, failure: Failure) -> Iterator[Any]:
        """The first comments page failed: the article still goes out, without a count."""
        request = failure.request  # type: ignore[attr-defined]
        logger.info(
            "WordPress comments unavailable at %(url)s (%(reason)s)",
            {"url": request.url, "reason": failure.getErrorMessage()},
        )
        self.crawler.stats.inc_value("wordpress/comments/failed")
        article = request.cb_kwargs.get("article")
        if article is not None:
            yield Article(site=self.site, platform=self.wp.name, **article)

    def api_refused(self, failure: Failure) -> Iterator[Any]:
        home = failure.request.meta["home"]  # type: ignore[attr-defined]
        yield from self._fallback(home, failure.getErrorMessage())

    def _fallback(self, home: str, reason: str) -> Iterator[Any]:
        logger.info(
            "WordPress REST API unusable at %(home)s (%(reason)s); reading HTML",
            {"home": home, "reason": reason},
        )
        yield scrapy.Request(home, callback=self.parse_index, dont_filter=True, meta=LISTING)

    def parse(self, response: Response) -> Iterator[Any]:
        """A URL seeded into the running crawl (``python -m crawler seed``) has no callback:
        an article page, else an index page whose articles are followed."""
        if isinstance(response, TextResponse) and self.wp.article_from_html(response) is not None:
            yield from self.parse_article(response)
        else:
            yield from self.parse_index(response)

    # -- HTML mode -----------------------------------------------------------------------------
    def parse_index(self, response: Response) -> Iterator[Any]:
        if not isinstance(response, TextResponse):
            return
        if response.url.rstrip("/") == self.start_url.rstrip("/"):
            self.crawler.stats.inc_value("wordpress/mode/html")
        links = self.wp.article_links(response)
        for url in links:
            yield scrapy.Request(url, callback=self.parse_article)
        nxt = self.wp.next_index_page(response)
        if nxt:
            yield scrapy.Request(nxt, callback=self.parse_index, meta=LISTING)
        feed = self.wp.feed_url(response)
        if not links and feed:
            yield scrapy.Request(feed, callback=self.parse_feed, meta=LISTING)

    def parse_feed(self, response: Response) -> Iterator[Any]:
        # Dates and comment count: changed articles come back.
        for url, said in feed_links(response):
            yield scrapy.Request(url, callback=self.parse_article, meta=row_meta(url, said))

    def parse_article(
        self,
        response: Response,
        article: dict[str, Any] | None = None,
        parts: list[str] | None = None,
    ) -> Iterator[Any]:
        if not isinstance(response, TextResponse):
            return
        if article is None:
            fields = self.wp.article_from_html(response)
            if fields is None:
                return
            yield from self._comments(response, fields["url"])
            parts = self.wp.part_links(response)
        else:
            fields = {
                **article,
                "body_html": (article.get("body_html") or "")
                + "\n"
                + (self.wp.part_body(response) or ""),
            }
        if parts:
            # An article split with <!--nextpage-->: emit it once all parts are read.
            yield scrapy.Request(
                parts[0],
                callback=self.parse_article,
                cb_kwargs={"article": fields, "parts": parts[1:]},
            )
            return
        yield Article(
            site=self.site, platform=self.wp.name, crawled_at=fetch_time(response), **fields
        )

    def parse_comment_page(self, response: Response, article_url: str) -> Iterator[Any]:
        if isinstance(response, TextResponse):
            yield from self._comments(response, article_url)

    def _comments(self, response: TextResponse, article_url: str) -> Iterator[Any]:
        crawled_at = fetch_time(response)
        for fields in self.wp.comments_from_html(response, article_url):
            yield Comment(crawled_at=crawled_at, **fields)
        nxt = self.wp.next_comment_page(response)
        if nxt:
            yield scrapy.Request(
                nxt, callback=self.parse_comment_page, cb_kwargs={"article_url": article_url}
            )


#: Field of the revisit state (per host) that keeps the newest API comment's ``date_gmt``.
_NEWEST = "wp:newest-comment"


def _comment_article(comment: dict[str, Any]) -> str | None:
    """The URL of a comment's post: its embedded post (``_embed=up``), else the comment's
    link without its anchor and comment page."""
    ups = (comment.get("_embedded") or {}).get("up") or []
    link = ups[0].get("link") if ups and isinstance(ups[0], dict) else None
    if not link:
        link = str(comment.get("link") or "").split("#", 1)[0]
        link = re.sub(r"comment-page-\d+/?$", "", link)
    return canonicalize_url(link) if link else None


def _json_list(response: Response) -> list[dict[str, Any]] | None:
    try:
        data = json.loads(response.body)
    except ValueError:
        return None
    return data if isinstance(data, list) else None
