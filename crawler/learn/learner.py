"""Learning a site template from its first pages.

:func:`learn_site` takes the pages fetched so far (any mix of index, board and thread pages)
and returns a :class:`~crawler.learn.template.Template`, or a :class:`NotLearned` saying what
was tried. Steps:

1. structured data first: pages whose posts are schema.org microdata get itemprop rules
   (:mod:`crawler.learn.structured`), else posts in JSON-LD or in the JSON a page embeds for its
   front end get a data rule (:mod:`crawler.learn.embedded`);
2. otherwise record mining on every page (:mod:`crawler.learn.records`); the pages with a post
   group, grouped by URL shape, give the thread pages, and the largest shape wins;
3. post rules from those pages (:mod:`crawler.learn.posts`), pagination from their pager links,
   the thread URL regex (the number that is not the page), title and breadcrumbs;
4. board pages are the other pages linking two or more thread URLs; their URL regex and
   pagination likewise;
5. quirks from consecutive pages of one thread: the opening post (or the previous page's last
   post) repeated on top, and the number of posts per page.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from lxml import etree

from crawler.learn.dom import is_inside
from crawler.learn.embedded import learn_data_rule, read_data_posts
from crawler.learn.floor import page_rules
from crawler.learn.opener import with_opener
from crawler.learn.page_ids import learn_board_id, learn_page_id
from crawler.learn.paging import learn_paging, page_links, page_number
from crawler.learn.posts import (
    Sample,
    check_positions,
    date_precision,
    learn_post_rules,
)
from crawler.learn.records import RecordGroup, mine_records
from crawler.learn.repeats import learn_repeats
from crawler.learn.structured import RECORD as MICRODATA_RECORD
from crawler.learn.structured import microdata_rules
from crawler.learn.template import Paging, PostRules, Template
from crawler.learn.thread import board_link, learn_breadcrumbs, learn_title, url_thread_regex
from crawler.learn.urls import (
    clean_url,
    fixed_params,
    id_position,
    id_regex_for,
    path_query,
    slots,
    slug_regex_for,
)
from crawler.learn.when import date_order, has_clock, stated_offset

__all__ = ["NotLearned", "Page", "learn_site", "url_shape"]

_PAGE_KEYS = {"page", "p", "pg", "start", "offset", "from", "pagenum", "paged"}


@dataclass
class Page:
    url: str
    root: etree._Element


@dataclass
class NotLearned:
    """Why no template came out: shown to the user in one line."""

    reason: str
    tried: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.reason} (tried: {', '.join(self.tried)})" if self.tried else self.reason


_PERMALINK = re.compile(r"(?:^|[/?&;._-])(?:p|pid|post|msg|comment|reply)[=_-]?\d", re.IGNORECASE)
_PATH_PAGE = re.compile(r"/(?:page|p|pg|seite|strona)[-/]?\d+/?$", re.IGNORECASE)


def url_shape(url: str) -> str:
    """Path with numbers and slugs wildcarded (a page number at its end dropped), plus the
    sorted non-page query keys: the pages of one kind share it."""
    parts = urlsplit(clean_url(url))
    segments = []
    for segment in _PATH_PAGE.sub("/", parts.path).split("/"):
        masked = re.sub(r"\d+", "#", segment)
        if re.search(r"[a-z%]{3}", masked, re.I) and len(masked) > 16:
            masked = "*"  # a title's slug, with a number or not (``how-to``, ``how-to-2``)
        elif re.search(r"[a-z%]{3}", masked, re.I) and "#" in masked:
            masked = "#*"
        segments.append(masked)
    keys = sorted({s.key for s in slots(url).values() if s.key and s.key.lower() not in _PAGE_KEYS})
    return "/".join(segments) + ("?" + "&".join(keys) if keys else "")


def _same_thread_value(url: str, page_slot: tuple[str, object] | None) -> str:
    return path_query(url) if page_slot is None else str(sorted(
        (k, v.text) for k, v in slots(url).items() if k != page_slot))


def learn_site(pages: list[Page], host: str | None = None) -> Template | NotLearned:
    if not pages:
        return NotLearned("no pages")
    host = host or urlsplit(pages[0].url).netloc
    tried = ["schema.org microdata", "JSON-LD and embedded JSON", "repeated post records"]
    candidates = []
    for page in pages:
        groups = mine_records(page.root)
        if groups:
            candidates.append((page, groups[0]))
    mined = {id(page.root): _overlapping(group, page.root) for page, group in candidates}
    structured = next((r for r in _structured(pages) if _covers(r, pages, mined)), None)
    by_shape: dict[str, list[tuple[Page, object]]] = defaultdict(list)
    for page, group in candidates:
        by_shape[url_shape(page.url)].append((page, group))
    if structured is None and not by_shape:
        return NotLearned("not a forum: no repeated posts with author, date and text on"
                          f" {len(pages)} pages", tried)
    # Most pages first; among equals, not a post permalink (``/post11011.html``, ``?p=5``).
    thread_pages = max(by_shape.values(), key=lambda group: (len(group), not _PERMALINK.search(
        path_query(group[0][0].url)))) if by_shape else []
    if structured is not None:
        structured_pages = [p for p in pages if _has_posts(structured, p.root)]
        thread_urls = [_canonical(p) for p in structured_pages]
        rules = structured
        chosen = structured_pages
    else:
        chosen = [p for p, _ in thread_pages]
        thread_urls = [_canonical(p) for p in chosen]
        rules = None
    paging = learn_paging([(p.root, p.url) for p in chosen])
    page_slot, fixed, id_at, thread_regex = _thread_url(thread_urls, paging)
    if not any(re.search(thread_regex, path_query(p.url)) for p in chosen):
        # The canonical names another page (a frameset around the thread's frame): the
        # template must place the pages that hold the posts.
        thread_urls = [p.url for p in chosen]
        page_slot, fixed, id_at, thread_regex = _thread_url(thread_urls, paging)
    if rules is None:
        rules = _post_rules([(p, g) for p, g in thread_pages[:8]], paging)
        if rules is None:
            return NotLearned("not a forum: no page reads as posts on its own", tried)
    elif rules.data:
        values = [str(post["created_raw"]) for p in chosen
                  for post in read_data_posts(rules.data, p.root) if post["created_raw"]]
        rules.date_order = date_order(values)
        rules.date_precision = "time" if sum(map(has_clock, values)) * 2 > len(values) else "day"
    else:
        per_page = [(page_number(paging, p.url), [[r] for r in p.root.xpath(rules.record)])
                    for p in chosen]
        check_positions(rules, per_page)
        rules.date_precision = date_precision(rules,
                                              [r for _, records in per_page for r in records])
    rules.utc_offset = _stated_offset(chosen)
    template = Template(host=host, posts=rules, thread_url=thread_regex, paging=paging)
    id_key = next((s.key for s in slots(thread_urls[0]).values() if s.key and re.search(
        re.escape(s.key) + r"=\(\?P<tid>", thread_regex)), None)
    if id_at and id_at[0] == ("q", ""):
        id_key = ""  # the id in a route held by the query (``/?thread-12.htm``)
    if id_key is not None:
        template.thread_params = sorted({id_key, *fixed, *([paging.param] if paging.param else [])})
    template.source = (("microdata" if not rules.data else rules.data["kind"])
                       if structured is not None else "html")
    others = [p.root for p in pages if template.thread_id(p.url) is None][:6]
    template.title = learn_title([(p.root, p.url) for p in _one_per_thread(template, chosen)],
                                 others)
    template.breadcrumbs = learn_breadcrumbs([(p.root, p.url) for p in chosen])
    listings = _learn_boards(template, [p for p in pages if template.thread_id(p.url) is None])
    if template.breadcrumbs is None and listings:  # no trail: a board badge, or a meta line's
        template.breadcrumbs = board_link(  # link to a page that lists threads
            [(p.root, p.url) for p in _one_per_thread(template, chosen)],
            lambda href: template.board_id(href) is not None or clean_url(href) in listings)
    template.thread_id_in_page = learn_page_id(template, [(p.url, p.root) for p in chosen])
    learn_repeats(template, [(p.url, p.root) for p in chosen])  # and posts per page
    template.learned_from = [p.url for p in chosen[:8]]
    return template


_Slot = tuple[tuple[str, object], int] | None


def _thread_url(urls: list[str], paging: Paging) -> tuple[_Slot, dict[str, str], _Slot, str]:
    """The page slot, fixed parameters, id position and thread regex of thread ``urls``."""
    page_slot = _page_slot(paging, urls)
    fixed = fixed_params(urls, exclude={paging.param or ""})
    id_at = id_position(urls, page_slot)
    # A thread URL without a number that names it (``/topic/some-title/``, ``/topic/title-2/``)
    # is named by its slug, else by the URL less its page parameter.
    regex = (id_regex_for(urls[0], page_slot, "tid", fixed, id_at) if id_at else None) \
        or slug_regex_for(urls[0], "tid") or url_thread_regex(urls[0], paging.param)
    return page_slot, fixed, id_at, regex


def _post_rules(pages: list[tuple[Page, RecordGroup]], paging: Paging) -> PostRules | None:
    """Rules shared by the sample pages; where they share none (two layouts, a page whose best
    group is another list), the rules of one page alone that read posts on the most pages."""
    samples = [Sample(p.root, p.url, g, page_number(paging, p.url)) for p, g in pages]
    rules = learn_post_rules(samples)
    if rules is not None and rules.body is not None:
        return with_opener(rules, [s.root for s in samples])
    best, reach = None, 0
    for page, _ in pages[:3]:  # each costs a learning of its own: the first that reads all wins
        own = page_rules(page.root, page.url, page_number(paging, page.url))
        read = sum(1 for p, _ in pages if p.root.xpath(own.record)) if own else 0
        if read > reach:
            best, reach = own, read
        if reach == len(pages):
            break
    return best


def _stated_offset(pages: list[Page]) -> str | None:
    """The offset most thread pages state their times in, if they state one."""
    stated = Counter(stated_offset(p.root) for p in pages[:8])
    offset, count = stated.most_common(1)[0] if stated else (None, 0)
    return offset if count * 2 > min(len(pages), 8) else None


def data_rules(roots: list[etree._Element]) -> PostRules | None:
    """Post rules reading JSON-LD or a front end's JSON (:mod:`crawler.learn.embedded`)."""
    rule = learn_data_rule(roots)
    return PostRules(record="", data=rule) if rule else None


def _structured(pages: list[Page]) -> Iterator[PostRules]:
    for learn in (microdata_rules, data_rules):
        rules = learn([p.root for p in pages])
        if rules is not None:
            yield rules


def _count(rules: PostRules, root: etree._Element) -> int:
    return len(read_data_posts(rules.data, root)) if rules.data else len(root.xpath(rules.record))


def _has_posts(rules: PostRules, root: etree._Element) -> bool:
    return _count(rules, root) > 0


def _overlapping(group: RecordGroup, root: etree._Element) -> int:
    """The mined group's size, or 0 when the page's schema.org posts lie elsewhere (the mined
    group is then a list beside the posts, such as related threads)."""
    items = root.xpath(MICRODATA_RECORD)
    if not items:
        return len(group.members)
    members = {id(m) for m in group.members}
    for item in items:
        if id(item) in members or any(id(a) in members for a in item.iterancestors()):
            return len(group.members)
        if any(is_inside(m, item) for m in group.members):
            return len(group.members)
    return 0


def _covers(rules: PostRules, pages: list[Page], mined: dict[int, int]) -> bool:
    """Structured data wins only where it holds every post the markup repeats: a site marking
    up just the opening post (one microdata item per page) is read from markup. Data (JSON-LD,
    a front end's JSON) gives text without the posts' markup and often without their ids: it
    is used only for pages whose markup repeats no posts at all (rendered by scripts)."""
    both = [(mined.get(id(p.root), 0), _count(rules, p.root)) for p in pages
            if _has_posts(rules, p.root)]
    if rules.data:
        return all(n == 0 for n, _ in both)
    both = [(n, c) for n, c in both if n]
    return sum(1 for n, c in both if c >= n) * 3 >= len(both) * 2


def _canonical(page: Page) -> str:
    """The page's ``<link rel=canonical>`` on the same host, else its URL: a permalink or a
    trap view (``/topic/13/slug/41``, ``?topic=3.0;prev_next=prev``) names its thread plainly
    there, so the thread id is read off clean URLs."""
    for href in page.root.xpath("//link[@rel='canonical']/@href")[:1]:
        url = urljoin(page.url, str(href))
        if urlsplit(url).netloc == urlsplit(page.url).netloc:
            return url
    return page.url


def _page_slot(paging: Paging, urls: list[str]) -> tuple[tuple[str, object], int] | None:
    """The slot and number index of the page value (SMF's ``topic=13.15``: slot ``topic``,
    second number), read off the learned pager regex."""
    if not paging.regex:
        return None
    index = paging.regex.split("(\\d+)")[0].count("\\d+")
    if paging.param:
        return ("q", paging.param), index
    for url in urls:
        match = re.search(paging.regex, path_query(url))
        if match:
            position = 0
            for segment_index, segment in enumerate(path_query(url).split("?")[0].split("/")):
                if position <= match.start(1) < position + len(segment):
                    before = segment[: match.start(1) - position]
                    return ("p", segment_index), len(re.findall(r"\d+", before))
                position += len(segment) + 1
    return None


def _one_per_thread(template: Template, pages: list[Page]) -> list[Page]:
    seen: dict[str, Page] = {}
    for page in pages:
        seen.setdefault(template.thread_id(page.url) or page.url, page)
    return list(seen.values())


def _learn_boards(template: Template, others: list[Page]) -> set[str]:
    """The board URL pattern and paging, from ``others`` that link two threads or more (the
    listings: their URLs are returned)."""
    boards = []
    for page in others:
        links = {template.thread_id(link) for link, _ in page_links(page.root, page.url)}
        links.discard(None)
        if len(links) >= 2:
            boards.append(page)
    if not boards:
        return set()
    by_shape: dict[str, list[Page]] = defaultdict(list)
    for page in boards:
        by_shape[url_shape(page.url)].append(page)
    shape_pages = max(by_shape.values(), key=len)
    urls = [p.url for p in shape_pages]
    paging = learn_paging([(p.root, p.url) for p in shape_pages])
    fixed = fixed_params(urls, exclude={paging.param or ""})
    board_slot = _page_slot(paging, urls)
    regex = id_regex_for(urls[0], board_slot, "bid", fixed, id_position(urls, board_slot)) \
        or _board_slug_regex(urls[0], template)
    if regex and len(shape_pages) >= 1:
        template.board_url = regex
        template.board_paging = paging
        template.board_id_in_page = learn_board_id(template, [(p.url, p.root) for p in boards])
    return {clean_url(p.url) for p in boards}


def _board_slug_regex(url: str, template: Template) -> str | None:
    """Board pages named by a slug alone (``/forums/forum/general-discussion/``): the slug after
    a route, never a page's sole segment (``/web-scraping`` beside ``/tags``), nor a path
    that holds the site's threads."""
    regex = slug_regex_for(url, "bid")
    if regex is None or regex.startswith("^/(?P<bid>") or template.thread_id(url) is not None:
        return None
    return regex
