"""Record mining: find the repeated post record of a page (the MDR / DEPTA family).

Posts of a thread page are sibling subtrees of one shape under one parent (``div.post`` in
``div#posts``, ``table`` per post, ``li[component=post]``…). Every parent with two or more
children of one shape (tag and stable class tokens) gives a candidate group; so do runs of
``k`` adjacent table rows of one shape sequence (``k`` = 2, 3: table layouts that spread a
post over several rows, MDR's "generalized nodes"). A group holds posts when its members carry
an author (a profile link or an author-ish element), a date, and prose that is not link text;
thread-list rows fail the last test. Among groups the one with the most prose wins.

Hand-written: the libraries we use (extruct, trafilatura, readability) find one main block or
declared metadata, not repeated records; MDR/DEPTA have no maintained Python package.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from lxml import etree

from crawler.learn.dom import element_text, iter_text, link_text_len, shape, stable_classes
from crawler.learn.names import name_nodes
from crawler.learn.when import looks_like_date

__all__ = ["USER_HREF", "RecordGroup", "author_links", "mine_records"]

USER_HREF = re.compile(
    r"member|profile|/users?/|/u/|[?&;](?:u|uid|user|userid|user_id|mid)=|space|author|/people/|/~|"
    r"/members?/|memberlist|viewprofile|/user$|(?:^|/)user[\w-]*(?:/|\.\w+\?)|"
    r"/(?:membre|mitglied|benutzer|miembro|membro|utente|usuario)s?[-_/]?\d*(?:[/.?]|$)",
    re.IGNORECASE,
)
_AUTHOR_HINT = re.compile(r"author|user-?name|poster|\bname\b|nick|userinfo|postprofile",
                          re.IGNORECASE)
#: Class tokens that name a record, preferred over layout tokens (``card``, ``row``, ``box``).
_RECORD_WORD = re.compile(r"post|message|comment|reply|entry|topic|thread|item", re.IGNORECASE)
_POST_LINK = re.compile(r"[?&;](?:p|pid|post|msg|comment|reply)[=_-]?\d|/posts?/\d", re.IGNORECASE)
_BLOCK_PARENTS = {
    "table", "tbody", "ul", "ol", "li", "div", "section", "main", "article", "form", "dl", "body",
    "td", "center", "font",
}


@dataclass
class RecordGroup:
    parent: etree._Element
    members: list[etree._Element]
    #: Rows per record for table layouts (the member is the first row).
    span: int = 1
    score: float = 0.0
    prose: list[int] = field(default_factory=list)
    #: Table rows found by their date (MiBAT's anchors), not by a fixed stride: spacer and
    #: advert rows may sit between records, so the record rule names the first rows themselves.
    anchored: bool = False

    def rows(self, member: etree._Element) -> list[etree._Element]:
        if self.span == 1:
            return [member]
        rows = [member]
        node = member.getnext()
        while node is not None and len(rows) < self.span:
            rows.append(node)
            node = node.getnext()
        return rows


def author_links(node: etree._Element) -> list[etree._Element]:
    """Links to a member page with a short, visible name."""
    links = []
    for a in node.iter("a"):
        href = a.get("href") or ""
        text = element_text(a)
        if USER_HREF.search(href) and 0 < len(text) <= 40 and "\n" not in text:
            links.append(a)
    return links


def _has_author(nodes: list[etree._Element]) -> bool:
    for node in nodes:
        if author_links(node) or node.get("data-author") or node.get("data-username"):
            return True
        for el in node.iter():
            if not isinstance(el.tag, str):
                continue
            hint = ((el.get("class") or "") + " " + (el.get("itemprop") or "") + " "
                    + (el.get("id") or ""))
            if _AUTHOR_HINT.search(hint) and 0 < len(element_text(el)) <= 60:
                return True
        if re.search(r"\bby\s+\S+|作者|楼主", element_text(node)[:200], re.IGNORECASE):
            return True
    return False


def _has_date(nodes: list[etree._Element]) -> bool:
    for node in nodes:
        for el in node.iter():
            if not isinstance(el.tag, str):
                continue
            if el.get("datetime") or el.get("data-timestamp") or el.get("data-time"):
                return True
            if el.get("itemprop") in ("datePublished", "dateCreated"):
                return True
            title = el.get("title")
            if title and looks_like_date(title):
                return True
            text = (el.text or "").strip()
            if text and looks_like_date(text):
                return True
            tail = (el.tail or "").strip()
            if tail and looks_like_date(tail):
                return True
    return False


def _prose(nodes: list[etree._Element]) -> int:
    """Characters of text that is not link text (a post has some, a thread-list row little)."""
    total = sum(len(element_text(n)) for n in nodes)
    return max(0, total - sum(link_text_len(n) for n in nodes))


def _longest_run(nodes: list[etree._Element]) -> int:
    """The longest text outside links: a sentence in a post, a short cell in a list row."""
    best = 0
    for node in nodes:
        for el in node.iter():
            if not isinstance(el.tag, str) or el.tag in ("script", "style"):
                continue
            if el.tag != "a" and el.text:
                best = max(best, len(el.text.strip()))
            if el.tail and el.getparent() is not None and el.getparent().tag != "a":
                best = max(best, len(el.tail.strip()))
    return best


def _width(text: str) -> int:
    """Length with CJK characters counted twice (a four-character Chinese title is a title)."""
    return len(text) + sum(1 for ch in text
                           if "\u2e80" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af")


def _other_host(href: str, page: str | None) -> bool:
    host = urlsplit(href).netloc if href.startswith(("http:", "https:", "//")) else ""
    return bool(host) and bool(page) and host != urlsplit(page or "").netloc


def _title_link(nodes: list[etree._Element]) -> tuple[str, str] | None:
    """The href and text of a title-like link (a thread in a list row), if the row has one."""
    page = nodes[0].getroottree().docinfo.URL if nodes else None
    for node in nodes:
        for a in node.iter("a"):
            href = a.get("href") or ""
            text = element_text(a)
            if "#" in href or _POST_LINK.search(href) or "%23" in href:
                continue  # a post's own permalink (or a share link carrying one), not another page
            if _other_host(href, page):
                continue  # a link a post cites, not a thread of this site
            if _width(text) >= 8 and not USER_HREF.search(href) and not looks_like_date(text):
                return href, text
    return None


def _score(parent: etree._Element, members: list[etree._Element], span: int) -> RecordGroup | None:
    group = RecordGroup(parent, members, span)
    runs = []
    titles = []
    dated, authored = [], []
    for member in members:
        rows = group.rows(member)
        prose = _prose(rows)
        group.prose.append(prose)
        dated.append(prose >= 12 and _has_date(rows))
        authored.append(dated[-1] and _has_author(rows))
        runs.append(_longest_run(rows))
        titles.append(_title_link(rows))
    good = sum(authored)
    if good < 0.6 * len(members) and sum(dated) >= 0.6 * len(members):
        # No profile links: a name at the same place in every record will do.
        names = name_nodes([group.rows(m) for m in members]) or [None] * len(members)
        good = sum(1 for d, a, n in zip(dated, authored, names, strict=True)
                   if d and (a or n is not None))
    if good == 0 or good < 0.6 * len(members):
        return None
    if sorted(runs)[len(runs) // 2] < 20:
        return None  # cells of a table, not sentences
    linked = [t for t in titles if t]
    hrefs, texts = {href for href, _ in linked}, {text for _, text in linked}
    if (len(members) >= 2 and len(linked) >= 0.7 * len(members)
            and min(len(hrefs), len(texts)) >= 0.7 * len(members)):
        # Each row links its own page under its own title: a thread list. Per-post action
        # links ("Report", "Share") differ in href only, and do not count.
        return None
    prose_sorted = sorted(group.prose)
    median = prose_sorted[len(prose_sorted) // 2]
    if median < 25:
        return None  # rows of a list (titles, counts, dates), not posts
    group.score = sum(min(p, 3000) for p in group.prose) * (good / len(members))
    return group


def mine_records(root: etree._Element, min_members: int = 2) -> list[RecordGroup]:
    """Candidate post groups of a page, best first."""
    body = root.find("body")
    if body is None:
        body = root
    groups: list[RecordGroup] = []
    for parent in body.iter():
        if not isinstance(parent.tag, str) or parent.tag not in _BLOCK_PARENTS:
            continue
        children = [c for c in parent if isinstance(c.tag, str)]
        if not children:
            continue
        by_shape = _sibling_kinds(children)
        for members in by_shape.values():
            if len(members) >= min_members:
                group = _score(parent, members, 1)
                if group is not None:
                    groups.append(group)
        if children[0].tag == "tr" and len(children) >= 4:
            groups.extend(_row_groups(parent, children))
            groups.extend(_anchored_rows(parent, children))
        elif len(children) >= 4 and len(by_shape) >= 2:
            groups.extend(_pair_groups(parent, children, by_shape))
    groups = _drop_coarse(groups)
    groups.sort(key=lambda g: g.score, reverse=True)
    return _drop_nested(groups)


def _sibling_kinds(children: list[etree._Element]) -> dict[tuple[str, ...], list[etree._Element]]:
    """Children grouped by tag and their most shared class token, so that zebra and state
    tokens (``rowodd``/``roweven``, ``firstpost``) do not split one kind of block in two.
    Table rows are grouped by their cells."""
    tokens: dict[str, int] = defaultdict(int)
    for child in children:
        for token in set(stable_classes(child)):
            tokens[f"{child.tag}.{token}"] += 1
    kinds: dict[tuple[str, ...], list[etree._Element]] = defaultdict(list)
    for child in children:
        if child.tag in ("script", "style", "br", "hr"):
            continue
        if child.tag == "tr":
            kinds[shape(child)].append(child)
            continue
        own = sorted(
            set(stable_classes(child)),
            key=lambda t: (-tokens[f"{child.tag}.{t}"], not _RECORD_WORD.search(t), t),
        )
        kinds[(str(child.tag), own[0] if own else "")].append(child)
    return kinds


def _row_groups(parent: etree._Element, rows: list[etree._Element]) -> list[RecordGroup]:
    found = []
    for span in (2, 3):
        for start in range(span):
            chunks = [rows[i : i + span] for i in range(start, len(rows) - span + 1, span)]
            sig: dict[tuple[tuple[str, ...], ...], list[etree._Element]] = defaultdict(list)
            for chunk in chunks:
                sig[tuple(_cells(r) for r in chunk)].append(chunk[0])
            for members in sig.values():
                if len(members) >= 2:
                    group = _score(parent, members, span)
                    if group is not None:
                        found.append(group)
    return found


def _cells(row: etree._Element) -> tuple[str, ...]:
    """A row's kind by its cells: its own zebra class (``tr1``/``tr2``, ``row1``/``row2``)
    changes from post to post, as :func:`_sibling_kinds` allows for blocks."""
    own = len(set(stable_classes(row)))
    return (str(row.tag), *shape(row)[1 + own:])


def _pair_groups(
    parent: etree._Element,
    children: list[etree._Element],
    kinds: dict[tuple[str, ...], list[etree._Element]],
) -> list[RecordGroup]:
    """A post rendered as two sibling blocks of different kinds, a header (author, date) and
    then its body, with no wrapper of its own: the header is the record's first row (the record
    rule names the headers themselves, as for rows found by their date)."""
    kind_of = {id(m): kind for kind, members in kinds.items() for m in members}
    # Anchors and spacers between posts (``<a name="msg-5">``, an empty ``clear`` div) hold
    # no text: they neither start a post nor break the header-body rhythm.
    children = [c for c in children if any(t.strip() for t in iter_text(c))]
    shapes = [kind_of.get(id(c)) for c in children]
    found = []
    for start in (0, 1):
        pairs: dict[tuple[object, object], list[etree._Element]] = defaultdict(list)
        for i in range(start, len(children) - 1, 2):
            if shapes[i] != shapes[i + 1] and shapes[i] and shapes[i + 1]:
                pairs[(shapes[i], shapes[i + 1])].append(children[i])
        for members in pairs.values():
            # Posts are most of their parent's children (and scoring is what mining costs).
            if len(members) >= 2 and len(members) * 2 >= 0.6 * len(children):
                group = _score(parent, members, 2)
                if group is not None:
                    group.anchored = True
                    found.append(group)
    return found


def _holds_group(member: etree._Element, groups: list[RecordGroup]) -> bool:
    return any(member is g.parent or any(a is member for a in g.parent.iterancestors())
               for g in groups)


def _anchored_rows(parent: etree._Element, rows: list[etree._Element]) -> list[RecordGroup]:
    """A post over several table rows, found from the row that holds its date: the record is
    that row and the rows with text after it, up to the next dated row (spacer rows between
    posts, zebra classes that differ from post to post do not matter)."""
    dated = [i for i, row in enumerate(rows) if _has_date([row])]
    # A date quoted in a post's text row is no anchor: anchors have the most common cells.
    cells = {i: tuple(str(c.tag) for c in rows[i] if isinstance(c.tag, str)) for i in dated}
    common = max(set(cells.values()), key=list(cells.values()).count, default=None)
    anchors = [i for i in dated if cells[i] == common]
    if len(anchors) < 2:
        return []
    sizes: dict[int, int] = defaultdict(int)
    for here, after in zip(anchors, [*anchors[1:], len(rows)], strict=True):
        sizes[1 + sum(1 for row in rows[here + 1 : after] if element_text(row))] += 1
    span = max(sizes, key=lambda size: sizes[size])
    if not 2 <= span <= 3:
        return []
    group = _score(parent, [rows[i] for i in anchors], span)
    if group is None:
        return []
    group.anchored = True
    return [group]


def _drop_coarse(groups: list[RecordGroup]) -> list[RecordGroup]:
    """Drop a group whose member holds a finer group with most of its prose (a page column
    that holds the posts is not a post). When most members hold a finer group, the finer
    groups are the cells of each record (a user cell beside a message cell): the group stays."""
    kept = []
    for group in groups:
        if (sum(1 for m in group.members if _holds_group(m, groups))
                >= max(2, 0.5 * len(group.members))):
            kept.append(group)
            continue
        coarse = False
        for index, member in enumerate(group.members):
            for other in groups:
                if other is group or len(other.members) < 2:
                    continue
                if member is other.parent or any(a is member for a in other.parent.iterancestors()):
                    # Two blocks inside one of many records are its cells, not a list of posts.
                    cells = len(other.members) < min(3, len(group.members))
                    if not cells and sum(other.prose) >= 0.5 * group.prose[index]:
                        coarse = True
                        break
            if coarse:
                break
        if not coarse:
            kept.append(group)
    return kept


def _drop_nested(groups: list[RecordGroup]) -> list[RecordGroup]:
    """Keep a group only if it is not inside a member of a better group (quotes inside posts)."""
    kept: list[RecordGroup] = []
    for group in groups:
        inside = False
        for better in kept:
            members = {id(m) for m in better.members}
            if (any(id(a) in members for a in group.parent.iterancestors())
                    or id(group.parent) in members):
                inside = True
                break
        if not inside:
            kept.append(group)
    return kept
