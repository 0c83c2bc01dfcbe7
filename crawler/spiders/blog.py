"""``scrapy crawl blog -a start_url=https://blog.example/``: any blog, no profile needed.

Discovery, all at once and deduplicated by the scheduler: the RSS/Atom feeds named in the start
page's ``<head>``, the sitemaps named in ``robots.txt`` (else ``/sitemap.xml``; read from the
fetch the robots.txt middleware makes, so robots.txt is fetched once), and the index
pages (``rel=next``, a hint only, and the pager's numbered pages, else categories, tags and
archives). Each candidate page becomes an Article when its
metadata says it is one; its body comes from trafilatura. An article split into parts (WordPress'
``<!--nextpage-->`` page links) is emitted once all its parts are read, bodies joined. Comments
are read from WordPress' core comment
list, h-entry comments, else one record per dated block (:mod:`crawler.blogs.comments`), on
every page of them (:mod:`crawler.blogs.comment_pages`: ``/comment-page-2/``, ``&comments=2``,
``/comments/`` where they have a page of their own);
JavaScript comment widgets (Disqus, Waline, giscus) are not in the HTML and are not collected.
Comments a theme shows without dates come from the post's own comment feed; numeric comment
dates that read either way (``06/01/2024``) wait for a page of the site to tell day from month
(:mod:`crawler.blogs.day_month`).

A page whose post shows no date is dated by its feed entry, else (once every feed is read) by
the day an index page shows beside its link; a post whose page names no author or shows only
its day waits for the site's feeds (asked first), and takes its entry's author and instant. A
list of posts reached as a post's link (``/blog/`` linked from a home page) is an index page. A
feed a sitemap names is read as a feed. What waits (for the feeds, for the order of day and
month) waits inside its page's callback, at most ``CRAWLER_BLOG_WAIT`` seconds, then goes as it
is (:mod:`crawler.blogs.waits`: the page is not acked before its items are out).

Stats: ``blog/discovered/<feed|sitemap|listing>``, ``blog/articles``, ``blog/not_article``,
``blog/articles_from_feed``, ``blog/articles_dated_by_index``.
For WordPress sites prefer ``scrapy crawl wordpress``, which reads the REST API.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar
from urllib.parse import urljoin, urlsplit

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.http import Response, TextResponse
from scrapy.robotstxt import ProtegoRobotParser, RobotParser
from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots

from crawler.blogs.comment_pages import comments_feed, shown_page
from crawler.blogs.day_month import SiteDayMonth
from crawler.blogs.feeds import comment_entries, day_instant, feed_entries, feed_links, whole_body
from crawler.blogs.generic import BlogPage
from crawler.blogs.urls import canonical
from crawler.blogs.waits import Later, Waits
from crawler.blogs.wordpress import WordPress
from crawler.incremental import LISTING, row_meta
from crawler.items import Article
from crawler.learn import when
from crawler.profiles._utils import join_text, to_int
from crawler.spiders.arguments import one_site
from crawler.spiders.common import SPIDER_SETTINGS, check_timezone, fetch_time, site_domain

logger = logging.getLogger(__name__)


@one_site  # -a start_urls=URL (start_url: an alias), crawler/spiders/arguments.py
class BlogSpider(scrapy.Spider):
    name = "blog"
    custom_settings: ClassVar[dict[str, Any]] = {
        **SPIDER_SETTINGS, "SPIDER_MIDDLEWARES": {"crawler.blogs.waits.WaitingItems": 1200}}
    default_charset = None

    def __init__(self, start_url: str | None = None, timezone: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.check_arguments(start_url=start_url, timezone=timezone)
        assert start_url is not None
        self.start_url = start_url
        self.site = urlsplit(start_url).netloc
        self.allowed_domains = [site_domain(start_url)]
        self.site_timezone = timezone
        #: Feed entries with whole posts, by canonical link.
        self.feed_articles: dict[str, dict[str, Any]] = {}
        #: The date index pages show beside each post link; the site's feeds, True once read.
        self.listed_dates: dict[str, str] = {}
        self.feeds: dict[str, bool] = {}
        #: The order of day and month in the site's numeric dates, once a page tells it.
        self.day_month = SiteDayMonth()
        #: The callbacks whose items wait (:mod:`crawler.blogs.waits`).
        self.waits = Waits()
        when.prepare()  # pages without machine-readable dates are read for display dates

    @staticmethod
    def check_arguments(
        start_url: str | None = None, timezone: str | None = None, **_: Any
    ) -> None:
        """One-line ``ValueError`` for bad ``-a`` arguments (``scrapy crawl`` calls it up front)."""
        check_timezone(timezone)

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> BlogSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.robots_parsed, signal=signals.robots_parsed)
        return spider

    async def start(self) -> AsyncIterator[scrapy.Request]:
        yield scrapy.Request(self.start_url, callback=self.parse_listing, dont_filter=True,
                             meta=LISTING)
        if not self.settings.getbool("ROBOTSTXT_OBEY"):
            # no robots.txt middleware to fetch it: the spider reads it for its Sitemap lines
            # (a missing one, 404 included, means /sitemap.xml)
            yield scrapy.Request(urljoin(self.start_url, "/robots.txt"),
                                 callback=self.parse_robots, errback=self.no_sitemap,
                                 meta={"handle_httpstatus_all": True})

    # -- discovery -----------------------------------------------------------------------------
    def robots_parsed(self, robotparser: RobotParser, request: scrapy.Request) -> None:
        """The robots.txt the middleware fetched for the site: its Sitemap lines."""
        if urlsplit(request.url).netloc != self.site:
            return
        # Protego, the default parser, keeps the Sitemap lines; another parser: /sitemap.xml
        found = robotparser.rp.sitemaps if isinstance(robotparser, ProtegoRobotParser) else []
        robots = urljoin(request.url, "/robots.txt")
        for sitemap in _sitemaps(self, [urljoin(robots, url) for url in found], robots):
            self.crawler.engine.crawl(sitemap)

    def parse_robots(self, response: Response) -> Iterator[scrapy.Request]:
        text = response.body if response.status == 200 else b""
        yield from _sitemaps(self, list(sitemap_urls_from_robots(text, base_url=response.url)),
                             response.url)

    def no_sitemap(self, failure: Any) -> None:
        logger.debug("No sitemap at %(url)s", {"url": failure.request.url})

    def parse_sitemap(self, response: Response) -> Iterator[Any]:
        if isinstance(response, TextResponse) and _is_feed(response):
            yield from self.parse_feed(response)  # a sitemap index may name the site's feed
            return
        try:
            sitemap = Sitemap(response.body)
        except Exception:
            logger.debug("Not a sitemap: %(url)s", {"url": response.url})
            return
        for entry in sitemap:
            url = response.urljoin(entry["loc"])
            if sitemap.type == "sitemapindex":
                yield scrapy.Request(url, callback=self.parse_sitemap, meta=LISTING)
            elif urlsplit(url).netloc == self.site:
                self.crawler.stats.inc_value("blog/discovered/sitemap")
                yield scrapy.Request(url, callback=self.parse_page, cb_kwargs={"listing": False},
                                     meta=row_meta(url, entry.get("lastmod")))

    def parse_feed(self, response: Response) -> Iterator[Any]:
        self.feed_articles.update(feed_entries(response.body, response.url))
        for url, said in feed_links(response):
            self.crawler.stats.inc_value("blog/discovered/feed")
            yield scrapy.Request(url, callback=self.parse_page, cb_kwargs={"listing": False},
                                 meta=row_meta(url, said))
        self.feeds[canonical(response.url)] = True

    def feed_failed(self, failure: Any) -> None:
        self.feeds[canonical(failure.request.url)] = True
        self.waits.changed()  # (an errback's end is not seen by spider middlewares)

    def parse_listing(self, response: Response) -> Iterator[Any]:
        """An index page; also a URL seeded into the running crawl (``python -m crawler
        seed``), which has no callback: an article, or a listing whose articles are followed."""
        yield from self.parse_page(response, listing=True)

    parse = parse_listing

    # -- pages ---------------------------------------------------------------------------------
    def parse_page(self, response: Response, listing: bool) -> Iterator[Any]:
        if not isinstance(response, TextResponse):
            return
        if _is_feed(response):  # a feed a sitemap listed: its request from a page is a duplicate
            yield from self.parse_feed(response)
            return
        page = BlogPage(response)
        self.day_month.learn(response)
        if page.is_article():
            yield from self._article(page, response)
            return
        url = canonical(response.url)
        if url in self.feed_articles:
            yield from self._feed_article(url, fetch_time(response), page.comments(url),
                                          page.undated_article()
                                          or {"body_html": page.body_only()})
            pages = page.comment_pages(url)
            yield from self._comment_pages(pages, url, shown_page(list(pages.values())))
            return
        self.crawler.stats.inc_value("blog/not_article")
        post = page.undated_article()
        if not listing or post:
            # Tag and category pages from sitemaps: their articles come from elsewhere too. A
            # feed parsed later may still hold this page as a whole entry, an index page may
            # date its post (also one a wrong rel=next led to, as if it were an index page).
            yield self._unrecognised(url, page.comments(url), post, fetch_time(response),
                                     None if listing else page.body_only())
        # a list of posts a link led to (the blog's list at /blog/ linked from a home page): its
        # posts (its headings' links) and its pager are followed, not its other links nor its
        # feeds (a category page a sitemap listed: its posts come from elsewhere too)
        promoted = not listing and page.lists_posts()
        if not (listing or promoted):
            return
        for feed in [] if promoted else page.feeds():
            self.feeds.setdefault(canonical(feed), False)
            # first: feeds date and name the posts whose pages show only a day or no author
            yield scrapy.Request(feed, callback=self.parse_feed, errback=self.feed_failed,
                                 meta=LISTING, priority=1)
        for url, date in page.dated_links().items():
            self.listed_dates.setdefault(url, date)
        for url in page.article_links(titles_only=promoted):
            self.crawler.stats.inc_value("blog/discovered/listing")
            yield scrapy.Request(url, callback=self.parse_page, cb_kwargs={"listing": False})
        # rel=next is a hint (some themes point it at a category): the pager is followed too.
        nxt = page.next_page()
        for index in dict.fromkeys(([nxt] if nxt else []) + page.index_links(promoted)):
            yield scrapy.Request(index, callback=self.parse_listing, meta=LISTING)

    def _article(self, page: BlogPage, response: TextResponse) -> Iterator[Any]:
        fields = page.article()
        crawled_at = fetch_time(response)
        comments = WordPress.comments_from_html(response, fields["url"]) or page.comments(
            fields["url"]
        )
        article = {
            "platform": page.platform(),
            # Only a count the page states: the comments in hand may be one page of several.
            "comment_count": to_int(join_text(response.css(".comments-title")[:1])),
            **fields,
        }
        rest = page.continuation_pages()
        if rest:
            # A post split over pages (WordPress <!--nextpage-->): the article waits for them.
            yield scrapy.Request(rest[0], callback=self.parse_article_page,
                                 cb_kwargs={"article": article, "rest": rest[1:]})
        else:
            yield from self._finish(article, crawled_at, wait=True)
        yield from self.day_month.comments(comments, crawled_at)
        pages = page.comment_pages(fields["url"])
        yield from self._comment_pages(pages, fields["url"], shown_page(list(pages.values())))
        feed = None if comments else comments_feed(response.text, response.url)
        if feed:  # comments shown without dates: the post's feed of them has them whole
            yield scrapy.Request(feed, callback=self.parse_comment_page,
                                 cb_kwargs={"article_url": fields["url"], "shown": 0})

    def parse_article_page(
        self, response: Response, article: dict[str, Any], rest: list[str]
    ) -> Iterator[Any]:
        """A later page of a split post: its body is appended to the article's."""
        if isinstance(response, TextResponse):
            body = BlogPage(response).body_only()
            if body:
                article = {**article, "body_html": (article.get("body_html") or "") + "\n" + body}
        if rest:
            yield scrapy.Request(rest[0], callback=self.parse_article_page,
                                 cb_kwargs={"article": article, "rest": rest[1:]})
        else:
            yield from self._finish(article, fetch_time(response), wait=True)

    def _unrecognised(self, url: str, comments: list[dict[str, Any]],
                      post: dict[str, Any] | None, crawled_at: str, body: str | None) -> Later:
        """A page that declared no article (its comment blocks, its undated post, its main
        text): an article once a feed names it, else, every feed read, if an index page read
        by then dated its post (the day it shows), with its page's title, byline, body and
        comments. It waits for no index page: its lease holds its host's next pages back."""

        def ready() -> bool:
            return url in self.feed_articles or all(self.feeds.values())

        def items() -> Iterator[Any]:
            if url in self.feed_articles:
                yield from self._feed_article(url, crawled_at, comments,
                                              post or {"body_html": body})
            elif post and url in self.listed_dates:
                self.crawler.stats.inc_value("blog/articles_dated_by_index")
                yield from self._finish({"platform": "generic", **post,
                                         "published_raw": self.listed_dates[url]}, crawled_at)
                yield from self.day_month.comments(
                    [dict(c, article_url=post["url"]) for c in comments], crawled_at)

        return Later(ready, items, self._feeds_given_up)

    def _feed_article(self, url: str, crawled_at: str, comments: list[dict[str, Any]],
                      page_post: dict[str, Any] | None) -> Iterator[Any]:
        """An article whose page declares none, from its feed entry (its content, or the page's
        undated post where the feed's content is an excerpt of it), with the comment blocks of
        its page."""
        self.crawler.stats.inc_value("blog/articles_from_feed")
        fields = self.feed_articles.pop(url)
        fields["body_html"] = whole_body(fields["body_html"], (page_post or {}).get("body_html"))
        yield from self._finish({"platform": "generic", **fields}, crawled_at)
        yield from self.day_month.comments(
            [dict(c, article_url=fields["url"]) for c in comments], crawled_at)

    def _finish(self, article: dict[str, Any], crawled_at: str,
                wait: bool = False) -> Iterator[Article | Later]:
        """The article; one whose page names no author or shows only the day takes the author
        and the instant of its entry in the site's feeds. *wait*: a post page's article waits
        for them while a feed is unread (at most ``CRAWLER_BLOG_WAIT`` seconds)."""
        url = canonical(article["url"])
        entry = self.feed_articles.get(url) or {}
        needs = not article.get("author") or not when.has_clock(article.get("published_raw") or "")
        if wait and needs and not entry and not all(self.feeds.values()):
            yield Later(lambda: url in self.feed_articles or all(self.feeds.values()),
                        lambda: self._finish(article, crawled_at), self._feeds_given_up)
            return
        article = {**article, "author": article.get("author") or entry.get("author"),
                   "published_raw": day_instant(article.get("published_raw"),
                                                entry.get("published_raw"))}
        self.crawler.stats.inc_value("blog/articles")
        yield Article(site=self.site, crawled_at=crawled_at, **article)

    def _feeds_given_up(self) -> None:
        """A wait for the feeds ended without them (a feed another node read, or a duplicate
        request): no page waits for them again (each wait holds back its host)."""
        self.feeds = dict.fromkeys(self.feeds, True)

    def parse_comment_page(self, response: Response, article_url: str,
                           shown: int) -> Iterator[Any]:
        """Another page of a post's comments (``/comment-page-2/``, ``&comments=2``), or the
        post's own feed of them (a theme that shows no comment dates); *shown*: the page the
        post's own URL shows (read with the post)."""
        if not isinstance(response, TextResponse):
            return
        crawled_at = fetch_time(response)
        if _is_feed(response):  # the post's own feed of its comments
            yield from self.day_month.comments(
                comment_entries(response.body, response.url, article_url), crawled_at)
            return
        page = BlogPage(response)
        comments = (WordPress.comments_from_html(response, article_url)
                    or page.comments(article_url))
        self.day_month.learn(response)
        yield from self.day_month.comments(comments, crawled_at)
        yield from self._comment_pages(page.comment_pages(article_url), article_url, shown)

    def _comment_pages(self, pages: dict[str, int], article_url: str,
                       shown: int) -> Iterator[scrapy.Request]:
        # every page the pager names, older and newer (the scheduler drops those already seen),
        # but the one the post's own URL showed
        for url, number in pages.items():
            if number != shown:
                yield scrapy.Request(url, callback=self.parse_comment_page,
                                     cb_kwargs={"article_url": article_url, "shown": shown})


def _sitemaps(spider: BlogSpider, named: list[str], robots: str) -> Iterator[scrapy.Request]:
    """The sitemaps robots.txt names, else ``/sitemap.xml``: a guess, asked once (a server
    error there is not retried: the site's pages lead to its posts all the same)."""
    guess = {} if named else {"max_retry_times": 0}
    for url in named or [urljoin(robots, "/sitemap.xml")]:
        yield scrapy.Request(url, callback=spider.parse_sitemap, errback=spider.no_sitemap,
                             meta={**LISTING, **guess})


def _is_feed(response: TextResponse) -> bool:
    return bool(response.xpath("/rss | /*[local-name()='feed'] | /*[local-name()='RDF']"))
