"""Small extraction helpers shared by the engine profiles."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from w3lib.html import replace_entities

if TYPE_CHECKING:
    from parsel import Selector, SelectorList

__all__ = ["TEXT_STRIP", "first", "first_css", "html_to_text", "join_text", "regex_group", "to_int"]

ALLTEXT = "::alltext"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")
_INT = re.compile(r"-?\d[\d,.\s]*")


def first_css(sel: Selector | SelectorList, *queries: str | None) -> str | None:
    """The first non-blank result of the first query that yields one.

    Queries are CSS, with ``::text``/``::attr``.
    """
    for query in queries:
        if not query:
            continue
        if query.endswith(ALLTEXT):
            # Our pseudo-element: all text below each match, joined (dates split over spans).
            for node in sel.css(query[: -len(ALLTEXT)]):
                text = join_text(node)
                if text:
                    return text
            continue
        for value in sel.css(query).getall():
            value = value.strip()
            if value:
                return value
    return None


def first(values: list[str | None]) -> str | None:
    return next((v for v in values if v), None)


def join_text(sel: Selector | SelectorList | None) -> str | None:
    """All text below ``sel``, whitespace collapsed."""
    if sel is None:
        return None
    text = " ".join(t.strip() for t in sel.css("::text").getall())
    text = re.sub(r"\s+", " ", text).strip()
    return text or None


#: Tags of a row of a board list (phpBB ``li.row``, MyBB and Discuz! ``tr``, NodeBB ``li``).
_ROW_TAGS = frozenset({"tr", "li"})
_ROW_DEPTH = 8  # ancestors looked at above a link


def link_rows(response: Any, urls: set[str], canonicalize: Any) -> dict[str, str]:
    """What a listing says of each page of *urls* it links to: the text of the row each
    link sits in (a board's row on the index: its topics, posts, last post), all its links'
    rows joined. Links are matched after *canonicalize*; a page whose markup has no row
    for a link is left out (an incremental pass then reads that page again anyway)."""
    try:
        links = response.xpath("//a[@href]")
    except ValueError:  # not markup (a JSON API's answer)
        return {}
    rows: dict[str, list[Any]] = {}
    paths = {urlsplit(u).path for u in urls}  # a cheap test first: canonicalizing is not
    for link in links:
        joined = response.urljoin(link.attrib["href"])
        if urlsplit(joined).path not in paths:
            continue
        url = canonicalize(joined)
        if url in urls and (row := _row_of(link.root)) is not None:
            seen = rows.setdefault(url, [])
            if not any(row is r for r in seen):  # a row can hold its board's link twice
                seen.append(row)
    return {url: "\x1f".join(" ".join(" ".join(r.itertext()).split()) for r in seen)
            for url, seen in rows.items()}


def _row_of(link: Any) -> Any:
    """The row *link* sits in: its nearest ``tr`` or ``li``, else its nearest ancestor
    repeated beside it (same tag and class: SMF's ``div.up_contain``), else ``None``."""
    chain = list(link.iterancestors())[:_ROW_DEPTH]
    for node in chain:
        if node.tag in _ROW_TAGS:
            return node
    for node in chain:
        parent = node.getparent()
        if parent is not None and any(s is not node and s.tag == node.tag
                                      and s.get("class") == node.get("class") for s in parent):
            return node
    return None


def regex_group(pattern: re.Pattern[str], text: str | None, group: str | int = 1) -> str | None:
    if not text:
        return None
    match = pattern.search(text)
    return match.group(group) if match else None


def to_int(text: str | int | None) -> int | None:
    """``"1,234"`` -> 1234; ``"1.2k"`` style abbreviations -> 1200; ``None`` if no number."""
    if text is None or isinstance(text, int):
        return text
    text = replace_entities(text).strip().lower()
    match = _INT.search(text)
    if not match:
        return None
    number = match.group(0).replace(",", "").replace(" ", "")
    scale = 1000 if text.endswith("k") else 1_000_000 if text.endswith("m") else 1
    try:
        return int(float(number) * scale) if scale > 1 else int(number.split(".")[0])
    except ValueError:
        return None


#: Removed from every post body before computing body_text: quotes of other posts,
#: signatures, scripts. Profiles add engine-specific ones in ``text_strip``.
TEXT_STRIP = (
    "script",
    "style",
    "noscript",
    "template",
    "blockquote",
    ".quote",
    ".quotecontent",
    ".quote_container",
    "aside.quote",
    ".bbCodeBlock--quote",
    ".signature",
    ".sig",
)
_BLOCK_TAGS = {
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "pre",
    "tr",
    "table",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "dl",
    "dt",
    "dd",
    "section",
    "article",
    "header",
    "footer",
    "figure",
    "hr",
}


def html_to_text(html: str | None, strip: tuple[str, ...] = ()) -> str | None:
    """Readable text of a post body: quotes, signatures and scripts removed, blocks on new lines.

    Hand-written on lxml because trafilatura and readability want whole pages, not fragments.
    """
    if not html or not html.strip():
        return None
    from lxml import html as lxml_html  # local: only pipelines need it

    # lxml refuses control characters that HTML pages do contain (pasted terminal output).
    root = lxml_html.fragment_fromstring(_CONTROL.sub("", html), create_parent="div")
    for selector in TEXT_STRIP + strip:
        for element in root.cssselect(selector):
            if element is not root:
                element.drop_tree()
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        block = element.tag in _BLOCK_TAGS or _is_code_block(element)
        if element.tag == "br" or block:
            element.tail = "\n" + (element.tail or "")
        if block:
            element.text = "\n" + (element.text or "")
    lines = [_squeeze(line) for line in root.text_content().splitlines()]
    text = "\n".join(line for line in lines if line.strip())
    return text or None


def _is_code_block(element: Any) -> bool:
    # SMF and MyBB print code blocks as <code> with <br> lines, styled display:block.
    return element.tag == "code" and element.find("br") is not None


def _squeeze(line: str) -> str:
    # Keep leading indentation (code blocks) but collapse runs of blanks inside the line.
    line = line.replace("\xa0", " ").rstrip()
    indent = len(line) - len(line.lstrip(" "))
    return " " * indent + re.sub(r"[ \t]+", " ", line.strip())


def json_or_none(response: Any) -> Any:
    """The response's JSON body, or None when it is not JSON (an HTML error page)."""
    try:
        return response.json()
    except ValueError:
        return None


def str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
