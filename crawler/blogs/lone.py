"""A post its page declares with no vocabulary (no h-entry, hAtom or schema.org): a lone
``<article>``, the page's ``<main>``, else the block around the post's heading.

* **Several ``<article>``s**: the post is the one whose heading does not link to another page;
  the others are teasers of other posts (a sidebar's last and popular entries, related posts);
  none or several such: a list of posts.
* **No ``<article>``**: the page's ``<main>`` holding one ``<h1>`` (documentation layouts show
  the date in a sidebar), else the block around the heading the page's ``<title>`` holds (the
  longest: the site's name is there too) up to its one date shown as text, with a year
  (``written by NAME on 2024-01-05``, ``vendredi, janvier 5 2024``); a block reaching a second
  date first is a list, none is no post.
* A post whose heading links to other pages twice, or whose dates sit beside links to other
  pages, is a list of posts (an archive page in one ``<article>``).

:func:`lone_post` gives the post's fields as its page shows them, ``{"listing": True}`` for a
list of posts, or None; :func:`lists_posts` says whether a page without a post lists posts.
"""

from __future__ import annotations

import copy
import re
from typing import Any
from urllib.parse import urljoin

from lxml import etree
from w3lib.url import canonicalize_url

from crawler.blogs.byline import dated_byline, post_author
from crawler.blogs.content import drop_keeping_tail, post_body, text_block
from crawler.learn.dom import element_text
from crawler.learn.when import find_date, parse_date

__all__ = ["linked_terms", "lists_posts", "lone_post", "text_date", "time_shown"]

_YEAR = re.compile(r"\d{4}")
_HEADING = "*[self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6]"
_TOP_ARTICLES = ("//article[not(ancestor::article)]"
                 "[not(ancestor-or-self::*[contains(@class, 'comment')])]")


def lone_post(root: etree._Element) -> dict[str, Any] | None:
    # a comment list in an <article> of its own ("commentary") is not a second post
    url = root.base_url or ""
    articles = root.xpath(_TOP_ARTICLES)
    if len(articles) > 1:
        # the others are teasers: of other posts, or of this one (a "last entries" card
        # linking here, with no paragraph of text)
        posts = [a for a in articles if not _teaser(a, url) and a.xpath(".//p")]
        if len(posts) != 1:
            return {"listing": True}
        articles = posts
    article = articles[0] if articles else _main_post(root)
    if article is None:
        return _titled_block(root)
    if _lists_posts(article, url):
        return {"listing": True}
    heading = article.xpath(".//h1 | .//h2")
    if not heading:
        return None
    # Documentation layouts put the date and the author in a sidebar beside the article.
    # Undated: a static page, or a post only its feed dates (is_article says no; the feed path
    # still takes its body where the feed carries an excerpt).
    # A date only inside a line of words ("written by NAME on 2024-01-05"): that line is the
    # byline, not the text.
    shown = time_shown(article) or text_date(article)
    line = None if shown else _byline_line(article)
    text = element_text(line) if line is not None else ""
    raw = shown or find_date(text) or _only_time(root) or _only_text_date(root, article)
    body = text_block(article if line is None else _without(article, [line]))
    return {
        "title": _heading_text(heading[0]),
        "author": post_author(root, article) or (dated_byline(text) if text else None),
        "published": raw,
        "tags": linked_terms(article, "tag"),
        "categories": linked_terms(article, "category"),
        "body_html": post_body(body, drop=("header", "footer", "h1", "nav")),
    }


def lists_posts(root: etree._Element, url: str) -> bool:
    """The page's body lists posts: two headings linking to other pages, or two dates each
    beside a link to another page (a blog's list of whole posts at ``/blog/``)."""
    body = root.find("body")
    return body is not None and _lists_posts(body, url)


def _teaser(article: etree._Element, url: str) -> bool:
    """The article's heading links to another page (a teaser of that post)."""
    here = canonicalize_url(url)
    hrefs = article.xpath(f".//{_HEADING}//a/@href | .//a[.//{_HEADING}]/@href")
    return any(canonicalize_url(urljoin(url, h)) != here for h in hrefs if h.strip("#"))


def _titled_block(root: etree._Element) -> dict[str, Any] | None:
    """The post of a page with neither ``<article>`` nor ``<main>``: the block from the heading
    the page's ``<title>`` holds up to the one date it shows (see the module's docstring)."""
    title = " ".join((root.findtext(".//title") or "").split())
    headings = [h for h in root.xpath("//body//*[self::h1 or self::h2 or self::h3]")
                if element_text(h) and element_text(h) in title]
    if not headings:
        return None
    heading = max(headings, key=lambda h: len(element_text(h)))
    for block in heading.iterancestors():
        if block.tag in ("body", "html"):
            return None
        dates = _date_lines(block)
        if len(dates) > 1:
            return None
        if dates:
            return _block_post(root, block, heading, dates[0])
    return None


def _byline_line(article: etree._Element) -> etree._Element | None:
    """The one line of *article* (comments left out) whose words hold a date."""
    lines = [n for n in _date_lines(article) if not n.xpath(
        "ancestor-or-self::*[contains(@class, 'comment') or contains(@id, 'comment')]")]
    return lines[0] if len(lines) == 1 else None


def _date_lines(scope: etree._Element) -> list[etree._Element]:
    """Innermost elements whose short text holds a date with its year."""
    found: list[etree._Element] = []
    for node in scope.iter():
        if not isinstance(node.tag, str) or node.tag in ("script", "style", "form"):
            continue
        text = element_text(node)
        date = find_date(text) if len(text) <= 120 else None
        if date and _YEAR.search(date):
            found = [f for f in found if f not in node.iterancestors()] + [node]
    return found


def _block_post(root: etree._Element, block: etree._Element, heading: etree._Element,
                date: etree._Element) -> dict[str, Any]:
    line = date
    while line.getparent() is not block and len(element_text(line.getparent())) <= 200:
        line = line.getparent()
    return {
        "title": _heading_text(heading),
        "author": post_author(root, block) or dated_byline(element_text(date)),
        "published": find_date(element_text(date)),
        "tags": linked_terms(block, "tag"),
        "categories": linked_terms(block, "category"),
        "body_html": post_body(_without(block, [heading, line]),
                               drop=("header", "footer", "nav")),
    }


def _without(block: etree._Element, parts: list[etree._Element]) -> etree._Element:
    """A copy of *block* less *parts* (elements of it: the title, the byline's line)."""
    paths = [[n.getparent().index(n) for n in [p, *p.iterancestors()]
              if n is not block and block in n.iterancestors()] for p in parts]
    clone = copy.deepcopy(block)
    twins = []
    for path in paths:
        node = clone
        for step in reversed(path):
            node = node[step]
        twins.append(node)
    for twin in twins:
        drop_keeping_tail(twin)
    return clone


def _lists_posts(scope: etree._Element, url: str) -> bool:
    """Two or more dates each beside a link to another page, or two or more headings linking to
    other pages: a list of posts (an archive or category page in one ``<article>`` or
    ``<main>``), not a post."""
    here = canonicalize_url(url)
    titles = scope.xpath(".//h2//a/@href | .//h3//a/@href")
    if sum(canonicalize_url(urljoin(url, h)) != here for h in titles if h.strip("#")) >= 2:
        return True  # two or more post titles linking to their posts
    listed = 0
    for date in scope.xpath(".//time[not(ancestor::*[contains(@class, 'comment') or "
                            "contains(@id, 'comment')])]"):
        parent = date.getparent()
        links = parent.xpath(".//a/@href") if parent is not None and parent.tag != "a" else []
        listed += any(canonicalize_url(urljoin(url, h)) != here for h in links if h.strip("#"))
    return listed >= 2


def _main_post(root: etree._Element) -> etree._Element | None:
    """Without ``<article>``: the page's ``<main>`` when it holds one post, one ``<h1>`` and at
    most one date (a listing shows several; documentation layouts show it in a sidebar)."""
    mains = root.xpath("//main | //*[@role='main']")
    if len(mains) != 1 or len(mains[0].xpath(".//h1")) != 1 or len(mains[0].xpath(".//time")) > 1:
        return None
    return mains[0]


def time_shown(scope: etree._Element) -> str | None:
    date = scope.xpath(".//time")
    return (date[0].get("datetime") or element_text(date[0])) if date else None


def _only_time(root: etree._Element) -> str | None:
    """The page's date when it shows exactly one (a post page's sidebar)."""
    dates = root.xpath("//time[@datetime][not(ancestor::*[contains(@class, 'comment')])]")
    return dates[0].get("datetime") if len(dates) == 1 else None


def _only_text_date(root: etree._Element, article: etree._Element) -> str | None:
    """The one date shown as text beside the post (a documentation layout's sidebar), outside
    the page's header and footer; none when the page shows several (lists of posts)."""
    dates = []
    for node in root.iter():
        if not isinstance(node.tag, str) or len(node) > 3 or node is article:
            continue
        if node.xpath("ancestor::header | ancestor::footer | ancestor::script | ancestor::style"):
            continue
        text = element_text(node)
        if 6 <= len(text) <= 40 and parse_date(text):
            dates = [d for d in dates if d[0] not in node.iterancestors()] + [(node, text)]
    return dates[0][1] if len(dates) == 1 else None


def _heading_text(heading: etree._Element) -> str:
    """The heading less its own permalink anchor (Sphinx's and MkDocs' "¶", "#")."""
    clone = copy.deepcopy(heading)
    for anchor in clone.xpath(".//a[starts-with(@href, '#')]"):
        if len(element_text(anchor)) <= 2:
            drop_keeping_tail(anchor)
    return element_text(clone) or element_text(heading)


def text_date(scope: etree._Element) -> str | None:
    for node in scope.iter():
        if isinstance(node.tag, str) and len(node) <= 3:
            text = element_text(node)
            if 6 <= len(text) <= 40 and parse_date(text):
                return text
    return None


def linked_terms(scope: etree._Element, kind: str) -> list[str]:
    """Tag or category names: ``rel=tag`` links, else links into ``/tag/`` (``/category/``)."""
    rel = scope.xpath(f".//a[contains(concat(' ', normalize-space(@rel), ' '), ' {kind} ')]")
    links = rel or scope.xpath(f".//a[contains(@href, '/{kind}/') or contains(@href, '/{kind}s/')]")
    return list(dict.fromkeys(t for t in (element_text(a) for a in links) if t))
