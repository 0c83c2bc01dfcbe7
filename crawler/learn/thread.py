"""Thread title and breadcrumb rules, learned from thread pages of different threads.

Title: the page element (``<h1>`` first, then ``<h2>``/``<h3>``, ``itemprop=headline|name``,
elements classed or id'd ``title``/``subject``) whose text is part of ``<title>`` and changes
from thread to thread (a site-name ``<h1>`` does not). Without one, the heading (or a part of
it: its link, beside "(Page 2 of 3)") that ``<title>`` begins or ends with, never the site's
name; else ``<title>`` minus the parts all threads share (site and board names) and "page N".

Breadcrumbs: schema.org ``BreadcrumbList`` or an element named like a breadcrumb trail
(``breadcrumb``, ``crumbs``, ``navigation``, ``nav``…) holding two or more short links, the
first to the site's root or index page. Without a trail, the one link of a thread page to its
board (a channel or category badge, :func:`board_link`) is the trail.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from urllib.parse import parse_qsl, urljoin, urlsplit

from lxml import etree
from w3lib.url import canonicalize_url

from crawler.learn.dom import element_text, has_class_xpath, stable_classes, tag_test, xpath_literal
from crawler.learn.template import TitleRule

__all__ = ["board_link", "drop_page_mark", "heading_title", "learn_breadcrumbs", "learn_title",
           "listing_heading", "title_board", "url_thread_regex"]

_SEPARATORS = re.compile(r"\s+(?:[-|–—»·:/_]|::)\s+")
_PAGE_SUFFIX = re.compile(
    r"\s*(?:[-|–—,]\s*)?\(?(?:page\s*\d+(?:\s*of\s*\d+)?|第\s*\d+\s*页|seite\s*\d+)\)?\s*$",
    re.IGNORECASE)
_TITLE_HINT = re.compile(r"title|subject|headline|topic-?name|thread-?name", re.IGNORECASE)
_CRUMB_HINT = re.compile(r"bread|crumb|navigat|^nav$|navbit|location|^pt$|trail|path",
                         re.IGNORECASE)


_ROOTS = ("", "/index.php", "/forum.php", "/index.html", "/forums", "/forum", "/categories",
          "/bbs", "/board")
_HOME = re.compile(
    r"^(?:home|index|forum|forums|board index|首页|首頁|论坛|論壇|主页|startseite|accueil)$", re.I)


def url_thread_regex(url: str, page_param: str | None) -> str:
    """A thread named by its canonical URL less the page parameter, for URLs with no number
    and no plain slug (``/topic/some-title.html``, ``/read.php?topic=some-title``): the last path
    segment, or for a script path the first query value that is not the page, is the id."""
    parts = urlsplit(canonicalize_url(url))
    query = parse_qsl(parts.query, keep_blank_values=True)
    params = [(k, v) for k, v in query if k != page_param and v]
    segments = parts.path.rstrip("/").split("/")
    if params and (len(segments) < 2 or "." in segments[-1] or not segments[-1]):
        key = re.escape(params[0][0])
        return f"^{re.escape(parts.path)}\\?(?:.*[&;])?{key}=(?P<tid>[^&;#]+)"
    head = "/".join(re.escape(s) if len(s) <= 20 else r"[^/?#&;]+" for s in segments[:-1])
    return f"^{head}/(?P<tid>[^/?#&;]+)/?(?:[?#;&]|$)"


def heading_title(root: etree._Element, site: list[str] | None = None) -> str | None:
    """The page heading that ``<title>`` begins with ("Topic (Page 2) - Board - Site" names the
    topic first), else ends with ("Site :: Topic"): the thread's title where no learned rule
    names its element. A heading's own part counts (its link, less "(Page 2 of 3)" beside it);
    ``site``: ``<title>``'s parts every thread shares (never the thread's title)."""
    title = _loose(_title_text(root))
    shared = {_loose(part) for part in site or []}
    # The site's name: what a link to the site's root shows (a logo, the trail's first crumb).
    shared |= {_loose(element_text(a)) for a in root.iter("a") if _links_home(a, _ROOTS)}
    for fits in (str.startswith, str.endswith):
        best = None
        for node in _heading_parts(root):
            text = element_text(node)
            own = _loose(text)
            if (len(own) >= 2 and fits(title, own) and len(text) > len(best or "")
                    and not any(own in part for part in shared) and not _links_home(node)):
                best = text
        if best:
            return best
    return None


def _heading_parts(root: etree._Element) -> list[etree._Element]:
    """Title-like elements and the elements inside a heading (its link to the thread)."""
    found = []
    for node in _title_nodes(root):
        found.append(node)
        if node.tag in ("h1", "h2", "h3"):
            found.extend(n for n in node.iterdescendants() if isinstance(n.tag, str))
    return found


def title_board(root: etree._Element, title: str | None) -> str | None:
    """The board a thread page's ``<title>`` names between the thread's title and the site's
    name ("Topic - Board - Site", as HyperKitty and wpForo write it): for a page that names
    its board nowhere else."""
    parts = _SEPARATORS.split(_PAGE_SUFFIX.sub("", _title_text(root)))
    if not title or len(parts) < 3 or _loose(parts[0]) != _loose(title):
        return None
    return parts[1].strip() or None


def listing_heading(root: etree._Element) -> tuple[str, str] | None:
    """The heading of a listing page that its ``<title>`` begins with ("Board - Site"), else
    ends with ("Site :: Board"): the board's name as the board shows it; and the title."""
    title = _loose(_title_text(root))
    found: dict[bool, str] = {}
    for node in _title_nodes(root):
        if _links_home(node):
            continue  # the site's name or logo, not the board's
        text = element_text(node)
        own = _loose(text)
        for first in (True, False):
            if len(own) >= 2 and (title.startswith(own) if first else title.endswith(own)) \
                    and len(text) > len(found.get(first, "")):
                found[first] = text
    name = found.get(True) or found.get(False)
    return (name, _title_text(root)) if name else None


def _links_home(node: etree._Element, roots: tuple[str, ...] = ("",)) -> bool:
    """Whether ``node`` is a link to the site's front page (or to one of ``roots``), or holds
    only one."""
    links = [node] if node.tag == "a" else node.findall(".//a")
    if len(links) != 1 or element_text(links[0]) != element_text(node):
        return False
    href = urlsplit(links[0].get("href") or "")
    return (bool(href.path) and not href.query
            and href.path.strip("/") in {root.strip("/") for root in roots})


def _title_text(root: etree._Element) -> str:
    return re.sub(r"\s+", " ", root.findtext(".//title") or "").strip()


def _title_nodes(root: etree._Element) -> list[etree._Element]:
    body = root.find("body")
    if body is None:
        return []
    found = []
    for node in body.iter():
        if not isinstance(node.tag, str):
            continue
        label = (" ".join(stable_classes(node)) + " " + (node.get("id") or "") + " "
                 + (node.get("itemprop") or ""))
        if node.tag in ("h1", "h2", "h3") or _TITLE_HINT.search(label):
            text = element_text(node)
            if 2 <= len(text) <= 300:
                found.append(node)
    return found


def _title_xpaths(node: etree._Element) -> list[str]:
    tag = tag_test(node)
    exprs = []
    if node.get("id") and not re.search(r"\d{2,}", node.get("id") or ""):
        exprs.append(f"//{tag}[@id={xpath_literal(node.get('id') or '')}]")
    if node.get("itemprop"):
        exprs.append(f"//{tag}[@itemprop={xpath_literal(node.get('itemprop') or '')}]")
    for token in stable_classes(node)[:3]:
        exprs.append(f"//{tag}[{has_class_xpath(token)}]")
    if tag in ("h1", "h2", "h3"):
        exprs.append(f"//{tag}")
    return exprs


def learn_title(pages: list[tuple[etree._Element, str]],
                others: list[etree._Element] | None = None) -> TitleRule:
    """``pages``: thread pages (root, url), ideally of different threads; ``others``: pages that
    are not threads (an element showing the same text there is the site's, not the thread's)."""
    votes: Counter[str] = Counter()
    for root, _ in pages:
        title = _title_text(root)
        for node in _title_nodes(root):
            text = element_text(node)
            if text and (text in title or _loose(text) in _loose(title)):
                for expr in _title_xpaths(node):
                    votes[expr] += 1
    texts_by_expr = {}
    for expr, count in votes.most_common():
        if count < len(pages):
            continue
        texts = []
        for root, _ in pages:
            found = root.xpath(expr)
            text = element_text(found[0]) if found else ""
            if _loose(text) not in _loose(_title_text(root)) or not text:
                break
            texts.append(text)
        if len(texts) < len(pages):
            continue
        distinct_titles = len({_title_text(r) for r, _ in pages})
        if distinct_titles > 1 and len(set(texts)) < distinct_titles:
            continue  # the site's name, not the thread's
        if any(element_text(f[0]) in texts for f in (o.xpath(expr) for o in others or []) if f):
            continue  # shown on other pages too: site chrome
        texts_by_expr[expr] = texts
    if texts_by_expr:
        # Prefer <h1>, then the longest text (a thread title, not a board name).
        def key(expr: str) -> tuple[int, int]:
            return (1 if "//h1" in expr else 0, sum(len(t) for t in texts_by_expr[expr]))

        return TitleRule(xpath=max(texts_by_expr, key=key), strip=[])
    return TitleRule(xpath=None, strip=_title_affixes([_title_text(r) for r, _ in pages]))


def drop_page_mark(title: str) -> str:
    """``title`` less a trailing page mark ("(Page 2)", "- page 2", "第 2 页")."""
    return _PAGE_SUFFIX.sub("", title)


def _loose(text: str) -> str:
    return re.sub(r"\W+", "", text).lower()


def _title_affixes(titles: list[str]) -> list[str]:
    """The separator-delimited parts at either end that every title shares."""
    if not titles:
        return []
    split = [_SEPARATORS.split(_PAGE_SUFFIX.sub("", t)) for t in titles]
    seps = [_SEPARATORS.findall(_PAGE_SUFFIX.sub("", t)) for t in titles]
    affixes = []
    suffix = 0
    while (all(len(parts) > suffix + 1 for parts in split)
           and len({parts[-1 - suffix] for parts in split}) == 1):
        suffix += 1
    if suffix and len(titles) > 1:
        parts, sep = split[0], seps[0]
        affixes.append("".join(s + p for s, p in zip(sep[-suffix:], parts[-suffix:], strict=False)))
    prefix = 0
    while (all(len(parts) > prefix + 1 + suffix for parts in split)
           and len({parts[prefix] for parts in split}) == 1):
        prefix += 1
    if prefix and len(titles) > 1:
        parts, sep = split[0], seps[0]
        affixes.append("".join(p + s for p, s in zip(parts[:prefix], sep[:prefix], strict=False)))
    return affixes


def learn_breadcrumbs(pages: list[tuple[etree._Element, str]]) -> str | None:
    """Absolute XPath of the breadcrumb links shared by ``pages``, or ``None``."""
    votes: Counter[str] = Counter()
    for root, url in pages:
        for expr in _crumb_candidates(root, url):
            votes[expr] += 1
    for expr, count in votes.most_common():
        if count >= max(1, len(pages) - 1):
            return expr
    return None


def _crumb_candidates(root: etree._Element, url: str) -> list[str]:
    exprs = []
    if root.xpath("//*[@itemtype and contains(@itemtype, 'BreadcrumbList')]//a[@href]"):
        exprs.append("//*[contains(@itemtype, 'BreadcrumbList')]//a[@href]")
    elif root.xpath("//*[@itemtype and contains(@itemtype, 'Breadcrumb')]//a[@href]"):
        exprs.append("//*[contains(@itemtype, 'Breadcrumb')]//a[@href]")
    body = root.find("body")
    for node in body.iter() if body is not None else []:
        if not isinstance(node.tag, str):
            continue
        label = (" ".join(node.get("class", "").split()) + " " + (node.get("id") or "") + " "
                 + (node.get("aria-label") or ""))
        if not _CRUMB_HINT.search(label) and not any(_CRUMB_HINT.search(t) for t in label.split()):
            continue
        links = [a for a in node.iter("a") if a.get("href") and 0 < len(element_text(a)) <= 80]
        if len(links) < 2 or len(element_text(node)) > 400:
            continue
        first = urlsplit(urljoin(url, links[0].get("href") or ""))
        rootish = first.path.rstrip("/") in _ROOTS and not re.search(r"\d", first.query)
        named = any(re.search(r"bread|crumb", t, re.I) for t in label.split())
        if not rootish and not named and not _HOME.match(element_text(links[0])):
            continue
        tag = tag_test(node)
        if node.get("id") and not re.search(r"\d{2,}", node.get("id") or ""):
            exprs.append(f"(//{tag}[@id={xpath_literal(node.get('id') or '')}])[1]//a[@href]")
        for token in stable_classes(node)[:3]:
            if _CRUMB_HINT.search(token):
                exprs.append(f"(//{tag}[{has_class_xpath(token)}])[1]//a[@href]")
    return list(dict.fromkeys(exprs))


def board_link(pages: list[tuple[etree._Element, str]],
               is_board: Callable[[str], bool]) -> str | None:
    """Absolute XPath of a thread page's one link to its board, for pages without a trail (a
    channel or category badge): links of one class that go to a board page (``is_board``) on
    every page but one, and to two boards or more across ``pages`` (a link to one board from
    every thread, a menu's, names no thread's board)."""
    votes: Counter[str] = Counter()
    targets: dict[str, set[str]] = {}
    for root, url in pages:
        found: dict[str, str] = {}
        for a in root.iter("a"):
            href = urljoin(url, a.get("href") or "")
            if not element_text(a) or not is_board(href):
                continue
            for token in stable_classes(a)[:3]:
                found.setdefault(f"(//a[{has_class_xpath(token)}])[1]", href)
        for expr, href in found.items():
            votes[expr] += 1
            targets.setdefault(expr, set()).add(href)
    for expr, count in votes.most_common():
        if len(pages) >= 2 and count >= max(2, len(pages) - 1) and len(targets[expr]) >= 2:
            return expr
    return None
