"""Blogs no reader models, read page by page: pages captured from real engines (MkDocs
Material's blog plugin, Eleventy's base blog, Serendipity, WordPress) against what each
engine's own source says they show.

The MkDocs post is an ``<article>`` in a documentation layout: its date and author sit in a
sidebar, a site-wide ``<meta name="author">`` names someone else, and ``rel=next`` leads to a
category page. The Eleventy post has no ``<article>`` at all. The WordPress post
(twentytwentyone) has replies nested in the parent's list item. The Serendipity post has
comments of several paragraphs, threaded by level classes, its author in a "Posted by … on"
byline, and a ``index.php?/archives/…`` URL. The French Dotclear post has no ``<time>``: each
comment's line holds the author and a day-first numeric date. The ABlog (Sphinx) post is a
documentation page: no ``<article>``, no ``<time>``, its date and author in a sidebar card. The
Chyrp Lite post's byline links to its author's page by query (``?action=author&id=4``), its
comments are in an ``<article>`` of their own, each named by its heading ("Gao Wei said:").
The Textpattern post is a schema.org ``BlogPosting`` nested in a ``Blog`` item, its meta line
("Posted … Comments 4") beside its ``articleBody``. The PluXml post's comments are sibling
``div.comment`` blocks with no section around them, each line "#1 <time> - Dave Reader said :";
its pager is ``index.php?page2``. The FlatPress post shows its day in a heading and its time in
its byline; its comments are on a page of their own (``…/comments/``), where a comment of the
same day shows only its time; its pager is a path in a query (``?u=/page/2/``). The Docusaurus
post's ``<title>`` adds the site's name to its heading. The Typecho post's microdata author is a
link (its microdata value the href); its last index page links posts under ``/archives/``. The
HTMLy post shows its day only, its author in a ``<dl>`` beside the text with a link labelled
"Posts by this author"; its category page says ``og:type=article``. The Mezzanine post shows
only its age ("2 years ago"): its summary-only RSS feed dates it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, XmlResponse
from scrapy.utils.test import get_crawler
from twisted.python.failure import Failure

from crawler.blogs.byline import author_name
from crawler.blogs.comment_pages import post_of
from crawler.blogs.comments import comment_blocks
from crawler.blogs.generic import BlogPage
from crawler.blogs.urls import canonical
from crawler.blogs.waits import Later
from crawler.dates import normalize_date
from crawler.items import Article, Comment
from crawler.learn import when
from crawler.spiders.blog import BlogSpider
from tests.extract.realsites import load_scorer
from tests.helpers.blog_waits import run_steps

SCORER = load_scorer()
FIXTURES = Path(__file__).parent.parent / "fixtures" / "blogs_unmodelled"
PAGES = [
    (site.name, page, spec)
    for site in sorted(FIXTURES.iterdir()) if site.is_dir()
    for page, spec in json.loads((site / "expected.json").read_text()).items()
]


def _page(site: str, name: str, url: str) -> BlogPage:
    when.prepare()
    body = (FIXTURES / site / name).read_bytes()
    return BlogPage(HtmlResponse(url, body=body, encoding="utf-8"))


def _text(html: str | None) -> str:
    return SCORER.normalise(SCORER.html_text(html))


def _created(raw: str | None) -> Any:
    """The instant the crawl's date pipeline makes of a raw date (site in UTC)."""
    return SCORER.instant(normalize_date(raw, base=datetime.now(UTC)))


def _same_date(value: str | None, want: str) -> bool:
    """The same instant, or the same day where the engine keeps only the day."""
    if len(want) == 10:  # the day, shown as the page shows it ("Jan. 5, 2024")
        return bool(value) and (normalize_date(value, base=datetime.now(UTC)) or "")[:10] == want
    return _created(value) == SCORER.instant(want)


@pytest.mark.parametrize(("site", "name", "spec"), [p for p in PAGES if "article" in p[2]],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_article_page_reads_as_the_engine_shows_it(site: str, name: str,
                                                   spec: dict[str, Any]) -> None:
    page = _page(site, name, spec["url"])
    want = spec["article"]
    assert page.is_article()
    got = page.article()
    assert got["url"] == canonical(want["url"])
    assert got["title"] == want["title"]
    assert got["author"] == want["author"]
    assert _same_date(got["published_raw"], want["published"])
    assert _text(got["body_html"]) == SCORER.normalise(want["body_text"])


@pytest.mark.parametrize(("site", "name", "spec"), [p for p in PAGES if "comments" in p[2]],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_comments_are_whole_records_with_parents(site: str, name: str,
                                                 spec: dict[str, Any]) -> None:
    # comment_blocks, not BlogPage.comments: WordPress' own list reader would come first
    html = (FIXTURES / site / name).read_text()
    got = comment_blocks(html, spec["url"], spec["url"])
    rows = [
        {"comment_id": c["comment_id"], "author": c["author"],
         "created": _created(c["created_raw"]), "parent_id": c.get("parent_id"),
         "body_text": _text(c["body_html"])}
        for c in got
    ]
    want = [{**c, "created": SCORER.instant(c["created"]),
             "body_text": SCORER.normalise(c["body_text"])} for c in spec["comments"]]
    assert rows == want


def test_index_page_lists_its_posts_and_every_index_page() -> None:
    site, name, spec = next(p for p in PAGES if "articles" in p[2])
    page = _page(site, name, spec["url"])
    assert not page.is_article()
    assert page.article_links() == spec["articles"]
    # rel=next leads to a category page here: the pager's pages are found all the same
    assert page.next_page() == "http://127.0.0.1:18201/category/crawling/"
    assert page.index_links() == spec["index_pages"]
    assert not set(page.index_links()) & set(spec["articles"])


@pytest.mark.parametrize(("byline", "name"), [
    ("By Carol Zhang,", "Carol Zhang"),
    ("Posted by Alice Martin on", "Alice Martin"),
    ("Written by: Bob Dupont", "Bob Dupont"),
    ("par Jean Dupont :", "Jean Dupont"),
    ("von Hans Müller", "Hans Müller"),
    ("作者：李雷", "李雷"),
    ("Dave Reader on Saturday, January 6. 2024:", "Dave Reader"),
    ("nospam@example.com (Carol Zhang)", "Carol Zhang"),
    ("Erin Li", "Erin Li"),
    ("De Dave Reader -", "Dave Reader"),
    ("De Niro", "De Niro"),
    # a verb before the word that introduces the name, a verb after it (Chyrp's six locales)
    ("Written by Alice Martin", "Alice Martin"),
    ("Ecrit par Alice Martin", "Alice Martin"),
    ("Publiziert von Alice Martin", "Alice Martin"),
    ("Scritto da Alice Martin", "Alice Martin"),
    ("Geschreven door Alice Martin", "Alice Martin"),
    ("Napisane przez Alice Martin", "Alice Martin"),
    ("由李雷撰写", "李雷"),
    ("Dave Reader said:", "Dave Reader"),
    ("Dave Reader a dit :", "Dave Reader"),
    ("Dave Reader hat gesagt:", "Dave Reader"),
    ("Dave Reader zei:", "Dave Reader"),
    ("Dave Reader napisał:", "Dave Reader"),
    ("Dave Reader said...", "Dave Reader"),
    ("李雷 说：", "李雷"),
    ("Said Ahmed", "Said Ahmed"),  # a name, not the word after one
    ("#1", None),  # a comment's permalink, by its number
    # microdata's value of <a itemprop="name" href=…> is the href (Typecho's byline)
    ("http://127.0.0.1:18217/index.php/author/4/", None),
    ("", None),
])
def test_byline_words_are_not_part_of_the_name(byline: str, name: str | None) -> None:
    assert author_name(byline) == name


@pytest.mark.parametrize(("url", "identity"), [
    # a query that is a path in disguise stays one (canonicalizing it as key= breaks the link)
    ("http://h/index.php?/archives/1-Post-01.html#c10",
     "http://h/index.php?/archives/1-Post-01.html"),
    ("http://h/a?b=1&a=2", "http://h/a?a=2&b=1"),
    ("http://h/index.php/post/2024/01/05/Post-01%3A-Notes-%E7%88%AC",
     "http://h/index.php/post/2024/01/05/Post-01:-Notes-%E7%88%AC"),
])
def test_canonical_keeps_path_like_queries(url: str, identity: str) -> None:
    assert canonical(url) == identity


@pytest.mark.parametrize(("site", "name", "spec"), [p for p in PAGES if p[2].get("listing")],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_a_list_of_dated_posts_in_one_article_is_a_listing(site: str, name: str,
                                                          spec: dict[str, Any]) -> None:
    page = _page(site, name, spec["url"])
    assert not page.is_article()
    assert page.article_links()


def test_comments_without_time_elements_read_from_definition_lists() -> None:
    # Themes with no <time>: the date is text in the <dt> byline, the comment its <dd>.
    when.prepare()
    html = """<html><body><div id="comments"><h3>Comments</h3><dl>
      <dt id="c1"><a href="#c1">1.</a> On Friday 5 January 2024, 10:00 by
        <a href="http://dave.example/">Dave Reader</a></dt>
      <dd><p>First para.</p><p>Second para.</p></dd>
      <dt id="c2"><a href="#c2">2.</a> On Saturday 6 January 2024, 11:00 by
        <a href="http://erin.example/">Erin Li</a></dt>
      <dd><p>Other.</p><p>More.</p></dd></dl></div></body></html>"""
    got = comment_blocks(html, "http://h/post/", "http://h/post/")
    assert [(c["comment_id"], c["author"], c["created_raw"], _text(c["body_html"]))
            for c in got] == [
        ("c1", "Dave Reader", "Friday 5 January 2024, 10:00", "First para. Second para."),
        ("c2", "Erin Li", "Saturday 6 January 2024, 11:00", "Other. More."),
    ]


@pytest.mark.parametrize(("lang", "shown", "created"), [
    ("fr", "06/01/2024, 09:37", "2024-01-06T09:37:00+00:00"),
    ("en-US", "06/01/2024, 09:37", "2024-06-01T09:37:00+00:00"),
    # a day above 12 on the page tells the order whatever the language says
    ("en-US", "13/01/2024, 09:37", "2024-01-13T09:37:00+00:00"),
])
def test_numeric_comment_dates_in_the_page_s_order(lang: str, shown: str, created: str) -> None:
    when.prepare()
    html = f"""<html lang="{lang}"><body><div id="comments"><ul>
      <li id="c1"><p class="comment-info"><a href="#c1">1</a> De Dave Reader - {shown}</p>
        <div class="comment-content"><p>First para.</p><p>Second para.</p></div></li>
      <li id="c2"><p class="comment-info"><a href="#c2">2</a> De Erin Li - {shown}</p>
        <div class="comment-content"><p>Other.</p></div></li></ul></div></body></html>"""
    got = comment_blocks(html, "http://h/post/", "http://h/post/")
    want = SCORER.instant(created)
    assert [(c["author"], _created(c["created_raw"]), _text(c["body_html"])) for c in got] == [
        ("Dave Reader", want, "First para. Second para."), ("Erin Li", want, "Other.")]


@pytest.mark.parametrize("feed_first", [True, False])
def test_a_post_read_from_its_feed_keeps_its_page_s_comments(feed_first: bool) -> None:
    # The French Dotclear page declares no article (no <article>, no <time>, no metadata): the
    # feed holds the whole post, the page its comments; either may arrive first.
    site = FIXTURES / "dotclear-2.39.2-fr"
    spec = json.loads((site / "expected.json").read_text())["post.html"]
    crawler = get_crawler(BlogSpider)
    spider = BlogSpider.from_crawler(crawler, start_url="http://127.0.0.1:18209/index.php/")
    feed = XmlResponse("http://127.0.0.1:18209/index.php/feed/atom",
                       body=(site / "atom.xml").read_bytes())
    page = HtmlResponse(spec["url"], body=(site / "post.html").read_bytes(), encoding="utf-8")
    steps = [(spider.parse_feed, (feed,)), (spider.parse_page, (page, False))]
    items = [i for i in run_steps(steps if feed_first else steps[::-1])
             if isinstance(i, (Article, Comment))]
    articles = [i for i in items if isinstance(i, Article)]
    comments = [i for i in items if isinstance(i, Comment)]
    assert [a.url for a in articles] == [canonical(spec["url"])]
    assert [(c.article_url, c.author) for c in comments] == [
        (canonical(spec["url"]), c["author"]) for c in spec["comments"]]


@pytest.mark.parametrize("feed_first", [True, False])
def test_an_undated_post_takes_its_date_from_the_feed_and_its_body_from_the_page(
        feed_first: bool) -> None:
    # ABlog without its sidebar post card: the post page shows no date and no author; its Atom
    # feed has both, and as content only the post's first paragraph (an excerpt).
    site = FIXTURES / "ablog-0.11-sphinx-undated"
    spec = json.loads((site / "expected.json").read_text())["post.html"]
    want = spec["feed_article"]
    spider = BlogSpider.from_crawler(get_crawler(BlogSpider), start_url="http://127.0.0.1:18252/")
    feed = XmlResponse("http://127.0.0.1:18252/blog/atom.xml",
                       body=(site / "atom.xml").read_bytes())
    page = HtmlResponse(spec["url"], body=(site / "post.html").read_bytes(), encoding="utf-8")
    assert not _page("ablog-0.11-sphinx-undated", "post.html", spec["url"]).is_article()
    spider.feeds[canonical(feed.url)] = False  # named by the home page, asked for first
    steps = [(spider.parse_feed, (feed,)), (spider.parse_page, (page, False))]
    items = [i for i in run_steps(steps if feed_first else steps[::-1])
             if isinstance(i, Article)]
    assert [(a.url, a.title, a.author) for a in items] == [
        (canonical(want["url"]), want["title"], want["author"])]
    assert _same_date(items[0].published_raw, want["published"])
    assert _text(items[0].body_html) == SCORER.normalise(want["body_text"])


@pytest.mark.parametrize("feed_first", [True, False])
def test_an_undated_post_no_feed_holds_takes_the_day_its_index_page_shows(
        feed_first: bool) -> None:
    # The same ABlog site with a feed of the latest 5 posts: post 03 is in no feed, its page
    # shows no date; the blog's index page shows "2024-01-19 - <a href=post-03.html>".
    site = FIXTURES / "ablog-0.11-sphinx-undated"
    spec = json.loads((site / "expected.json").read_text())["post.html"]
    want = spec["feed_article"]
    spider = BlogSpider.from_crawler(get_crawler(BlogSpider), start_url="http://127.0.0.1:18252/")
    index = HtmlResponse("http://127.0.0.1:18252/posts/index.html",
                         body=(site / "posts-index.html").read_bytes(), encoding="utf-8")
    feed = XmlResponse("http://127.0.0.1:18252/blog/atom.xml",
                       body=(site / "atom-latest5.xml").read_bytes())
    page = HtmlResponse(spec["url"], body=(site / "post.html").read_bytes(), encoding="utf-8")
    list(spider.parse_listing(index))  # names the feed, dates the posts
    steps = [(spider.parse_feed, (feed,)), (spider.parse_page, (page, False))]
    if not feed_first:
        first = list(spider.parse_page(page, False))
        # it waits for every feed: one holding it would give the minute
        assert [type(i) for i in first if isinstance(i, (Article, Later))] == [Later]
        steps = [(lambda: first, ()), (spider.parse_feed, (feed,))]
    items = [i for i in run_steps(steps) if isinstance(i, Article)]
    assert [(a.url, a.title, a.published_raw) for a in items] == [
        (canonical(want["url"]), want["title"], want["published"][:10])]
    assert _text(items[0].body_html) == SCORER.normalise(want["body_text"])


def test_an_undated_post_is_dated_by_its_index_page_when_the_feed_fails() -> None:
    site = FIXTURES / "ablog-0.11-sphinx-undated"
    spec = json.loads((site / "expected.json").read_text())["post.html"]
    spider = BlogSpider.from_crawler(get_crawler(BlogSpider), start_url="http://127.0.0.1:18252/")
    index = HtmlResponse("http://127.0.0.1:18252/posts/index.html",
                         body=(site / "posts-index.html").read_bytes(), encoding="utf-8")
    feeds = [r for r in spider.parse_listing(index) if isinstance(r, Request)
             and r.callback == spider.parse_feed]
    page = HtmlResponse(spec["url"], body=(site / "post.html").read_bytes(), encoding="utf-8")
    first = list(spider.parse_page(page, False))
    assert [type(i) for i in first if isinstance(i, (Article, Later))] == [Later]
    failure = Failure(IgnoreRequest("404"))
    failure.request = feeds[0]  # type: ignore[attr-defined]
    items = run_steps([(lambda: first, ()), (feeds[0].errback, (failure,))])
    assert [a.published_raw for a in items if isinstance(a, Article)] == ["2024-01-19"]


@pytest.mark.parametrize(("site", "name", "spec"), [p for p in PAGES if "index" in p[2]],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_index_page_leads_to_its_posts_and_its_pager(site: str, name: str,
                                                    spec: dict[str, Any]) -> None:
    # PluXml: index.php?page2; FlatPress: ?u=/page/2/ and each post linked as its comments page
    page = _page(site, name, spec["url"])
    assert not page.is_article()
    assert {canonical(u) for u in spec["index"]["posts"]} <= set(page.article_links())
    assert {canonical(u) for u in spec["index"]["pager"]} <= set(page.index_links())


def test_comments_on_a_page_of_their_own_belong_to_the_post() -> None:
    site = "flatpress-1.5.1"
    spec = json.loads((FIXTURES / site / "expected.json").read_text())["post.html"]
    page = _page(site, "post.html", spec["url"])
    comments_page = canonical(spec["comments_page"])
    assert page.comment_pages(canonical(spec["url"])) == {comments_page: 0}
    assert post_of(comments_page) == canonical(spec["url"])


def test_a_blog_item_with_several_posts_is_a_listing() -> None:
    # schema.org microdata: one BlogPosting in a Blog item is a post (the Textpattern fixture),
    # several are an index page
    when.prepare()
    post = """<div itemprop="blogPost" itemscope itemtype="https://schema.org/BlogPosting">
      <h2 itemprop="headline"><a href="/p{n}">Post {n}</a></h2>
      <time itemprop="datePublished" datetime="2024-01-0{n}T10:00:00Z">Jan {n}</time>
      <div itemprop="articleBody"><p>Body {n}.</p></div></div>"""
    html = ('<html><body><main itemscope itemtype="https://schema.org/Blog">'
            + "".join(post.format(n=n) for n in (1, 2)) + "</main></body></html>")
    page = BlogPage(HtmlResponse("http://h/", body=html.encode(), encoding="utf-8"))
    assert page.entry() is not None and page.entry().listing
    assert not page.is_article()
    assert {"http://h/p1", "http://h/p2"} <= set(page.article_links())
    # one post with its body beside teasers of others (related posts): the post
    teaser = post.format(n=2).replace('<div itemprop="articleBody"><p>Body 2.</p></div>', "")
    html = ('<html><body><main itemscope itemtype="https://schema.org/Blog">'
            + post.format(n=1) + teaser + "</main></body></html>")
    page = BlogPage(HtmlResponse("http://h/p1", body=html.encode(), encoding="utf-8"))
    assert page.is_article()
    assert (page.article()["title"], _text(page.article()["body_html"])) == ("Post 1", "Body 1.")


def test_a_post_s_comments_page_is_read_for_the_post() -> None:
    # FlatPress: the post page links "4 comments" to …/comments/, where the comments are; the
    # comments become the post's, and the index's links to comments pages lead to the posts.
    when.prepare()
    site = FIXTURES / "flatpress-1.5.1"
    spec = json.loads((site / "expected.json").read_text())
    post, comments_page = spec["post.html"]["url"], spec["comments.html"]["url"]
    spider = BlogSpider.from_crawler(get_crawler(BlogSpider), start_url=spec["index.html"]["url"])
    page = HtmlResponse(post, body=(site / "post.html").read_bytes(), encoding="utf-8")
    out = list(spider.parse_page(page, False))
    assert [a.url for a in out if isinstance(a, Article)] == [canonical(post)]
    follow = [r for r in out if isinstance(r, Request)]
    assert [(canonical(r.url), r.callback, r.cb_kwargs["article_url"]) for r in follow] == [
        (canonical(comments_page), spider.parse_comment_page, canonical(post))]
    reply = HtmlResponse(follow[0].url, body=(site / "comments.html").read_bytes(),
                         encoding="utf-8", request=follow[0])
    got = [c for c in follow[0].callback(reply, **follow[0].cb_kwargs)
           if isinstance(c, Comment)]
    assert [(c.article_url, c.author) for c in got] == [
        (canonical(post), c["author"]) for c in spec["comments.html"]["comments"]]
    index = HtmlResponse(spec["index.html"]["url"], body=(site / "index.html").read_bytes(),
                         encoding="utf-8")
    listed = {r.url for r in spider.parse_listing(index) if isinstance(r, Request)}
    assert {canonical(u) for u in spec["index.html"]["index"]["posts"]} <= listed
    assert not any("/comments" in unquote(u) for u in listed)


@pytest.mark.parametrize("feed_first", [True, False])
def test_a_post_showing_only_its_age_takes_date_and_author_from_a_summary_feed(
        feed_first: bool) -> None:
    # Mezzanine: no <article>, no <time>, no metadata; the page says "2 years, 10 months ago".
    # Its RSS feed has no content:encoded, only a description (the post), its pubDate and
    # dc:creator: those date and name the post, the page gives its body.
    site = FIXTURES / "mezzanine-6.1.1"
    spec = json.loads((site / "expected.json").read_text())["post.html"]
    want = spec["feed_article"]
    spider = BlogSpider.from_crawler(get_crawler(BlogSpider), start_url="http://127.0.0.1:18218/")
    feed = XmlResponse("http://127.0.0.1:18218/feeds/rss/", body=(site / "rss.xml").read_bytes())
    page = HtmlResponse(spec["url"], body=(site / "post.html").read_bytes(), encoding="utf-8")
    assert not _page("mezzanine-6.1.1", "post.html", spec["url"]).is_article()
    spider.feeds[canonical(feed.url)] = False  # named by the home page, asked for first
    steps = [(spider.parse_feed, (feed,)), (spider.parse_page, (page, False))]
    items = [i for i in run_steps(steps if feed_first else steps[::-1])
             if isinstance(i, Article)]
    assert [(a.url, a.title, a.author) for a in items] == [
        (canonical(want["url"]), want["title"], want["author"])]
    assert _same_date(items[0].published_raw, want["published"])
    assert _text(items[0].body_html) == SCORER.normalise(want["body_text"])


def test_comments_nested_in_their_parent_s_block_showing_their_age() -> None:
    # Mezzanine: each comment a <div class="comment media"> whose replies are nested in it
    # (Bootstrap's media object), beside "Link | Reply", a rating widget and a reply form; its
    # heading "<h4>Dave Reader <small>2 years, 10 months ago</small></h4>" names the author.
    when.prepare()
    spec = json.loads((FIXTURES / "mezzanine-6.1.1" / "expected.json").read_text())["post.html"]
    html = (FIXTURES / "mezzanine-6.1.1" / "post.html").read_text()
    got = comment_blocks(html, spec["url"], spec["url"])
    assert [{"comment_id": c["comment_id"], "author": c["author"], "parent_id": c["parent_id"],
             "body_text": _text(c["body_html"]), "shown": " ".join(c["created_raw"].split())}
            for c in got] == [
        {**c, "body_text": SCORER.normalise(c["body_text"])} for c in spec["aged_comments"]]


@pytest.mark.parametrize(("site", "name", "spec"), [p for p in PAGES if p[2].get("static")],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_an_undated_page_saying_og_type_article_is_no_post(site: str, name: str,
                                                           spec: dict[str, Any]) -> None:
    # Typecho's "About" page: og:type=article and a BlogPosting item, but no date anywhere
    page = _page(site, name, spec["url"])
    assert not page.is_article()
