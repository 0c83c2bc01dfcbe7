"""Comments of a blog page from repeated comment blocks, for themes no reader knows.

The comment section is the outermost element whose id or class says ``comment`` (the first of
them that holds comments). A comment is the block holding one date: from each date the block
grows up to the largest ancestor that holds no other date, so the paragraphs of a comment stay
in its body; an element that names itself a comment (``<div class="comment media">``) is one
comment whole, the dated comments nested in it its replies. In that block the author is its
byline (an ``author``/``fn``/``cite`` element, else its heading less the date and the words
around the name), the body its ``body``/``content``/``text`` element (else the block less
heading, footer, date and replies: its paragraphs, where its text is in paragraphs). The parent
is the comment whose block encloses it (nested lists and blocks), else the nearest earlier one
a level up where blocks state their level in a class (``depth-2``, ``commentlevel-1``,
``commentlevel_1``).

Sections where no block holds a date fall back on mining repeated records
(:mod:`crawler.learn.records`). WordPress' core list and h-entry ``comment`` properties are read
before this (:mod:`crawler.blogs.wordpress`, :mod:`crawler.blogs.entry`); comment widgets loaded
by JavaScript (Disqus, giscus) are not in the page and are not found.
"""

from __future__ import annotations

import copy
import hashlib
import re
from typing import Any

from lxml import etree

from crawler.blogs.byline import author_name
from crawler.blogs.comment_dates import date_of, day_month_resolved, inside, text_dates
from crawler.learn.apply import read_field
from crawler.learn.dom import drop_tree, element_text, inner_html, parse
from crawler.learn.fields import learn_fields
from crawler.learn.generalize import eval_first
from crawler.learn.records import mine_records
from crawler.learn.when import find_date

__all__ = ["comment_blocks"]

_SECTION = (
    "//*[contains(translate(@id, 'COMENT', 'coment'), 'comment') or "
    "contains(translate(@class, 'COMENT', 'coment'), 'comment')]"
    "[not(ancestor::*[contains(translate(@id, 'COMENT', 'coment'), 'comment') or "
    "contains(translate(@class, 'COMENT', 'coment'), 'comment')])]"
)
_NAMED = ("contains(concat(' ', normalize-space(@class), ' '), ' comment ') or "
          "starts-with(@id, 'comment-')")
_COMMENT_NODE = etree.XPath("boolean(self::*[" + _NAMED + "])")
_LEVEL = re.compile(r"(?:level|depth)[-_]?(\d+)$", re.IGNORECASE)
_AUTHOR = (
    ".//*[contains(@class, 'author') or contains(@class, 'fn') or @itemprop='author' or "
    "self::cite or contains(@class, 'name')][not(self::time)][not(ancestor::form)]"
)
_BODY = (
    ".//*[contains(@class, 'body') or contains(@class, 'content') or contains(@class, 'text') "
    "or @itemprop='text'][not(ancestor::footer)]"
)


def comment_blocks(text: str, url: str, article_url: str) -> list[dict[str, Any]]:
    root = parse(text, url)
    for section in _sections(root.xpath(_SECTION)):
        if section.tag == "form":
            continue
        # a section with a reply form and no dated block is the comment form, not comments
        comments = _dated_blocks(section, article_url) or (
            [] if section.xpath("self::*[.//textarea][not(.//time)]")
            else _mined(section, article_url))
        if comments:
            return day_month_resolved(comments, root)
    return []


def _sections(found: list[etree._Element]) -> list[etree._Element]:
    """The comment sections, a run of sibling comment blocks with no section around them
    (``<div class="comment">`` after ``<div class="comment">``) as one: a copy of them in a
    ``<div>`` of their own."""
    sections: list[etree._Element] = []
    for node in found:
        run = [other for other in found if other.getparent() is node.getparent()
               and other.tag == node.tag and _one_date(other)]
        if len(run) < 2:
            sections.append(node)
        elif node is run[0]:
            wrapper = etree.Element("div")
            wrapper.extend(copy.deepcopy(block) for block in run)
            sections.append(wrapper)
    return sections


def _one_date(node: etree._Element) -> bool:
    return len(node.xpath(".//time[@datetime]") or text_dates(node)) == 1


# -- one block per date --------------------------------------------------------------------------
def _dated_blocks(section: etree._Element, article_url: str) -> list[dict[str, Any]]:
    dates = section.xpath(".//time[@datetime][not(ancestor::form)]") or text_dates(section)
    blocks = [_block(d, section, dates) for d in dates]
    comments: list[dict[str, Any]] = []
    ids: dict[int, str] = {}
    day = None
    for date, block in zip(dates, blocks):
        record = _record(block, date, article_url, day)
        day = (record or {}).get("created_raw") or day
        if record is None:
            continue
        record["parent_id"] = _parent(block, blocks, ids)
        ids[id(block)] = record["comment_id"]
        comments.append(record)
    return comments


def _block(date: etree._Element, section: etree._Element,
           dates: list[etree._Element]) -> etree._Element:
    """The largest ancestor of *date* below *section* that holds no other date; a list item is
    one comment whole (its nested list holds the replies), unless it holds only the date (an
    item of the comment's list of icons and values)."""
    block = date
    while block.tag != "li" or _date_only(block, date):
        parent = block.getparent()
        if parent is None or parent is section:
            return block
        if any(d is not date and inside(d, parent) for d in dates):
            nesting = _nesting(date, section, dates)
            return block if nesting is None else nesting
        block = parent
    return block


def _date_only(item: etree._Element, date: etree._Element) -> bool:
    """*item* shows the date and at most a label ("on", an icon's title)."""
    return len(element_text(item).replace(element_text(date), "", 1).split()) <= 2


def _nesting(date: etree._Element, section: etree._Element,
             dates: list[etree._Element]) -> etree._Element | None:
    """The element around *date* that names itself a comment (``<div class="comment media"
    id="comment-1">``) when every other date in it is in a comment nested in it (a reply):
    the comment whole, as a list item with its nested list."""
    for node in date.iterancestors():
        if node is section:
            return None
        if _COMMENT_NODE(node):
            inner = node.xpath(".//*[" + _NAMED + "]")
            others = [d for d in dates if d is not date and inside(d, node)]
            return node if all(any(inside(d, n) for n in inner) for d in others) else None
    return None


def _record(block: etree._Element, date: etree._Element, article_url: str,
            day: str | None) -> dict[str, Any] | None:
    body = _body(block, date)
    if body is None or not element_text(body):
        return None
    author = _author(block, date, body)
    created = date_of(date, day)
    return {
        "article_url": article_url,
        "comment_id": _own_id(block, date) or _digest(author, created, body),
        "author": author,
        "created_raw": created,
        "body_html": inner_html(body),
    }


def _own_id(block: etree._Element, date: etree._Element) -> str | None:
    """The nearest id around the comment's date, else the anchor its permalink names inside
    the block ("<a href=#c000002 id=c000002>#</a>")."""
    chain = [date, *date.iterancestors()]
    own = chain[: chain.index(block) + 2] if block in chain else chain[:1]
    near = next((n.get("id") for n in own if n.get("id")), None)
    for href in [] if near else block.xpath(".//a[contains(@href, '#')]/@href"):
        anchor = href.split("#", 1)[1]
        if anchor and block.xpath(".//*[@id=$a]", a=anchor):
            return anchor
    return near


def _author(block: etree._Element, date: etree._Element, body: etree._Element | None) -> str | None:
    for node in block.xpath(_AUTHOR):
        if body is not None and (node is body or inside(node, body)):
            continue  # a name quoted in the text is not its author
        name = author_name(element_text(node) or " ".join(node.xpath(".//img/@alt")))
        if name:
            return name
    # The line that carries the date: "Dave Reader on <time>…</time>:", "On 5 May, 10:00 by
    # <a>Carol</a>": the commenter's link, else the line less its date.
    return _date_line_author(block, date) or _heading_author(block, body)


def _date_line_author(block: etree._Element, date: etree._Element) -> str | None:
    # a date of its own (<time>, "<small>2 years, 10 months ago</small>"): its line is around
    # it; a plain text holding more words is the line ("Jan. 6, 2024, 9:37 a.m. - Dave Reader")
    alone = date.tag == "time" or (len(date) == 0 and not _words_beside(date))
    holder = date.getparent() if alone else date
    if holder is not None and holder.tag == "li" and _date_only(holder, date):
        holder = holder.getparent()  # the list of icons and values: name, date
    if holder is None or not (holder is block or inside(holder, block)):
        return None
    for link in holder.xpath(".//a[@href][not(starts-with(@href, '#'))]"):
        name = author_name(element_text(link))
        if name and not find_date(name):
            return name
    line = _text_without(holder, date if alone else None)
    if not alone:  # a text date: the line less the date ("De Erin Li - 06/01/2024")
        line = line.replace(find_date(line) or "", " ")
    return author_name(line)


def _words_beside(date: etree._Element) -> bool:
    """The text of *date* holds words besides its date (or its age: "2 years, 10 months ago")."""
    text = element_text(date)
    shown = date_of(date) or ""
    rest = text.replace(shown, " ") if shown in text else text
    return any(c.isalpha() for c in rest.replace(find_date(rest) or " ", " "))


def _heading_author(block: etree._Element, body: etree._Element | None) -> str | None:
    """The comment's heading when it names the commenter, the date shown elsewhere ("<h4>Dave
    Reader said:</h4>", "<h4>Erin Li a dit :</h4>")."""
    for heading in block.xpath(".//h2 | .//h3 | .//h4 | .//h5 | .//h6"):
        if body is not None and body is not block and inside(heading, body):
            continue
        text = element_text(heading)
        if not find_date(text):
            return author_name(text)
    return None


def _text_without(node: etree._Element, drop: etree._Element | None) -> str:
    """*node*'s text less the date (*drop*, an element of it, and any ``<time>``) and the
    comment's own number ("1.", a link to ``#c1``, a permalink reading "#1")."""
    clone = copy.deepcopy(node)
    dropped = [] if drop is None or drop is node else [_twin(drop, node, clone)]
    for junk in dropped + clone.xpath(".//a[starts-with(@href, '#')] | .//time"):
        drop_tree(junk)  # keeps its tail: "<a>1</a> From Erin Li - <time>"
    for link in clone.xpath(".//a[@href]"):
        if not any(c.isalpha() for c in element_text(link)):
            drop_tree(link)
    return element_text(clone)


def _body(block: etree._Element, date: etree._Element) -> etree._Element | None:
    if block.tag == "dt":  # <dt>byline</dt><dd>comment</dd>
        following = block.getnext()
        return following if following is not None and following.tag == "dd" else None
    # comments nested in this one (its replies): dated elements that name themselves comments
    replies = [r for r in block.xpath(".//*[" + _NAMED + "]")
               if not inside(date, r) and (r.xpath(".//time") or text_dates(r))]
    found = [n for n in block.xpath(_BODY) if not inside(date, n) and n is not date
             and not any(n is r or inside(n, r) for r in replies)]
    if found:
        return max(found, key=lambda n: len(element_text(n)))
    # the block less its byline: the date's line and the commenter's name
    lines = [_line(date, block), *(n for n in block.xpath(_AUTHOR) if len(element_text(n)) <= 60)]
    clone = copy.deepcopy(block)
    byline = [_twin(node, block, clone) for node in [*lines, *replies] if node is not block]
    for junk in byline + clone.xpath(".//header | .//footer | .//time | .//h1 | .//h2 | .//h3 | "
                                     ".//h4 | .//h5 | .//h6 | .//form | .//script | .//style"):
        if junk is not None and junk.getparent() is not None:
            junk.getparent().remove(junk)
    return _paragraphs(clone)


def _paragraphs(clone: etree._Element) -> etree._Element:
    """The comment's paragraphs where its text is in paragraphs: the few words of links
    ("Link | Reply") and widgets (a rating) beside them are not its text."""
    paragraphs = clone.xpath(".//p[not(ancestor::p)]")
    inside = sum(len(element_text(p)) for p in paragraphs)
    if not paragraphs or len(element_text(clone)) - inside > 40:
        return clone
    holder = etree.Element("div")
    holder.extend(copy.deepcopy(p) for p in paragraphs)
    return holder


def _line(date: etree._Element, block: etree._Element) -> etree._Element:
    """The element below *block* that holds the date and little else (its line)."""
    line = date
    for parent in date.iterancestors():
        if parent is block or len(element_text(parent)) > 120:
            break
        line = parent
    return line


def _twin(node: etree._Element, block: etree._Element, clone: etree._Element) -> Any:
    """*node*'s counterpart in *clone*, a copy of *block*."""
    steps = [n.getparent().index(n) for n in [node, *node.iterancestors()]
             if n is not block and not any(a is n for a in block.iterancestors())]
    found = clone
    for step in reversed(steps):
        found = found[step]
    return found


def _parent(block: etree._Element, blocks: list[etree._Element], ids: dict[int, str]) -> str | None:
    """The nearest earlier comment whose block is alone in an element enclosing *block* (a
    reply list nested in the comment's item), else one a level up where blocks state levels."""
    earlier = [b for b in reversed(blocks[: blocks.index(block)]) if id(b) in ids]
    for other in earlier:
        if inside(block, other):  # a reply nested in its comment's block
            return ids[id(other)]
    for other in earlier:
        wrapper = other.getparent()
        alone = wrapper is not None and sum(1 for b in blocks if b.getparent() is wrapper) == 1
        if alone and inside(block, wrapper):
            return ids[id(other)]
    level = _level(block)
    for other in earlier if level else []:
        if _level(other) == level - 1:
            return ids[id(other)]
    return None


def _level(block: etree._Element) -> int | None:
    for token in (block.get("class") or "").split():
        match = _LEVEL.search(token)
        if match:
            return int(match.group(1))
    return None


# -- mined records (no dates in the markup) --------------------------------------------------------
def _mined(section: etree._Element, article_url: str) -> list[dict[str, Any]]:
    groups = mine_records(section)
    if not groups:
        return []
    records = [groups[0].rows(m) for m in groups[0].members]
    rules = learn_fields(records)
    body_rule = rules.get("body")
    comments = []
    for record in records:
        body = eval_first(record[body_rule.row], body_rule.xpath) if body_rule is not None else None
        body_html = inner_html(body) if body is not None else None
        if not body_html:
            continue
        author = author_name(read_field(rules.get("author"), record))  # type: ignore[arg-type]
        created = read_field(rules.get("date"), record)  # type: ignore[arg-type]
        own_id = read_field(rules.get("post_id"), record)  # type: ignore[arg-type]
        comments.append({"article_url": article_url,
                         "comment_id": own_id or _digest(author, created, body),
                         "author": author, "created_raw": created, "body_html": body_html})
    return comments


def _digest(author: str | None, created: str | None, body: etree._Element) -> str:
    data = f"{author}\x1f{created}\x1f{element_text(body)}"
    return hashlib.sha1(data.encode()).hexdigest()[:16]
