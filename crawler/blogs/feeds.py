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

__all__ = ["feed_entries", "feed_links", "whole_body"]


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
