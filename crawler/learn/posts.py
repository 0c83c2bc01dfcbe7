"""Learning the post rules of a site from the record groups mined on its sample pages.

The record XPath must select exactly the mined records on every sample page; candidates go
from the most meaningful (a shared attribute such as ``component=post`` or ``itemprop``, an id
prefix followed by digits, a class token) to the most structural (the parent's id or class, then
the tag). Positions are checked to count up by one on each page, and their offset is learned
from a first page (the opening post is number 1).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from lxml import etree

from crawler.learn.dom import has_class_xpath, stable_classes, tag_test, xpath_literal
from crawler.learn.fields import Record, learn_fields
from crawler.learn.ids import pick_post_id, post_id_candidates
from crawler.learn.records import _RECORD_WORD, RecordGroup
from crawler.learn.template import PostRules

__all__ = ["Sample", "check_positions", "date_precision", "learn_post_rules", "record_xpaths"]

_ID_DIGITS = re.compile(r"^([A-Za-z_:-]*[A-Za-z_:-])\d+$")
_ATTRS = ("component", "itemprop", "data-role", "role", "itemtype")
_PRESENCE = ("data-pid", "data-post-id", "data-postid", "data-author", "data-index", "data-msgid")


@dataclass
class Sample:
    """One thread page the template is learned from."""

    root: etree._Element
    url: str
    group: RecordGroup
    #: Page number within its thread, when known (1 for a first page).
    page: int | None = None


def _id_test(prefix: str) -> str:
    literal = xpath_literal(prefix)
    return (f"starts-with(@id, {literal}) and "
            f"translate(substring-after(@id, {literal}), '0123456789', '') = ''")


def _member_tests(members: list[etree._Element]) -> list[str]:
    first = members[0]
    tag = tag_test(first)
    tests = []
    for attr in _ATTRS:
        value = first.get(attr)
        if value and all(m.get(attr) == value for m in members):
            tests.append(f"{tag}[@{attr}={xpath_literal(value)}]")
    prefixes = {(_ID_DIGITS.match(m.get("id") or "") or [None, None])[1] for m in members}
    if len(prefixes) == 1 and None not in prefixes:
        tests.append(f"{tag}[{_id_test(prefixes.pop())}]")
    for attr in _PRESENCE:
        if all(m.get(attr) is not None for m in members):
            tests.append(f"{tag}[@{attr}]")
    common = set(stable_classes(first))
    for member in members[1:]:
        common &= set(stable_classes(member))
    # Tokens that name a record first (``post`` before ``card``), then all of them together.
    ordered = sorted(common, key=lambda t: (not _RECORD_WORD.search(t), t))
    for token in ordered[:1]:
        tests.append(f"{tag}[{has_class_xpath(token)}]")
    if len(common) >= 2:
        tests.append(f"{tag}[{' and '.join(has_class_xpath(t) for t in ordered[:3])}]")
    for token in ordered[1:]:
        tests.append(f"{tag}[{has_class_xpath(token)}]")
    shared = _shared_attributes(members)
    if shared:
        # Old table layouts: no class, but every post table has the same width and colours.
        tests.append(f"{tag}[{' and '.join(f'@{k}={xpath_literal(v)}' for k, v in shared)}]")
    tests.append(tag)
    return tests


def _cell_tests(members: list[etree._Element]) -> list[str]:
    """Rows told apart by a cell they all have (``tr[td[@class~='reply-actions']]``)."""
    common: set[str] | None = None
    for member in members:
        tokens = {t for cell in member if isinstance(cell.tag, str) for t in stable_classes(cell)}
        common = tokens if common is None else common & tokens
    tag = tag_test(members[0])
    return [f"{tag}[*[{has_class_xpath(t)}]]"
            for t in sorted(common or set(), key=lambda t: (not _RECORD_WORD.search(t), t))]


def _shared_attributes(members: list[etree._Element]) -> list[tuple[str, str]]:
    first = members[0]
    return sorted(
        (k, v) for k, v in first.attrib.items()
        if k not in ("id", "class", "href", "src", "name") and len(v) < 40
        and all(m.get(k) == v for m in members)
    )[:3]


def _rowspan_tests(group: RecordGroup) -> list[str]:
    """Table layouts whose records start with a cell spanning the record's rows (the author
    column beside a post's header, body and footer rows): that cell marks a first row, where
    counting rows would also take a footer row after the last post."""
    span = str(group.span)
    cells = [[c for c in m if isinstance(c.tag, str)] for m in group.members]
    if all(any(c.get("rowspan") == span for c in row) for row in cells):
        return [f"{tag_test(group.members[0])}[*[@rowspan={xpath_literal(span)}]]"]
    return []


def _parent_paths(parent: etree._Element) -> list[str]:
    paths = []
    if parent.get("id") and not re.search(r"\d{3,}", parent.get("id") or ""):
        paths.append(f"//*[@id={xpath_literal(parent.get('id') or '')}]")
    for attr in _ATTRS:
        if parent.get(attr):
            paths.append(f"//{tag_test(parent)}[@{attr}={xpath_literal(parent.get(attr) or '')}]")
    for token in stable_classes(parent)[:3]:
        paths.append(f"//{tag_test(parent)}[{has_class_xpath(token)}]")
    grand = parent.getparent()
    if grand is not None and grand.get("id") and not paths:
        paths.append(f"//*[@id={xpath_literal(grand.get('id') or '')}]/{tag_test(parent)}")
    # Last, its place in the page, where nothing names the list (one template renders every
    # thread page the same way).
    paths.append(parent.getroottree().getpath(parent))
    return paths


def record_xpaths(group: RecordGroup) -> list[str]:
    """Absolute XPath candidates for a group's records, most meaningful first."""
    tests = _member_tests(group.members)
    if group.anchored:
        tests = [*_cell_tests(group.members), *tests]
    elif group.span > 1:
        # Table layouts: every span-th row from the first record's row on.
        siblings = [c for c in group.parent if isinstance(c.tag, str)]
        k0 = siblings.index(group.members[0]) + 1
        tests = [f"{t}[position() >= {k0} and (position() - {k0}) mod {group.span} = 0]"
                 for t in tests]
        tests = _rowspan_tests(group) + tests
    exprs = [f"//{t}" for t in tests[:-1]]
    for parent in _parent_paths(group.parent):
        exprs.extend(f"{parent}/{t}" for t in tests)
    return list(dict.fromkeys(exprs))


def _selects_exactly(expr: str, sample: Sample) -> bool:
    try:
        found = sample.root.xpath(expr)
    except etree.XPathError:
        return False
    return len(found) == len(sample.group.members) and all(
        a is b for a, b in zip(found, sample.group.members, strict=False))


def _record_xpath(samples: list[Sample]) -> str | None:
    votes: Counter[str] = Counter()
    for sample in samples:
        for expr in record_xpaths(sample.group):
            votes[expr] += 1
    order = {e: i for i, e in enumerate(record_xpaths(samples[0].group))}
    best = None
    for expr, _ in votes.most_common():
        hits = sum(1 for s in samples if _selects_exactly(expr, s))
        key = (hits, -order.get(expr, 999))
        if best is None or key > best[0]:
            best = (key, expr)
    if best is None or best[0][0] < max(1, (len(samples) + 1) // 2):
        return None
    return best[1]


def _records(expr: str, span: int, samples: list[Sample]) -> list[tuple[Sample, list[Record]]]:
    out = []
    for sample in samples:
        records = []
        for node in sample.root.xpath(expr):
            rows = [node]
            sib = node.getnext()
            while sib is not None and len(rows) < span:
                rows.append(sib)
                sib = sib.getnext()
            records.append(rows)
        out.append((sample, records))
    return out


def learn_post_rules(samples: list[Sample]) -> PostRules | None:
    """Post rules shared by the sample pages, or ``None`` when they share no record."""
    if not samples:
        return None
    spans = Counter(s.group.span for s in samples)
    span = spans.most_common(1)[0][0]
    samples = [s for s in samples if s.group.span == span]
    expr = _record_xpath(samples)
    if expr is None:
        return None
    per_page = _records(expr, span, samples)
    records = [r for _, page in per_page for r in page]
    fields = learn_fields(records)
    rules = PostRules(record=expr, span=span, **fields)  # type: ignore[arg-type]
    pick_post_id(rules, post_id_candidates(records), [recs for _, recs in per_page])
    check_positions(rules, [(s.page, recs) for s, recs in per_page])
    rules.date_precision = date_precision(rules, records)
    return rules


def date_precision(rules: PostRules, records: list[Record]) -> str:
    """``"day"`` when most dates the rule reads carry no time of day; also sets the rules'
    ``date_order`` from the same values."""
    from crawler.learn.apply import read_field
    from crawler.learn.when import date_order, has_clock

    values = [v for r in records if (v := read_field(rules.date, r))]
    rules.date_order = date_order(values)
    with_clock = sum(1 for v in values if has_clock(v))
    return "time" if with_clock * 2 > len(values) else "day"


def check_positions(rules: PostRules, per_page: list[tuple[int | None, list[Record]]]) -> None:
    """Keep the position rule only if it counts up by one on every page, is not the posts'
    own ids (a permalink's text ``#7`` naming post 7), and starts from one number on most
    first pages (ids seeded in order count up too, from another number in each thread);
    learn its offset."""
    from crawler.learn.apply import read_field

    if rules.position is None:
        return
    deltas: Counter[int] = Counter()
    for page, records in per_page:
        values = [read_field(rules.position, r) for r in records]
        numbered = [(i, int(v)) for i, v in enumerate(values) if v and v.isdigit()]
        if len(numbered) < min(2, len(records)):
            continue
        if any(b[1] - a[1] != b[0] - a[0] for a, b in zip(numbered, numbered[1:], strict=False)) \
                or _names_posts(rules, records, values):
            rules.position = None
            return
        if page == 1:
            index, value = numbered[0]
            deltas[index + 1 - value] += 1
    if not deltas:
        # No first page among the samples: numbers shown are taken as positions.
        return
    delta, count = deltas.most_common(1)[0]
    if count * 2 <= deltas.total():
        rules.position = None
        return
    rules.position_delta = delta


def _names_posts(rules: PostRules, records: list[Record], values: list[str | None]) -> bool:
    """Whether the numbers a position rule reads are the posts' ids."""
    from crawler.learn.apply import read_field

    if rules.post_id is None:
        return False
    ids = [read_field(rules.post_id, r) for r in records]
    return all(v is not None for v in values) and ids == values
