"""The post id rule: a number the site gives each post once, not one that restarts per thread.

Records often carry two numbers: the post's own id (``data-pk="5"``, ``data-pid``, a permalink
``#p5``) and its number within the thread (``id="c1"``, ``id="post_1"``, ``#1``). The first
found is not always the id: modern themes name the record's anchor by its number in the thread,
so every thread has a ``c1``. Such a number is told apart across the sample pages: one value
stands for different posts (different text) on two pages or twice on one page. The id rule is
then the next candidate whose values never do; when none is left the post has no id (it is
named by its content digest) and the counter, which counts up by one, can give the position.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable

from lxml import etree

from crawler.learn.dom import element_text
from crawler.learn.fields import (
    ID_ATTRS,
    PERMALINK,
    POSITION_ATTRS,
    Record,
    _permalink_node,
    _rule,
    _with_row,
)
from crawler.learn.template import FieldRule, PostRules

__all__ = ["pick_post_id", "post_id_candidates"]

Hit = tuple[etree._Element, str, str] | None


def _row_id(row: etree._Element) -> Hit:
    return (row, "@id", r"(\d+)$") if re.search(r"\d+$", row.get("id") or "") else None


def _attribute(name: str) -> Callable[[etree._Element], Hit]:
    def probe(row: etree._Element) -> Hit:
        return (row, f"@{name}", r"(\d+)") if re.search(r"\d", row.get(name) or "") else None

    return probe


def _numeric_data_names(records: list[Record]) -> list[str]:
    """Other ``data-*`` attributes of the records holding a bare number (``data-pk``), in the
    order the markup gives them."""
    names: dict[str, None] = {}
    for record in records[:20]:
        for row in record:
            for name, value in row.attrib.items():
                if name.startswith("data-") and value.isdigit():
                    names.setdefault(name, None)
    return [n for n in names if n not in ID_ATTRS and n not in POSITION_ATTRS]


def post_id_candidates(records: list[Record]) -> list[FieldRule]:
    """Id rules the records share, most telling first: the record's own id, a ``data-*`` id
    attribute, a permalink, any other numeric ``data-*`` attribute."""
    probes = [_row_id, *map(_attribute, ID_ATTRS), _permalink_node]
    probes.extend(map(_attribute, _numeric_data_names(records)))
    rules: list[FieldRule] = []
    for found in [*([_with_row(r, probe) for r in records] for probe in probes),
                  _own_permalinks(records)]:
        rule = _rule(records, found, 0.8)
        if rule is not None and rule not in rules:
            rules.append(rule)
    return rules


def _own_permalinks(records: list[Record]) -> list[tuple[int, etree._Element, str, str] | None]:
    """Per record, its first link to a post whose number no other record links: the post's
    own permalink. A record's first such link may name another post, seen from many records
    (the thread's first post, the post it replies to)."""
    links = [[(index, a, match.group(1)) for index, row in enumerate(record)
              for a in row.iter("a") if (match := PERMALINK.search(a.get("href") or ""))]
             for record in records]
    seen = Counter(value for found in links for value in {v for _, _, v in found})
    return [next(((index, a, "@href", PERMALINK.pattern)
                  for index, a, value in found if seen[value] == 1), None) for found in links]


def _reuses_values(rule: FieldRule, per_page: list[list[Record]]) -> bool:
    """Whether the rule gives one value to different posts (texts): on some page most values
    name other posts elsewhere, as a counter that restarts per thread does (``c1`` on every
    thread, ``message1``..``message20`` and ``message1``..``message5``), or a flag. A repeated
    opening post, or one page under two URLs, has one text."""
    from crawler.learn.apply import read_field

    texts: dict[str, set[str]] = defaultdict(set)
    pages = []
    for records in per_page:
        values = []
        for record in records:
            if value := read_field(rule, record):
                texts[value].add(" ".join(element_text(row) for row in record)[:300])
                values.append(value)
        pages.append(values)
    return any(len(values) >= 2 and sum(len(texts[v]) > 1 for v in values) * 2 > len(values)
               for values in pages)


def _counts_from_one(rule: FieldRule, per_page: list[list[Record]]) -> bool:
    """Whether the rule's values, over the sample pages, are the numbers 1, 2, 3... up to the
    posts seen: the posts' numbers in a thread (``id="message_13_5"``: post 5 of thread 13),
    which one thread's pages cannot show to restart per thread."""
    from crawler.learn.apply import read_field

    values = {read_field(rule, record) for records in per_page for record in records}
    numbers = sorted(int(v) for v in values if v and v.isdigit())
    return len(numbers) >= 3 and len(numbers) == len(values) and numbers[-1] == len(numbers)


def _qualifies(rule: FieldRule, counter: FieldRule, per_page: list[list[Record]]) -> bool:
    """Whether ``rule`` names each post by ``counter``'s number after another (``13.5`` for
    ``5``): the thread's number and the post's, the post's name on the whole site."""
    from crawler.learn.apply import read_field

    pairs = [(read_field(rule, record), read_field(counter, record))
             for records in per_page for record in records]
    return all(v and n and v != n and re.fullmatch(rf"\d+\D{n}", v) for v, n in pairs)


def pick_post_id(
    rules: PostRules, candidates: list[FieldRule], per_page: list[list[Record]]
) -> None:
    """Set the rules' post id: the first candidate that names no two posts alike; if it counts
    1, 2, 3..., one naming each post by the thread's number and that one (a permalink's
    ``msg=13.5`` beside ``id="message_13_5"``) is taken instead. A rejected counter
    becomes the position rule where none was found (positions are checked after)."""
    usable = [rule for rule in candidates if not _reuses_values(rule, per_page)]
    rules.post_id = usable[0] if usable else None
    if rules.post_id is not None and _counts_from_one(rules.post_id, per_page):
        counter = rules.post_id
        rules.post_id = next((r for r in usable if _qualifies(r, counter, per_page)), counter)
    before = candidates[:candidates.index(rules.post_id)] if rules.post_id else candidates
    if rules.position is None and before:
        rules.position = before[0]
