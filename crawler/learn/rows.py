"""Thread-list rows of a board page: replies, views and the last post's time per thread.

The row of a thread is the largest element around its link that holds no other thread's link.
In it, a count is the number next to a label (``12 replies``, ``Views: 1.2K``, ``回复 3``, a
``class="replies"`` or ``title="Replies"`` element, a ``<dt>Replies</dt><dd>12</dd>`` pair) or,
in a table, the cell under a ``Replies``/``Views`` header. The last post's time is the last date
of the row when it shows two (started, last) or one marked "last"/"latest"/"最后". Machine values
(``datetime``, ``data-time``, a ``title`` date) come before display text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin

from lxml import etree

from crawler.learn.dom import element_text
from crawler.learn.when import parse_date

__all__ = ["ROW_FIELDS", "counts_posts", "learned_rows", "thread_rows"]

#: What a row gives, named as the Thread item's fields.
ROW_FIELDS = ("reply_count", "view_count", "last_post_at_raw")

_REPLIES = re.compile(
    r"repl(?:y|ies)|answers?|comments?|回复|回覆|回帖|antworten|réponses|respuestas", re.I)
_VIEWS = re.compile(r"views?|hits|reads|查看|浏览|瀏覽|阅读|閱讀|点击|aufrufe|vues", re.I)
_LAST = re.compile(r"last|latest|recent|activity|最后|最後|最新", re.I)
_NUMBER = r"(\d[\d,.\u00a0\s]*\d|\d)\s*([kKmM万萬]?)"
_NUM = re.compile(rf"^\s*{_NUMBER}\s*$")
# Tried in this order: "Replies: 3 Views: 12", "6 replies 1234 views", "回复 3".
_LABEL_COLON = re.compile(rf"([^\d\s:：]{{2,12}})\s*[:：]\s*{_NUMBER}")
_NUMBER_FIRST = re.compile(rf"{_NUMBER}\s*([^\d\s]{{2,12}})")
_LABEL_SPACE = re.compile(rf"([^\d\s:：]{{2,12}})\s+{_NUMBER}")
_MACHINE = ("datetime", "data-time", "data-timestamp", "data-date", "data-datetime", "title")


def _number(text: str, unit: str = "") -> int | None:
    text = re.sub(r"[\s\u00a0]", "", text)
    if unit:
        scale = {"k": 1_000, "m": 1_000_000, "万": 10_000, "萬": 10_000}[unit.lower()]
        try:
            return int(float(text.replace(",", "")) * scale)
        except ValueError:
            return None
    digits = re.sub(r"[,.]", "", text)
    return int(digits) if digits.isdigit() else None


def _row(link: etree._Element, others: set[etree._Element]) -> etree._Element:
    """The largest ancestor of ``link`` (up to eight levels) holding no other thread's link."""
    row = link
    for _ in range(8):
        parent = row.getparent()
        if (parent is None or parent.tag in ("body", "html")
                or any(o in others for o in parent.iter("a"))):
            break
        row = parent
    return row


def _cells(row: etree._Element) -> dict[int, etree._Element]:
    """The cells of a table row by the column they start in (``colspan`` counted)."""
    out, column = {}, 0
    for cell in row:
        if isinstance(cell.tag, str) and cell.tag in ("td", "th"):
            out[column] = cell
            span = cell.get("colspan") or "1"
            column += int(span) if span.isdigit() else 1
    return out


def _column_counts(row: etree._Element) -> dict[str, int]:
    """Counts under the ``Replies``/``Views`` headers of the table holding ``row`` (the last
    row above it that names them; ``th`` or not, MyBB's are ``td.tcat``)."""
    table = next(row.iterancestors("table"), None)
    if table is None:
        return {}
    columns: dict[str, int] = {}
    for tr in table.iter("tr"):
        if tr is row:
            break
        found = {}
        for column, cell in _cells(tr).items():
            text = element_text(cell)
            for field, label in (("reply_count", _REPLIES), ("view_count", _VIEWS)):
                if len(text) <= 20 and label.search(text) and field not in found:
                    found[field] = column
        columns = found or columns
    cells = _cells(row)
    out = {}
    for field, column in columns.items():
        match = _NUM.match(element_text(cells[column])) if column in cells else None
        value = _number(*match.groups()) if match else None
        if value is not None:
            out[field] = value
    return out


def _labelled_counts(row: etree._Element, title_link: etree._Element) -> dict[str, int]:
    found: dict[str, int] = {}
    for node in row.iter():
        if (not isinstance(node.tag, str) or node is title_link
                or title_link in node.iterancestors()):
            continue
        text = element_text(node) if len(node) <= 3 else (node.text or "")
        if not text or len(text) > 40:
            continue
        hint = " ".join(filter(None, (node.get("class"), node.get("title"), node.get("aria-label"),
                                      element_text(node.getprevious())
                                      if node.tag == "dd" and node.getprevious() is not None
                                      else None)))
        for field, label in (("reply_count", _REPLIES), ("view_count", _VIEWS)):
            if field in found:
                continue
            plain = _NUM.match(text)
            if plain and label.search(hint):
                value = _number(*plain.groups())
            else:
                value = _labelled(text, label)
            if value is not None:
                found[field] = value
    return found


def _labelled(text: str, label: re.Pattern[str]) -> int | None:
    for form in (_LABEL_COLON, _NUMBER_FIRST, _LABEL_SPACE):
        for match in form.finditer(text):
            word, number, unit = ((match.group(3), match.group(1), match.group(2))
                                  if form is _NUMBER_FIRST else match.groups())
            if label.search(word):
                return _number(number, unit)
    return None


def _dates(row: etree._Element) -> list[tuple[etree._Element, str]]:
    dates = []
    for node in row.iter():
        if not isinstance(node.tag, str) or node.tag in ("script", "style"):
            continue
        value = next((node.get(a).strip() for a in _MACHINE  # type: ignore[union-attr]
                      if node.get(a)
                      and parse_date(node.get(a).strip())), None)  # type: ignore[union-attr]
        # A leaf's text, or the text before a child ("03-31-2024, 02:24 PM<br>Last Post: …").
        if value is None:
            text = element_text(node) if len(node) == 0 else (node.text or "").strip()
            value = text if text and len(text) <= 40 and parse_date(text) else None
        if value:
            dates.append((node, value))
    return dates


def _last_post(row: etree._Element) -> str | None:
    dates = _dates(row)
    if len(dates) >= 2:
        return dates[-1][1]
    for node, value in dates:
        hints = [node, *list(node.iterancestors())[:3]]
        if any(_LAST.search((n.get("class") or "") + " " + (n.text or "")) for n in hints):
            return value
    return None


def thread_rows(
    root: etree._Element, url: str, thread_id: Callable[[str], str | None], posts: bool = False
) -> dict[str, dict[str, Any]]:
    """``thread id -> {reply_count, view_count, last_post_at_raw}`` (what the row shows) for
    every thread linked from a thread list on this page; ``posts``: the list counts the
    opening post too (:func:`counts_posts`), so replies are one less."""
    links: dict[str, list[etree._Element]] = {}
    for a in root.iter("a"):
        href = a.get("href")
        tid = (thread_id(urljoin(url, href))
               if href and not href.startswith(("#", "javascript:")) else None)
        if tid is not None:
            links.setdefault(tid, []).append(a)
    if len(links) < 2:
        return {}
    out = {}
    for tid, anchors in links.items():
        others = {a for t, group in links.items() if t != tid for a in group}
        title = max(anchors, key=lambda a: len(element_text(a)))
        row = _row(anchors[0], others)
        found: dict[str, Any] = _labelled_counts(row, title)
        if row.tag == "tr":
            found = _column_counts(row) | found
        if posts and found.get("reply_count"):
            found["reply_count"] -= 1
        last = _last_post(row)
        if last:
            found["last_post_at_raw"] = last
        if found:
            out[tid] = found
    return out


def counts_posts(rows: dict[str, dict[str, Any]], whole: dict[str, int]) -> bool:
    """Whether the lists count every post, not replies: for the threads seen whole (one page,
    ``thread id -> posts``), each listed count equals the posts ("4 comments" over 4 posts)."""
    shown = [(rows[t]["reply_count"], n) for t, n in whole.items()
             if "reply_count" in rows.get(t, {})]
    return bool(shown) and all(count == n for count, n in shown)


def learned_rows(template: Any, pages: list[Any]) -> dict[str, dict[str, Any]]:
    """The thread-list rows of the pages kept while learning (``Page`` objects); first sets
    whether the lists count the opening post, as the threads kept whole tell."""
    from crawler.learn.apply import read_posts
    from crawler.learn.paging import page_number

    listings = [p for p in pages if template.thread_id(p.url) is None]
    whole = {}
    for page in pages:
        tid = template.thread_id(page.url)
        if tid and page_number(template.paging, page.url) == 1 and _alone(template, page, tid):
            whole[tid] = len(read_posts(template, page.root, page.url))

    def read(posts: bool) -> dict[str, dict[str, Any]]:
        return {tid: row for p in listings
                for tid, row in thread_rows(p.root, p.url, template.thread_id, posts).items()}

    rows = read(False)
    template.list_counts_posts = counts_posts(rows, whole)
    return read(True) if template.list_counts_posts else rows


def _alone(template: Any, page: Any, tid: str) -> bool:
    """Whether a thread's first page links no next page: the thread is whole on it."""
    from crawler.learn.paging import next_page_url

    nxt = next_page_url(template.paging, page.root, page.url,
                        lambda u: template.thread_id(u) == tid)
    return nxt is None
