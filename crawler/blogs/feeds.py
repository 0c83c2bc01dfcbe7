"""Feed entries as articles: RSS ``content:encoded`` and Atom ``content`` carry whole posts.

:func:`feed_entries` reads a feed with feedparser (RSS 0.9x/1.0/2.0, Atom 0.3/1.0) into plain
article fields by entry link. The ``blog`` spider uses them for pages whose markup declares no
article (no h-entry, hAtom, schema.org, Open Graph or lone ``<article>``): the page's own markup
comes first, the feed second. A summary-only entry (RSS ``description``, Atom ``summary``)
dates and names the post of a page that shows no date; a feed whose content is an excerpt of the
page's post (its first paragraphs) gives way to the page's body (:func:`whole_body`).
"""

from __future__ import annotations

from collections.abc import Iterator
from time import strftime
from typing import Any

import feedparser
from w3lib.html import remove_tags, replace_entities

from crawler.blogs.byline import author_name
from crawler.blogs.urls import canonical
from crawler.learn.when import has_clock, parse_date

__all__ = ["comment_entries", "day_instant", "feed_entries", "feed_links", "whole_body"]


def feed_links(response: Any) -> Iterator[tuple[str, str]]:
    """(absolute link, what the entry says of it: its dates and comment count) per RSS item
    or Atom entry of the feed *response*; the second changes when the article does."""
    for node in response.xpath("//item | //*[local-name()='entry']"):
        link = node.xpath(
            "link/text() | *[local-name()='link'][not(@rel) or @rel='alternate']/@href").get()
        if link:
            said = node.xpath("*[local-name()='pubDate' or local-name()='updated' or "
                              "local-name()='published' or local-name()='comments']/text()")
            yield response.urljoin(link.strip()), "|".join(said.getall())


def feed_entries(body: bytes, base_url: str) -> dict[str, dict[str, Any]]:
    """Article fields of each entry with full content, by canonical link."""
    parsed = feedparser.parse(body, response_headers={"content-location": base_url})
    found = {}
    for entry in parsed.entries:
        link = entry.get("link")
        # a summary-only entry (RSS description, Atom summary) still dates and names the post
        # of a page that shows neither; its text is the body only where the page gives none
        contents = [c for c in entry.get("content") or [] if c.get("value")] or [
            {"value": entry.get("summary") or ""}]
        if not link or not (published := entry.get("published") or entry.get("updated")):
            continue
        html = max(contents, key=lambda c: len(c["value"]))["value"] or None
        parsed_date = entry.get("published_parsed") or entry.get("updated_parsed")
        found[canonical(link)] = {
            "url": canonical(link),
            "title": entry.get("title"),
            "author": author_name(entry.get("author")),
            # feedparser keeps the feed's own text; its parsed form is UTC.
            "published_raw": (
                strftime("%Y-%m-%dT%H:%M:%S+00:00", parsed_date) if parsed_date else published
            ),
            "updated_raw": entry.get("updated") if entry.get("updated") != published else None,
            "tags": [t["term"] for t in entry.get("tags") or [] if t.get("term")],
            "categories": [],
            "body_html": html,
        }
    return found


def comment_entries(body: bytes, base_url: str, article_url: str) -> list[dict[str, Any]]:
    """Comment records of a post's own comment feed (its entries: author, instant, text), for
    themes that show comments without their dates; the id is the anchor its link names on the
    post's page (``#comment_1``), else the entry's id."""
    found = []
    for entry in feedparser.parse(body, response_headers={"content-location": base_url}).entries:
        contents = [c.get("value") for c in entry.get("content") or [] if c.get("value")]
        parsed = entry.get("published_parsed") or entry.get("updated_parsed")
        link = entry.get("link") or ""
        if canonical(link.split("#", 1)[0]) != canonical(article_url):
            continue  # a comment of another post
        found.append({
            "article_url": article_url,
            "comment_id": link.split("#", 1)[1] if "#" in link else entry.get("id") or link,
            "author": author_name(entry.get("author")),
            "created_raw": strftime("%Y-%m-%dT%H:%M:%S+00:00", parsed) if parsed else None,
            "body_html": (contents or [entry.get("summary") or ""])[0] or None,
            "parent_id": None,
        })
    return [c for c in found if c["body_html"]]


def whole_body(feed_html: str | None, page_html: str | None) -> str | None:
    """The page's post body where the feed entry's content is an excerpt of it (the same text,
    shorter) or has none, else the feed's."""
    feed, page = _plain(feed_html), _plain(page_html)
    if not feed:
        return page_html
    if page and len(page) > len(feed) and feed.rstrip(".…") in page:
        return page_html
    return feed_html


def _plain(markup: str | None) -> str:
    return " ".join(replace_entities(remove_tags(markup or "")).split())


def day_instant(shown: str | None, instant: str | None) -> str | None:
    """*instant* (a feed entry's, a page's metadata) where the post shows only its day
    (``Jan. 5, 2024``, ``<time>05 January 2024</time>``) and *instant* falls on that day;
    else what the post shows."""
    if (shown and not has_clock(shown) and instant and has_clock(instant)
            and (parse_date(shown) or "")[:10] == instant[:10]):
        return instant
    return shown or instant
