"""The article a blog page declares, from its own markup: microformats, hAtom classes,
schema.org, or a lone ``<article>``.

:func:`find_entry` tries, in order:

1. **h-entry** (microformats 2, and hAtom ``hentry`` through mf2py's backward-compatible parsing,
   via extruct): name, author h-card, ``published``/``updated``, ``category``, ``e-content`` and
   ``comment`` entries;
2. **hAtom classes without an ``hentry`` root** (Pelican's default theme): one ``.entry-title``,
   one ``.entry-content``, ``.published`` (``abbr[title]``, ``time[datetime]``), ``.vcard.author
   .fn``, ``rel=tag`` / ``/tag/`` links;
3. **schema.org** ``BlogPosting``/``Article`` in JSON-LD or microdata (``articleBody``);
4. no vocabulary (:mod:`crawler.blogs.lone`): a lone **``<article>``** (among teasers of other
   posts), a ``<main>``, or the block around the heading the page's ``<title>`` holds, with its
   date in it or the page's only date (sidebars of documentation layouts); undated, it is no
   article by itself (its feed may date it).

Two or more entries on a page make it a listing (:attr:`Entry.listing`), not an article. The body
is the declared content element less the metadata some themes put inside it (Pelican's
``footer.post-info`` with the date, byline and tags). Values are as the page shows them; the
pipelines normalize dates.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from lxml import etree, html
from w3lib.url import canonicalize_url

from crawler import jsonld
from crawler.blogs.byline import author_name, find_byline
from crawler.blogs.content import clean_html, post_body
from crawler.blogs.lone import linked_terms, lone_post, text_date, time_shown
from crawler.learn.dom import element_text, has_class_xpath
from crawler.learn.when import has_clock

logger = logging.getLogger(__name__)

__all__ = ["Entry", "find_entry"]

ARTICLE_TYPES = {"Article", "BlogPosting", "NewsArticle", "TechArticle", "Report",
                 "SocialMediaPosting"}
_DATE_TEXT = re.compile(r"\d{4}|\d{1,2}:\d{2}")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\b\.?)?", re.IGNORECASE)


@dataclass
class Entry:
    source: str
    title: str | None = None
    author: str | None = None
    published: str | None = None
    updated: str | None = None
    tags: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    body_html: str | None = None
    comments: list[dict[str, Any]] = field(default_factory=list)
    #: The page lists several entries: a listing, not an article.
    listing: bool = False


def find_entry(text: str, url: str) -> Entry | None:
    root = html.document_fromstring(text.encode("utf-8"), parser=html.HTMLParser(encoding="utf-8"),
                                    base_url=url)
    import extruct  # noqa: PLC0415 - on first use: it pulls in rdflib, mf2py and bs4

    try:
        data = extruct.extract(text, base_url=url, syntaxes=["microformat", "json-ld", "microdata"],
                               uniform=False)
    except Exception:  # noqa: BLE001 - extruct raises whatever its parsers raise on broken markup
        logger.debug("extruct failed on %(url)s", {"url": url}, exc_info=True)
        data = {}
    for finder in (_h_entry, _hatom, _schema, _article):
        entry = finder(root, data)
        if entry is not None:
            if not entry.listing and entry.source != "schema" and _links_away(root, url):
                # One entry whose title links to another page: a listing page with one post.
                return Entry(entry.source, listing=True)
            return entry
    return None


def _links_away(root: etree._Element, url: str) -> bool:
    here = canonicalize_url(url)
    titles = root.xpath(
        f"//*[{has_class_xpath('entry-title')} or {has_class_xpath('p-name')}]//a[@href]"
        " | //article[not(ancestor::article)]//h1//a[@href]"
        " | //article[not(ancestor::article)]//h2//a[@href]")
    return any(canonicalize_url(urljoin(url, a.get("href") or "")) != here for a in titles)


# -- microformats ------------------------------------------------------------------------------
def _h_entries(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for item in items:
        if "h-entry" in item.get("type", []):
            found.append(item)
        elif "h-feed" in item.get("type", []):
            found += [c for c in item.get("children", []) if "h-entry" in c.get("type", [])]
    return found


def _h_entry(root: etree._Element, data: dict[str, Any]) -> Entry | None:
    entries = _h_entries(data.get("microformat") or [])
    if len(entries) > 1:
        return Entry("h-entry", listing=True)
    if not entries or not entries[0]["properties"].get("content"):
        return None
    props = entries[0]["properties"]
    content = props["content"][0]
    body = content.get("html") if isinstance(content, dict) else str(content)
    return Entry(
        "h-entry",
        title=_first_text(props.get("name")),
        author=_person(props.get("author")),
        published=_first_text(props.get("published")),
        updated=_first_text(props.get("updated")),
        **_terms(root, [t for t in (_text(c) for c in props.get("category", [])) if t]),
        body_html=clean_html(body) if body else None,
        comments=[_mf_comment(c) for c in props.get("comment", []) if isinstance(c, dict)],
    )


def _terms(root: etree._Element, names: list[str]) -> dict[str, list[str]]:
    """h-entry ``category`` mixes tags and categories (hAtom reads ``rel=tag`` links, and
    WordPress marks category links ``rel="category tag"``): split them by ``rel``."""
    scope = (root.xpath(f"//*[{has_class_xpath('h-entry')} or "
                        f"{has_class_xpath('hentry')}]") or [root])[0]
    categories = (linked_terms(scope, "category")
                  if scope.xpath(".//a[contains(@rel, 'category')]") else [])
    rel_tags = scope.xpath(".//a[contains(concat(' ', normalize-space(@rel), ' '), ' tag ')]"
                           "[not(contains(concat(' ', normalize-space(@rel), ' '), ' category '))]")
    if rel_tags or categories:
        tags = list(dict.fromkeys(t for t in (element_text(a) for a in rel_tags) if t))
    else:
        tags = names
    return {"tags": tags, "categories": categories}


def _mf_comment(item: dict[str, Any]) -> dict[str, Any]:
    props = item.get("properties", {})
    content = (props.get("content") or [""])[0]
    return {
        "comment_id": _first_text(props.get("url")) or "",
        "author": _person(props.get("author")),
        "created_raw": _first_text(props.get("published")),
        "body_html": content.get("html") if isinstance(content, dict) else str(content),
    }


def _text(value: Any) -> str | None:
    if isinstance(value, dict):
        return _text(value.get("value") or (value.get("properties", {}).get("name") or [None])[0])
    return str(value).strip() if value else None


def _first_text(values: list[Any] | None) -> str | None:
    return _text(values[0]) if values else None


def _person(values: list[Any] | None) -> str | None:
    if not values:
        return None
    value = values[0]
    if isinstance(value, dict):
        return _first_text(value.get("properties", {}).get("name")) or _text(value.get("value"))
    return _text(value)


# -- hAtom classes without a root ----------------------------------------------------------------
def _by_class(root: etree._Element, token: str) -> list[etree._Element]:
    return root.xpath(f"//*[{has_class_xpath(token)}]")


def _hatom(root: etree._Element, data: dict[str, Any]) -> Entry | None:
    contents, titles = _by_class(root, "entry-content"), _by_class(root, "entry-title")
    if len(contents) > 1 or len(titles) > 1:
        return Entry("hatom", listing=True) if titles else None
    if not contents or not titles:
        return None
    scope = _common_ancestor(contents[0], titles[0])
    published = _class_date(scope, "published") or _class_date(scope, "dt-published")
    author = (scope.xpath(f".//*[{has_class_xpath('author')}]//*[{has_class_xpath('fn')}]")
              or scope.xpath(f".//*[{has_class_xpath('author')}]"))
    return Entry(
        "hatom",
        title=element_text(titles[0]) or None,
        author=element_text(author[0]) if author else None,
        published=published,
        updated=_class_date(scope, "updated"),
        tags=linked_terms(scope, "tag"),
        categories=linked_terms(scope, "category"),
        body_html=post_body(contents[0]),
    )


def _class_date(scope: etree._Element, token: str) -> str | None:
    for node in scope.xpath(f".//*[{has_class_xpath(token)}]"):
        for value in (node.get("datetime"), node.get("title"), element_text(node)):
            if value and _DATE_TEXT.search(value):
                return value.strip()
    return None


def _common_ancestor(a: etree._Element, b: etree._Element) -> etree._Element:
    ancestors = {id(x) for x in a.iterancestors()} | {id(a)}
    for node in b.iterancestors():
        if id(node) in ancestors and node.tag in ("article", "section", "div", "main", "body"):
            return node
    return a.getroottree().getroot()


# -- schema.org ----------------------------------------------------------------------------------
def _schema(root: etree._Element, data: dict[str, Any]) -> Entry | None:
    items = [i for i in jsonld.objects(data.get("json-ld") or [])
             if jsonld.types(i) & ARTICLE_TYPES]
    microdata = _microdata_articles(data.get("microdata") or [])
    if len(microdata) > 1:
        # a Blog item with several blogPost items: an index page, unless one alone has a body
        # (the post, the others teasers of related posts)
        microdata = [i for i in microdata if (i.get("properties") or {}).get("articleBody")]
        if len(microdata) != 1:
            return Entry("schema", listing=True)
    items += [i.get("properties", {}) | {"@type": i.get("type")} for i in microdata]
    if not items:
        return None
    item = items[0]
    node = root.xpath("//*[@itemprop='articleBody']")
    author = item.get("author")
    author = author[0] if isinstance(author, list) and author else author
    keywords = item.get("keywords") or []
    return Entry(
        "schema",
        title=_text(item.get("headline") or item.get("name")),
        author=author_name(_schema_name(author)) or (find_byline(root) if author else None),
        published=_text(item.get("datePublished")) or _shown_date(root),
        updated=_text(item.get("dateModified")),
        tags=[k.strip() for k in (keywords.split(",") if isinstance(keywords, str) else keywords)
              if k and k.strip()],
        categories=[c for c in ([item["articleSection"]]
                                if isinstance(item.get("articleSection"), str)
                                else item.get("articleSection") or []) if c and str(c).strip()],
        body_html=post_body(node[0]) if node else None,
    )


def _shown_date(root: etree._Element) -> str | None:
    """A microdata article that declares no date: the day it shows (a per-day heading) with
    the time of day shown elsewhere in it ("Posted by Alice at 09:30")."""
    scopes = [n for n in root.xpath("//*[@itemscope][@itemtype]")
              if n.get("itemtype", "").rstrip("/").rsplit("/", 1)[-1] in ARTICLE_TYPES]
    if not scopes:
        return None
    day = time_shown(scopes[0]) or text_date(scopes[0])
    if not day or has_clock(day):
        return day
    texts = scopes[0].xpath(".//text()[not(ancestor::*[@itemprop='articleBody'])]")
    clock = next((m.group(0) for m in map(_CLOCK.search, texts) if m), None)
    return f"{day} {clock}" if clock else day


def _schema_name(person: Any) -> str | None:
    """A Person's name: JSON-LD ``{"name": …}``, microdata ``{"properties": {"name": …}}``, or
    the name itself."""
    if isinstance(person, dict):
        name = person.get("name") or (person.get("properties") or {}).get("name")
        return _schema_name(name[0] if isinstance(name, list) and name else name)
    return _text(person)


def _microdata_articles(items: list[Any]) -> list[dict[str, Any]]:
    """The article items of the page's microdata, top-level or a property of another item
    (a ``Blog``'s ``blogPost``, a ``WebPage``'s ``mainEntity``)."""
    found = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if jsonld.types({"@type": item.get("type")}) & ARTICLE_TYPES:
            found.append(item)
            continue
        for value in (item.get("properties") or {}).values():
            found += _microdata_articles(value if isinstance(value, list) else [value])
    return found


# -- no vocabulary -------------------------------------------------------------------------------
def _article(root: etree._Element, data: dict[str, Any]) -> Entry | None:
    found = lone_post(root)
    return Entry("article", **found) if found is not None else None
