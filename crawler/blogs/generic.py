"""Extraction for blogs without a dedicated reader (Hugo, Hexo, Jekyll, Ghost, Typecho…).

Discovery links come from RSS/Atom feeds, sitemaps and listing pages; article pages are
recognised from their metadata (``og:type=article``, ``article:published_time``, JSON-LD
``BlogPosting``/``Article``) and their body is taken by trafilatura's main-content extraction.
Metadata prefers what the page declares (Open Graph, JSON-LD, ``time[datetime]``) over
trafilatura's guesses, which only keep the day of a date.
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any
from urllib.parse import urlsplit

import trafilatura
from scrapy.http import TextResponse

from crawler import jsonld
from crawler.blogs.byline import author_name
from crawler.blogs.comment_pages import comment_pages, post_of
from crawler.blogs.comments import comment_blocks
from crawler.blogs.entry import Entry, find_entry
from crawler.blogs.feeds import day_instant
from crawler.blogs.lone import lists_posts
from crawler.blogs.urls import canonical, path_in_query, where_in
from crawler.learn.when import find_date
from crawler.profiles._utils import first_css, join_text

logger = logging.getLogger(__name__)

__all__ = ["ARTICLE_TYPES", "BlogPage"]

ARTICLE_TYPES = {"Article", "BlogPosting", "NewsArticle", "TechArticle", "Report"}
#: Not a post: lists, feeds, search, the site's administration and login (also as a script of
#: that name, ``/feed.php``, ``/login.php``, ``/core/admin/``), files. Archives are lists by
#: date (``/archives/``, ``/archives/2024/01/``); other paths under them are posts
#: (``/archives/14/``: WordPress' numeric permalinks, Typecho's).
_NOT_ARTICLE = re.compile(
    r"/(?:tags?|categor(?:y|ies)|authors?|page|feed|search|wp-(?:admin|login|json|"
    r"content|includes)|login|admin|comments?|label|topics?)(?:/|$|\.php$)"
    r"|/archives?(?:/\d{4}(?:/\d{1,2})?)?(?:\.html?|\.php)?/?$"
    r"|\.(?:xml|css|js|png|jpe?g|gif|svg|ico|zip|pdf|json)$",
    re.IGNORECASE,
)


#: Listing pages of a blog (followed as listings, not as article candidates).
_LISTING_PAGE = re.compile(
    r"/page/\d+/?$|[?&](?:page|paged|p)=\d+|[?&]page\d+$|/index\d*\.html?$", re.IGNORECASE
)
#: A pager's numbered pages (``?page3``: a query with no ``=``, a path in disguise).
_PAGER = re.compile(r"/page/\d+/?$|[?&](?:page|paged|p)=\d+|[?&]page\d+$|/index-?\d+\.html?$",
                    re.IGNORECASE)
#: Index pages that list posts: pagers, categories, tags, archives (by month or year).
_INDEX_PAGE = re.compile(
    r"/(?:page|categor(?:y|ies)|tags?|label)/|/(?:page|categor(?:y|ies)|tags?|archives?)"
    r"(?:\.html?)?/?$|/archives?/(?:\d{4}(?:/\d{1,2})?(?:\.html?)?/?)?$|/\d{4}/(?:\d{1,2}/)?$"
    r"|[?&](?:page|paged)=\d+|[?&]page\d+$|/index-?\d+\.html?$",
    re.IGNORECASE,
)
_NEXT_WORDS = re.compile(
    r"^(?:next|next page|older|older posts|older entries|earlier posts|more posts"
    r"|»|›|⟩|〉|>>|→|next »|older »|"
    r"« older(?: posts| entries)?|← older(?: posts| entries)?"
    r"|下一页|下一頁|下页|后一页|更早的文章)(?:\s*(?:»|›|→|>>))?$",
    re.IGNORECASE,
)


#: A feed's own address, for themes that link it only in the page.
_FEED_LINK = re.compile(r"/(?:feed|rss|atom)/?$|\.(?:rss|atom)$|/(?:feed|rss|atom|index)\.xml$",
                        re.IGNORECASE)
_FEED = re.compile(r"/feed/?$|\.(?:xml|rss|atom|rdf)$|/(?:wp-)?(?:login|admin)", re.IGNORECASE)


class BlogPage:
    """Reads one blog page; every method is a pure function of the response."""

    def __init__(self, response: TextResponse) -> None:
        self.response = response
        self._entry: Entry | None | object = _UNSET
        self._ld: list[dict[str, Any]] | None = None

    # -- discovery -----------------------------------------------------------------------------
    def feeds(self) -> list[str]:
        hrefs = self.response.css(
            'link[rel="alternate"][type="application/rss+xml"]::attr(href), '
            'link[rel="alternate"][type="application/atom+xml"]::attr(href)'
        ).getall() or [
            # a theme that names its feed only in the page ("<a href=/feed/ title=RSS>")
            h for h in self.response.css("a[href]::attr(href)").getall()
            if _FEED_LINK.search(urlsplit(h).path)]
        # Comment feeds list comments, not articles.
        return list(dict.fromkeys(self.response.urljoin(h) for h in hrefs
                                  if "comment" not in h.lower()))

    def next_page(self) -> str | None:
        href = first_css(
            self.response,
            'link[rel="next"]::attr(href)',
            'a[rel="next"]::attr(href)',
            "a.next::attr(href)",
            ".pagination a.next::attr(href)",
            ".nav-previous a::attr(href)",
        )
        if not href:
            # Themes that only say it in words or arrows: "Older posts", "»", "下一页".
            for link in self.response.css("a[href]"):
                if (_NEXT_WORDS.match(join_text(link) or "")
                        and not link.attrib["href"].startswith("#")):
                    href = link.attrib["href"]
                    break
        return self.response.urljoin(href) if href else None

    def article_links(self, titles_only: bool = False) -> list[str]:
        """Same-site links that look like article permalinks (not tags, pages, feeds…);
        *titles_only*: those of the page's headings (the posts a list of posts shows)."""
        host = urlsplit(self.response.url).netloc
        here = canonical(self.response.url)
        nxt = self.next_page()
        skip = {canonical(nxt)} if nxt else set()
        links = []
        where = ("h1 a[href], h2 a[href], h3 a[href]" if titles_only
                 else "main a[href], article a[href], #content a[href], body a[href]")
        for href in self.response.css(where).xpath("@href").getall():
            # a link to a post's comments page ("4 comments") leads to the post
            url = post_of(canonical(self.response.urljoin(href)))
            parts = urlsplit(url)
            if (
                parts.netloc != host
                or url == here
                or (parts.path in ("", "/") and not path_in_query(parts.query))
                or _NOT_ARTICLE.search(parts.path)
                or url in skip
                or _LISTING_PAGE.search(where_in(url))
            ):
                continue
            links.append(url)
        return list(dict.fromkeys(links))

    def dated_links(self) -> dict[str, str]:
        """The date an index page shows on the line of each post link ("2024-03-22 - <a>",
        "<li><time>…</time> <a>"): the date of a post whose own page shows none (links to
        other pages are kept too: the spider asks only for undated posts)."""
        host = urlsplit(self.response.url).netloc
        found: dict[str, str] = {}
        for link in self.response.xpath("//a[@href]"):
            url = canonical(self.response.urljoin(link.attrib["href"]))
            line = link.xpath("parent::*")
            text = join_text(line) or ""
            if urlsplit(url).netloc != host or url in found or len(text) > 200:
                continue
            date = line.xpath("string(.//time/@datetime)").get() or find_date(text)
            if date:
                found[url] = date
        return found

    def index_links(self, pager_only: bool = False) -> list[str]:
        """Same-site index pages: the pager's pages, else (a site without a pager, unless
        *pager_only*) its categories, tags and archives; together they reach every post even
        where ``rel=next`` leads elsewhere."""
        host = urlsplit(self.response.url).netloc
        pagers, others = [], []
        for href in self.response.css("a[href]::attr(href)").getall():
            url = canonical(self.response.urljoin(href))
            parts = urlsplit(url)
            where = where_in(url)
            if parts.netloc != host or not _INDEX_PAGE.search(where) or _FEED.search(where):
                continue
            (pagers if _PAGER.search(where) else others).append(url)
        return list(dict.fromkeys(pagers or ([] if pager_only else others)))

    # -- article -------------------------------------------------------------------------------
    def platform(self) -> str:
        generator = self.response.css('meta[name="generator"]::attr(content)').get("")
        word = re.match(r"[A-Za-z][A-Za-z-]*", generator.strip())
        return word.group(0).lower() if word else "generic"

    def entry(self) -> Entry | None:
        """The article the page's own markup declares (:mod:`crawler.blogs.entry`)."""
        if self._entry is _UNSET:
            self._entry = find_entry(self.response.text, self.response.url)
        return self._entry  # type: ignore[return-value]

    def lists_posts(self) -> bool:
        """The page is a list of posts (:func:`crawler.blogs.lone.lists_posts`): reached as a
        post's link (a blog's list at ``/blog/`` linked from a home page), it is an index page;
        not a category, tag or archive page (a sitemap's: the site's own lists reach its posts)."""
        if _INDEX_PAGE.search(where_in(self.response.url)):
            return False
        entry = self.entry()
        if entry is not None:
            return entry.listing
        return lists_posts(self.response.selector.root, self.response.url)

    def is_article(self) -> bool:
        if self.response.css(_meta("published_time")):
            return True
        og_type = self.response.css('meta[property="og:type"]::attr(content)').get("")
        if og_type.lower() == "article":
            # some themes say og:type=article on every page: a page of several posts is a list,
            # a page whose entry shows no date a static page ("About"), as below
            entry = self.entry()
            if entry is None or entry.listing:
                return entry is None
            if entry.published:
                return True
        if any(jsonld.types(item) & ARTICLE_TYPES for item in self.json_ld()):
            return True
        entry = self.entry()
        if entry is not None:
            # an undated entry is a static page (WordPress' "About" is an hentry too)
            return not entry.listing and bool(entry.published)
        # One main <article> with a date: comment lists and widgets also use <article>, skip them.
        main = self.response.xpath(
            "//article[not(ancestor::article)]"
            "[not(ancestor-or-self::*[contains(@class, 'comment')])]"
        )
        if len(main) != 1 or not main.css("time[datetime]"):
            return False
        # A listing page with a single entry looks the same, except that the entry's heading
        # links to the entry's own page.
        here = canonical(self.response.url)
        heading_links = main.css("h1 a::attr(href), h2 a::attr(href)").getall()
        return not any(canonical(self.response.urljoin(h)) != here for h in heading_links)

    def article(self) -> dict[str, Any]:
        """Article fields: the page's declared entry first (h-entry, hAtom, schema.org, a lone
        ``<article>``), then Open Graph and JSON-LD metadata, then trafilatura's guesses."""
        entry = self.entry()
        if entry is not None and not entry.listing:
            declared = _declared(entry)
            if (
                declared.get("body_html")
                and declared.get("title")
                and declared.get("published_raw")
            ):
                metadata = self._article_from_metadata(with_body=False)
                # the metadata's instant where the post shows only its day
                return _named({**metadata, **declared, "published_raw": day_instant(
                    declared["published_raw"], metadata.get("published_raw"))})
        return _named(self._article_from_metadata(with_body=True))

    def _article_from_metadata(self, with_body: bool) -> dict[str, Any]:
        response = self.response
        html = response.text
        meta = trafilatura.bare_extraction(
            html, url=response.url, with_metadata=True, include_comments=False
        )
        meta_dict = (
            meta.as_dict() if meta is not None and hasattr(meta, "as_dict") else (meta or {})
        )
        # favor_precision: on short posts the default (recall) mode falls back to a baseline
        # that swallows breadcrumbs and bylines into the body.
        body = trafilatura.extract(
            html,
            url=response.url,
            output_format="html",
            include_comments=False,
            include_formatting=True,
            favor_precision=True,
        ) if with_body else None
        ld = next((item for item in self.json_ld() if jsonld.types(item) & ARTICLE_TYPES), {})
        declared_url = response.css('link[rel="canonical"]::attr(href)').get()
        return {
            "url": canonical(response.urljoin(declared_url or response.url)),
            "title": _without_site_name(
                first_css(response, 'meta[property="og:title"]::attr(content)')
                or ld.get("headline") or meta_dict.get("title"),
                join_text(response.css("article h1, main h1")[:1] or response.css("h1")[:1])),
            "author": _author(ld)
            or first_css(response, 'meta[name="author"]::attr(content)')
            or meta_dict.get("author"),
            "published_raw": first_css(response, _meta("published_time", "::attr(content)"))
            or ld.get("datePublished")
            or first_css(response, "article time[datetime]::attr(datetime)")
            or meta_dict.get("date"),
            "updated_raw": first_css(response, _meta("modified_time", "::attr(content)"))
            or ld.get("dateModified"),
            "tags": response.css(_meta("tag", "::attr(content)")).getall()
            or _list(meta_dict.get("tags")),
            "categories": response.css(_meta("section", "::attr(content)")).getall()
            or _list(meta_dict.get("categories")),
            "body_html": _inner_body(body),
        }

    def continuation_pages(self) -> list[str]:
        """Later pages of a post split over several (``/post/2/``, ``?page=2``), in order."""
        here = canonical(self.response.url).rstrip("/")
        found: dict[int, str] = {}
        for href in self.response.css("a[href]::attr(href)").getall():
            url = canonical(self.response.urljoin(href))
            match = re.fullmatch(re.escape(here) + r"/(\d+)/?", url) or re.fullmatch(
                re.escape(here) + r"/?\?(?:.*&)?page=(\d+)", url
            )
            if match and int(match.group(1)) >= 2:
                found.setdefault(int(match.group(1)), url)
        return [found[n] for n in sorted(found)]

    def undated_article(self) -> dict[str, Any] | None:
        """The post the page shows without a date (its feed entry or an index page dates it)."""
        entry = self.entry()
        if entry is None or entry.listing or not entry.title or not entry.body_html:
            return None
        return _named({"url": canonical(self.response.url), **_declared(entry)})

    def body_only(self) -> str | None:
        """The body of a continuation page: the declared entry, else trafilatura's."""
        entry = self.entry()
        if entry is not None and entry.body_html:
            return entry.body_html
        return self._article_from_metadata(with_body=True)["body_html"]

    def comments(self, article_url: str) -> list[dict[str, Any]]:
        """Comments the page declares (h-entry ``comment``), or its repeated comment blocks."""
        entry = self.entry()
        if entry is not None and entry.comments:
            return [
                dict(c, article_url=article_url, comment_id=c["comment_id"] or _digest(c))
                for c in entry.comments
            ]
        return comment_blocks(self.response.text, self.response.url, article_url)

    def comment_pages(self, article_url: str) -> list[str]:
        """The other pages of the post's comments (:mod:`crawler.blogs.comment_pages`)."""
        return comment_pages(self.response.text, self.response.url, article_url)

    def json_ld(self) -> list[dict[str, Any]]:
        if self._ld is None:
            scripts = self.response.css('script[type="application/ld+json"]::text').getall()
            self._ld = list(jsonld.objects(jsonld.parse_scripts(scripts)))
        return self._ld


_UNSET = object()


def _digest(comment: dict[str, Any]) -> str:
    data = f"{comment.get('author')}\x1f{comment.get('created_raw')}\x1f{comment.get('body_html')}"
    return hashlib.sha1(data.encode()).hexdigest()[:16]


def _meta(name: str, then: str = "") -> str:
    """Open Graph's ``article:`` properties, also where a theme writes them as ``name=``."""
    return f'meta[property="article:{name}"]{then}, meta[name="article:{name}"]{then}'


def _without_site_name(title: str | None, heading: str | None) -> str | None:
    """The post's heading where the page's title is that heading plus the site's name
    (``TITLE | SITE``, ``SITE - TITLE``: ``<title>`` and ``og:title`` of many themes)."""
    if title and heading and heading != title and heading in title:
        return heading
    return title or heading


def _named(fields: dict[str, Any]) -> dict[str, Any]:
    """The author's name without its byline's words ("By Carol Zhang," is "Carol Zhang")."""
    return {**fields, "author": author_name(fields.get("author"))}


def _declared(entry: Entry) -> dict[str, Any]:
    """The fields an entry declares, left out when it does not say (metadata fills them)."""
    fields = {
        "title": entry.title,
        "author": entry.author,
        "published_raw": entry.published,
        "updated_raw": entry.updated,
        "tags": entry.tags,
        "categories": entry.categories,
        "body_html": entry.body_html,
    }
    return {k: v for k, v in fields.items() if v}


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
