"""The learned site template: plain data, serializable to JSON.

A :class:`Template` holds, for one site, what a profile would hold: which URLs are threads and
boards, the post record and its fields as XPath rules, the thread title and breadcrumbs, the
pagination scheme and the quirks (pages repeating the opening post). It is learned once from
the first pages of a site (:mod:`crawler.learn.learner`) and then applied to every page
(:mod:`crawler.learn.apply`), which costs a handful of XPath evaluations per page.

``Template.to_json()`` / ``Template.from_json()`` round-trip exactly; a template is small
(a few kB), so a cluster can keep one per host in Redis. :func:`crawler.learn.apply.matches`
says whether a thread page still fits it (a theme change makes it fail, and the site is learned
again).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Self
from urllib.parse import urlsplit

__all__ = ["FORMAT", "FieldRule", "Paging", "PostRules", "Template", "TitleRule"]

_ESCAPE = re.compile(r"%[0-9a-f][0-9a-fA-F]|%[0-9A-F][a-f]")

#: Bumped when the JSON layout changes; older templates are learned again.
FORMAT = 1


@dataclass
class FieldRule:
    """Where a field sits in a record: a relative XPath, which value of the node, a regex."""

    xpath: str
    #: ``"."`` all text, ``"text()"`` the node's own text, ``"@name"`` an attribute,
    #: ``"html"`` markup.
    value: str = "."
    #: Group 1 is the value (author ids in hrefs, numbers in "#12").
    regex: str | None = None
    #: For records spread over several table rows: the row holding the field.
    row: int = 0

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Self | None:
        if not data:
            return None
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class PostRules:
    #: Absolute XPath of the post records (the first row of a record for table layouts).
    record: str
    span: int = 1
    author: FieldRule | None = None
    author_id: FieldRule | None = None
    date: FieldRule | None = None
    body: FieldRule | None = None
    position: FieldRule | None = None
    post_id: FieldRule | None = None
    #: Relative XPaths removed from the body: signatures, and the header when the body is the
    #: record itself.
    body_strip: list[str] = field(default_factory=list)
    #: Added to the number a position rule reads (NodeBB's ``data-index`` counts from 0).
    position_delta: int = 0
    #: ``"day"`` when the site shows dates without a clock time.
    date_precision: str = "time"
    #: ``"DMY"``/``"MDY"``: the order of the site's numeric display dates (``08/03/2024``).
    date_order: str | None = None
    #: The UTC offset the site's pages state their times in (``+08:00``), for dates without one.
    utc_offset: str | None = None
    #: Posts read from data, not markup (JSON-LD, a front end's JSON): see
    #: :mod:`crawler.learn.embedded`; ``record`` and the field rules are then unused.
    data: dict[str, Any] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        rules = {
            name: FieldRule.from_dict(data.get(name))
            for name in ("author", "author_id", "date", "body", "position", "post_id")
        }
        return cls(
            record=data["record"],
            span=int(data.get("span", 1)),
            body_strip=list(data.get("body_strip") or []),
            position_delta=int(data.get("position_delta", 0)),
            date_precision=data.get("date_precision", "time"),
            date_order=data.get("date_order"),
            utc_offset=data.get("utc_offset"),
            data=data.get("data"),
            **rules,
        )


@dataclass
class TitleRule:
    #: Absolute XPath of the title element, else ``None`` (then ``<title>`` minus the affixes).
    xpath: str | None = None
    #: Site-name parts of ``<title>`` ("- My Forum", "Forum |"), removed when ``xpath`` is None.
    strip: list[str] = field(default_factory=list)


@dataclass
class Paging:
    """How a thread's (or board's) pages are addressed.

    ``kind``: ``"param"`` (``?page=N``; ``step`` > 1 for ``start=``/offset forms, with ``base``
    the first page's value), ``"path"`` (``regex`` with one group, the number in the path:
    ``/page/N``, ``-N.html``, ``topic=3.15``), or ``"next"`` (only a next link, ``next_xpath``).
    """

    kind: str = "next"
    param: str | None = None
    regex: str | None = None
    step: int = 1
    base: int = 1
    next_xpath: str | None = None

    @property
    def is_offset(self) -> bool:
        return self.step > 1


@dataclass
class Template:
    """What the learner knows about one site; see the module docstring."""

    host: str
    posts: PostRules
    #: Regex over a URL (path and query) with a group ``tid``: thread pages.
    thread_url: str
    #: Query parameters a thread URL keeps (id, fixed ones such as ``mod=viewthread``, the page);
    #: the rest are views of the same posts or traps (SMF ``prev_next``). Empty: path URLs.
    thread_params: list[str] = field(default_factory=list)
    #: Regex with a group ``bid``: board (thread list) pages.
    board_url: str | None = None
    #: Where thread pages write the thread's id when their URLs name it by a slug: ``xpath``
    #: of attribute values and ``regex`` with one group (:mod:`crawler.learn.page_ids`).
    thread_id_in_page: dict[str, str] | None = None
    #: The same for board pages named by a slug (their number, written on the board's page).
    board_id_in_page: dict[str, str] | None = None
    title: TitleRule = field(default_factory=TitleRule)
    #: Absolute XPath of the breadcrumb links, root first.
    breadcrumbs: str | None = None
    paging: Paging = field(default_factory=Paging)
    board_paging: Paging | None = None
    #: Thread-list rows on board pages, and the thread link inside a row.
    thread_row: str | None = None
    thread_link: str | None = None
    #: Pages after the first show the opening post again on top / the previous page's last post.
    repeats_first_post: bool = False
    repeats_last_post: bool = False
    #: Posts on a full first page; new posts on a full later page when a repeat on top makes
    #: them fewer or more (``None``: as many), see :mod:`crawler.learn.repeats`.
    posts_per_page: int | None = None
    later_page_posts: int | None = None
    #: The thread lists' count includes the opening post (posts, not replies).
    list_counts_posts: bool = False
    #: ``"html"`` (learned XPath rules) or ``"microdata"`` (schema.org itemprops).
    source: str = "html"
    #: Pages the template was learned from (for the record; not used when applying).
    learned_from: list[str] = field(default_factory=list)
    format: int = FORMAT

    # -- JSON ----------------------------------------------------------------------------------
    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        data = json.loads(text)
        if data.get("format") != FORMAT:
            raise ValueError(f"template format {data.get('format')!r}, expected {FORMAT}:"
                             " learn again")
        paging = data.get("board_paging")
        return cls(
            host=data["host"],
            posts=PostRules.from_dict(data["posts"]),
            thread_url=data["thread_url"],
            board_url=data.get("board_url"),
            thread_id_in_page=data.get("thread_id_in_page"),
            board_id_in_page=data.get("board_id_in_page"),
            thread_params=list(data.get("thread_params") or []),
            title=TitleRule(**data.get("title") or {}),
            breadcrumbs=data.get("breadcrumbs"),
            paging=Paging(**data.get("paging") or {}),
            board_paging=Paging(**paging) if paging else None,
            thread_row=data.get("thread_row"),
            thread_link=data.get("thread_link"),
            repeats_first_post=bool(data.get("repeats_first_post")),
            repeats_last_post=bool(data.get("repeats_last_post")),
            posts_per_page=data.get("posts_per_page"),
            later_page_posts=data.get("later_page_posts"),
            list_counts_posts=bool(data.get("list_counts_posts")),
            source=data.get("source", "html"),
            learned_from=list(data.get("learned_from") or []),
        )

    # -- URLs ----------------------------------------------------------------------------------
    def thread_id(self, url: str) -> str | None:
        match = re.search(self.thread_url, _path_query(url))
        return match.group("tid") if match else None

    def canonical_thread_url(self, url: str) -> str | None:
        """The URL that names this thread page: kept parameters only, path cut after the id
        segment and its slug; ``None`` for a URL that is not a plain thread page (a post
        permalink such as SMF's ``topic=3.msg21``)."""
        from crawler.learn.urls import clean_url, item_key  # urls does not import this module

        match = re.search(self.thread_url, _path_query(url))
        if not match:
            return None
        parts = urlsplit(clean_url(url))
        if self.thread_params:
            # An item without "=" is a route (``?thread-12-2.htm``): the params name it "".
            items = [i for i in re.split(r"[&;]", parts.query)
                     if item_key(i) in self.thread_params]
            sep = ";" if ";" in parts.query and "&" not in parts.query else "&"
            canonical = parts._replace(query=sep.join(items)).geturl()
        else:
            canonical = parts._replace(path=self._thread_path(parts.path, match.end("tid")),
                                       query=_page_query(parts.query, self.paging.param)).geturl()
        shared = self.paging.param and f"{re.escape(self.paging.param)}=(?P<tid>" in self.thread_url
        if self.paging.regex and shared:
            # The page shares its parameter with the id (SMF): it must read as a page value.
            if not re.search(self.paging.regex, _path_query(canonical)):
                return None
        return canonical

    def _thread_path(self, path: str, tid_end: int) -> str:
        """The path through the id's segment, its slug segment and a path page number
        (``/topic/101-slug/page/2/``); trailing parts (a post index, ``/unread``) dropped."""
        if not self.paging.regex:
            return path  # without a known page form, nothing after the id can be told apart
        head = path[:tid_end]
        rest = path[tid_end:].split("/")
        kept = rest[:1]
        if len(rest) > 1 and rest[1] and not rest[1].isdigit() and not (
                self.paging.regex and re.match(self.paging.regex, "/" + "/".join(rest[1:]))):
            kept.append(rest[1])
        tail = "/".join(rest[len(kept):])
        out = head + "/".join(kept)
        if self.paging.kind == "path":
            out += self._path_page(out, tail)
        if len(path) > len(out) and path[len(out)] == "/":
            out += "/"
        return out

    def _path_page(self, kept: str, tail: str) -> str:
        """The page part of ``tail`` (``/page/2``), also for a page regex written over the
        whole path (``^/t/[^/]+/\\d+/(\\d+)`` for ``/t/slug/22/2/``)."""
        whole = kept + "/" + tail
        page = re.search(self.paging.regex or "(?!)", whole)
        if page is None or page.start(1) < len(kept) or int(page.group(1)) == self.paging.base:
            return ""  # the first page is the thread's own URL (``/topic/61/1`` is ``/topic/61``)
        return whole[len(kept) : page.end()].rstrip("/?#")

    def board_id(self, url: str) -> str | None:
        if not self.board_url:
            return None
        match = re.search(self.board_url, _path_query(url))
        return match.group("bid") if match else None


def _page_query(query: str, param: str | None) -> str:
    return "&".join(i for i in query.split("&") if param and i.startswith(param + "="))


def _path_query(url: str) -> str:
    """Path and query, percent-escapes in upper case: ``%e5`` and ``%E5`` are one character
    (RFC 3986), and a page may link its own URL in the other case than the crawl asked it."""
    rest = url.split("://", 1)[-1]
    slash = rest.find("/")
    path = rest[slash:] if slash >= 0 else "/"
    return _ESCAPE.sub(lambda m: m.group().upper(), path) if "%" in path else path
