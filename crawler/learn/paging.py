"""Pagination in its common forms, learned from the pager links of sample pages.

A pager link differs from the page's own URL in one number (or adds one parameter): ``?page=N``,
``&p=N``, ``/page/N``, ``-N.html``, ``start=``/offset forms (``start=20``, SMF's
``topic=13.30``). Numbered links give the step: the value of the link labelled "3" minus
that of "2". ``rel=next`` and "next" links (``下一页``, ``›``, ``»``) are kept as a second way.
The next page is always a link present on the page, never an invented URL.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from urllib.parse import urljoin, urlsplit

from lxml import etree

from crawler.learn.dom import element_text, has_class_xpath
from crawler.learn.template import Paging, Template
from crawler.learn.urls import page_regex_for, slots

__all__ = ["learn_paging", "next_page_url", "page_links", "page_number", "page_value",
           "refine_paging", "shows_more_pages"]

_NEXT_TEXT = re.compile(
    r"^(?:(?:next|older)(?: page| posts| replies)?\s*[›»→>]?|[›»→>]|>>"
    r"|下一页|下一頁|下页|后页|次へ|weiter|suivant)$", re.I
)
_NEXT_XPATHS = (
    "//link[@rel='next']",
    "//a[@rel='next']",
    "//a[contains(concat(' ', normalize-space(@rel), ' '), ' next ')]",
    # (the three above are rel=next: _REL_XPATHS)
    f"//a[{has_class_xpath('nxt')}]",
    f"//a[{has_class_xpath('next')}]",
    f"//a[{has_class_xpath('pagination_next')}]",
    f"//li[{has_class_xpath('next')}]/a",
)

_REL_XPATHS = 3
#: An option naming a page: "3", "Page 3", "3 / 7", "Seite 3 von 7".
_OPTION_PAGE = re.compile(r"^\D{0,12}?(\d+)(?:\s*(?:/|of|von|sur|de|di|z)\s*\d+)?\s*$", re.I)
#: A pager label naming the posts of its page: "21-40", "21–40".
_RANGE = re.compile(r"^(\d+)\s*[-–—]\s*(\d+)$")
_URLISH = re.compile(r"[/?=]")
_DIGIT = re.compile(r"\d")


def page_links(root: etree._Element, url: str) -> Iterator[tuple[str, str]]:
    """Same-host links and their labels; also the options of a page ``<select>`` whose values
    are URLs, labelled by their page number ("Page 3 of 7" is page 3)."""
    host = urlsplit(url).netloc
    for a in root.iter("a"):
        href = a.get("href")
        if not href or href.startswith(("#", "javascript:", "mailto:")):
            continue
        absolute = urljoin(url, href)
        if urlsplit(absolute).netloc == host:
            yield absolute, element_text(a) or (a.get("title") or "") or (a.get("aria-label") or "")
    for option in root.iter("option"):
        value, label = option.get("value") or "", _OPTION_PAGE.match(element_text(option))
        if label and _URLISH.search(value) and not value.startswith(("#", "javascript:")):
            absolute = urljoin(url, value)
            if urlsplit(absolute).netloc == host:
                yield absolute, label.group(1)


def _masked_path(url: str) -> str:
    return re.sub(r"\d+", "#", urlsplit(url).path).rstrip("/")


def _same_branch(here: str, there: str) -> bool:
    """A pager link stays on the page's own script or path (``/thread/#`` -> ``/thread/#/page/#``);
    ``ratethread.php?rating=3`` next to ``showthread.php`` is not a page of it."""
    return there.startswith(here) or here.startswith(there)


def _differences(current: str, link: str) -> tuple[tuple[str, object], int, int] | None:
    """``(slot, number index, value)`` when ``link`` differs from ``current`` in one number."""
    mine, theirs = slots(current), slots(link)
    changed = [n for n in set(mine) | set(theirs)
               if (mine.get(n) and mine[n].text) != (theirs.get(n) and theirs[n].text)]
    if len(changed) != 1:
        return None
    name = changed[0]
    new = theirs.get(name)
    if new is None or not new.numbers:
        return None
    old = mine.get(name)
    if old is None:
        return (name, len(new.numbers) - 1, int(new.numbers[-1])) if len(new.numbers) == 1 else None
    a, b = re.split(r"\d+", old.text), re.split(r"\d+", new.text)
    if a != b or len(old.numbers) != len(new.numbers):
        return None
    diff = [i for i, (x, y) in enumerate(zip(old.numbers, new.numbers, strict=True)) if x != y]
    return (name, diff[0], int(new.numbers[diff[0]])) if len(diff) == 1 else None


def learn_paging(pages: list[tuple[etree._Element, str]]) -> Paging:
    """The pagination scheme that the numbered pager links of ``pages`` share."""
    groups: dict[tuple[tuple[str, object], int], list[tuple[int, int, str]]] = defaultdict(list)
    for root, url in pages:
        here = _masked_path(url)
        numbered = _numbered([(link, text.strip()) for link, text in page_links(root, url)
                              if _same_branch(here, _masked_path(link))])
        for link, label in numbered:
            diff = _differences(url, link)
            if diff:
                groups[(diff[0], diff[1])].append((label, diff[2], link))
        # Pager links compared with each other: the page's own URL may be a permalink.
        for (a, label_a), (b, label_b) in zip(numbered, numbered[1:], strict=False):
            diff = _differences(a, b)
            if diff and label_a != label_b:
                old = _differences(b, a)
                groups[(diff[0], diff[1])].append((label_b, diff[2], b))
                if old:
                    groups[(old[0], old[1])].append((label_a, old[2], a))
    best: tuple[int, Paging] | None = None
    for (name, index), points in groups.items():
        fit = _fit(points)
        if fit is None:
            continue
        step, base = fit
        regex = page_regex_for(points[0][2], name, index)
        paging = Paging(kind="param" if name[0] == "q" else "path",
                        param=name[1] if name[0] == "q" else None,
                        regex=regex, step=step, base=base)
        score = len({p[0] for p in points})
        if best is None or score > best[0]:
            best = (score, paging)
    next_xpath = _next_xpath(pages)
    paging = best[1] if best else (_from_next_links(pages, next_xpath) if next_xpath else None) \
        or _from_page_two(pages) or Paging(kind="next")
    paging.next_xpath = next_xpath
    return paging


def _numbered(links: list[tuple[str, str]]) -> list[tuple[str, int]]:
    """The pager links and their page numbers. A pager that names its pages by the posts they
    hold ("1-20", "21-40", "41") labels each by its first post: page = first post // size."""
    ranges = [(int(m.group(1)), int(m.group(2))) for _, text in links
              if (m := _RANGE.match(text)) and int(m.group(2)) > int(m.group(1))]
    size = ranges[0][1] - ranges[0][0] + 1 if ranges else 0
    if size > 1 and all(b - a + 1 == size and a % size == 1 % size for a, b in ranges):
        firsts = [(link, int(text if text.isdigit() else text.split("-")[0]))
                  for link, text in ((link, re.sub(r"\s*[-–—]\s*", "-", text))
                                     for link, text in links)
                  if text.isdigit() or _RANGE.match(text)]
        return [(link, (first - 1) // size + 1) for link, first in firsts]
    return [(link, int(text)) for link, text in links if text.isdigit()]


def _from_page_two(pages: list[tuple[etree._Element, str]]) -> Paging | None:
    """No numbered pager and no "next" link: a link that adds page number 2 to a first page's
    URL (an icon-only ``<a href="?page=2"><i class="fa-chevron-right"></i></a>`` beside a
    "Page 1 of 2" label) is the pager."""
    for root, url in pages:
        here = _masked_path(url)
        for link, _ in page_links(root, url):
            if not _same_branch(here, _masked_path(link)):
                continue
            diff = _differences(url, link)
            if diff is None or diff[2] != 2 or slots(url).get(diff[0]) is not None:
                continue
            name, index, _ = diff
            return Paging(kind="param" if name[0] == "q" else "path",
                          param=name[1] if name[0] == "q" else None,
                          regex=page_regex_for(link, name, index), step=1, base=1)
    return None


#: "Page 1 of 12", "Seite 1 von 3", "Page 1 sur 4", "Página 1 de 2".
_PAGE_OF = re.compile(r"\b(?:page|seite|p[áa]gina|strona|sida|pagina)\s+(\d+)\s+"
                      r"(?:of|von|sur|de|di|z|av|van)\s+(\d+)\b", re.I)


def shows_more_pages(root: etree._Element) -> bool:
    """Whether the page says it is not a thread's last ("Page 1 of 2")."""
    # All the text at once: the numbers are often in their own elements
    # ("Page <b>1</b> of <b>2</b>").
    return any(int(a) < int(b) for a, b in _PAGE_OF.findall(element_text(root)))


def _from_next_links(pages: list[tuple[etree._Element, str]], next_xpath: str) -> Paging | None:
    """No numbered pager: the page form from "next" links alone (``/thread/1`` ->
    ``/thread/1/page/2``, ``?start=20`` -> ``?start=40``)."""
    for root, url in pages:
        found = [n for n in root.xpath(next_xpath)
                 if isinstance(n, etree._Element) and n.get("href")]
        if not found:
            continue
        link = urljoin(url, found[0].get("href") or "")
        diff = _differences(url, link)
        if diff is not None:
            name, index, value = diff
            old = slots(url).get(name)
            current = int(old.numbers[index]) if old is not None and old.numbers else None
            step, base = ((1, 1) if current is None and value == 2
                          else (value, 0) if current is None
                          else (1, 1) if value - current == 1 else (value - current, 0))
            regex = page_regex_for(link, name, index)
            return Paging(kind="param" if name[0] == "q" else "path",
                          param=name[1] if name[0] == "q" else None,
                          regex=regex, step=step, base=base)
        here, there = urlsplit(url).path.rstrip("/"), urlsplit(link).path
        extra = re.fullmatch(re.escape(here) + r"/([A-Za-z_-]+)/(\d+)/?", there)
        if extra and int(extra.group(2)) == 2:
            return Paging(kind="path", regex=f"/{re.escape(extra.group(1))}/(\\d+)(?:[/?#]|$)",
                          step=1, base=1)
    return None


def _fit(points: list[tuple[int, int, str]]) -> tuple[int, int] | None:
    """``(step, base)`` with value = base + (label - 1) * step for every numbered link."""
    pairs = sorted({(label, value) for label, value, _ in points})
    if not pairs or pairs[-1][0] < 2:
        return None
    if len(pairs) >= 2:
        (l1, v1), (l2, v2) = pairs[0], pairs[-1]
        if l2 == l1 or (v2 - v1) % (l2 - l1):
            return None
        step = (v2 - v1) // (l2 - l1)
        base = v1 - (l1 - 1) * step
    else:
        label, value = pairs[0]
        step, base = (1, 1) if value == label else (value // (label - 1), 0)
    if step <= 0 or any(v != base + (lab - 1) * step for lab, v in pairs):
        return None
    return step, base


def _next_xpath(pages: list[tuple[etree._Element, str]]) -> str | None:
    for number, expr in enumerate(_NEXT_XPATHS):
        # rel=next says what it is on any page (a one-page thread has none); a "next" class
        # must also be on the first sample page to count.
        if ((number < _REL_XPATHS or pages[0][0].xpath(expr))
                and any(root.xpath(expr) for root, _ in pages)):
            return expr
    for root, _ in pages:
        for a in root.iter("a"):
            text = element_text(a)
            if _NEXT_TEXT.match(text) and a.get("href"):
                return f"//a[normalize-space()={_literal(text)}]"
    return None


def _literal(text: str) -> str:
    return f"'{text}'" if "'" not in text else f'"{text}"'


def page_value(paging: Paging, url: str) -> int:
    if paging.regex:
        match = re.search(paging.regex, _path_query(url))
        if match:
            return int(match.group(1))
    return paging.base


def page_number(paging: Paging, url: str) -> int:
    return max(1, (page_value(paging, url) - paging.base) // max(1, paging.step) + 1)


def next_page_url(
    paging: Paging, root: etree._Element, url: str, same_item: Callable[[str], bool]
) -> str | None:
    """The link to the page after ``url``: the numbered link one step on, else a next link."""
    if paging.regex:
        wanted = page_value(paging, url) + paging.step
        pattern = re.compile(paging.regex)
        anchored = paging.regex.startswith("^")
        for a in root.iter("a"):
            href = a.get("href") or ""
            # Relative hrefs too, with no URL parsing for most links; a regex over the whole
            # path needs the link's path.
            found = pattern.search(_path_query(urljoin(url, href))
                                   if anchored and _DIGIT.search(href) else href)
            if found and int(found.group(1)) == wanted:
                link = urljoin(url, href)
                if page_value(paging, link) == wanted and same_item(link):
                    return link
    if paging.next_xpath:
        for node in root.xpath(paging.next_xpath):
            href = node.get("href") if isinstance(node, etree._Element) else None
            if href:
                link = urljoin(url, href)
                if same_item(link) and link != url:
                    return link
    return None


def _path_query(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def refine_paging(template: Template, root: etree._Element, url: str) -> bool:
    """The samples had no numbered pager: learn it from the first thread page that has one
    (whether one was found)."""
    paging = learn_paging([(root, url)])
    if paging.regex is None:
        return False
    paging.next_xpath = paging.next_xpath or template.paging.next_xpath
    template.paging = paging
    if template.thread_params and paging.param:
        template.thread_params = sorted({*template.thread_params, paging.param})
    return True
