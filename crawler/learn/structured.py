"""Structured data first: schema.org microdata posts become itemprop rules.

When a site marks its posts up as schema.org items (``DiscussionForumPosting``, ``Comment``,
``SocialMediaPosting``, ``Answer``), the record and its fields are declared: the record is the
item, ``author``/``datePublished``/``articleBody``/``text`` are its properties. The learner
then uses these XPath rules rather than mined ones; position and post id, which schema.org
leaves out, still come from the record heuristics. Reading items with extruct would re-parse
every page; the declared properties are plain attributes, so XPath reads them as cheaply as
any other rule.
"""

from __future__ import annotations

from lxml import etree

from crawler.learn.dom import element_text
from crawler.learn.fields import _position_node, _rule, _with_row
from crawler.learn.ids import pick_post_id, post_id_candidates
from crawler.learn.template import FieldRule, PostRules

__all__ = ["POSTING_TYPES", "microdata_rules"]

POSTING_TYPES = ("DiscussionForumPosting", "SocialMediaPosting", "Comment", "Answer", "Question")
_TYPE_TEST = " or ".join(f"substring(@itemtype, string-length(@itemtype) - {len(t) - 1}) = '{t}'"
                         for t in POSTING_TYPES)
RECORD = f"//*[@itemscope][{_TYPE_TEST}]"
_BODY = ".//*[@itemprop='articleBody' or @itemprop='text']"
_DATE = ".//*[@itemprop='datePublished' or @itemprop='dateCreated']"
_AUTHOR_NAME = ".//*[@itemprop='author']//*[@itemprop='name']"
_AUTHOR = ".//*[@itemprop='author']"


def _value_of(nodes: list[etree._Element]) -> str:
    """Which attribute of the date nodes holds the date."""
    for attr in ("content", "datetime", "title"):
        if nodes and all(n.get(attr) for n in nodes):
            return f"@{attr}"
    return "."


def microdata_rules(roots: list[etree._Element]) -> PostRules | None:
    """Rules from schema.org posting items, when the pages have several with a body each."""
    per_page = [[[r] for r in root.xpath(RECORD)] for root in roots]
    records = [r for page in per_page for r in page]
    with_body = [r for r in records if r[0].xpath(_BODY)]
    if len(with_body) < 2 or len(with_body) < 0.8 * len(records):
        return None
    dates = [n for r in with_body for n in r[0].xpath(_DATE)[:1]]
    if len(dates) < 0.8 * len(with_body):
        return None
    names = [n for r in with_body for n in r[0].xpath(_AUTHOR_NAME)[:1]]
    if len(names) >= 0.8 * len(with_body):
        author = FieldRule(_AUTHOR_NAME,
                           _value_of(names) if _value_of(names) == "@content" else ".")
    else:
        authors = [n for r in with_body for n in r[0].xpath(_AUTHOR)[:1]]
        short = [a for a in authors if 0 < len(element_text(a)) <= 60 or a.get("content")]
        if len(short) < 0.8 * len(with_body):
            return None
        author = FieldRule(_AUTHOR, "@content" if all(a.get("content") for a in short) else ".")
    rules = PostRules(
        record=RECORD,
        author=author,
        author_id=_author_id_rule(with_body),
        date=FieldRule(_DATE, _value_of(dates)),
        body=FieldRule(_BODY, "html"),
        position=_rule(with_body, [_with_row(r, _position_node) for r in with_body], 0.5),
    )
    pick_post_id(rules, post_id_candidates(with_body), per_page)
    return rules


def _author_id_rule(records: list[list[etree._Element]]) -> FieldRule | None:
    from crawler.learn.fields import id_regex

    links = [a for r in records for a in r[0].xpath(f"{_AUTHOR}/descendant-or-self::a[@href]")[:1]]
    if len(links) < 0.8 * len(records):
        return None
    regex = id_regex([a.get("href") or "" for a in links])
    return FieldRule(f"{_AUTHOR}/descendant-or-self::a[@href]", "@href", regex) if regex else None
