"""Comments of a blog page from repeated comment blocks, for themes no reader knows.

The comment section is the outermost element whose id or class says ``comment``; inside it the
comments are mined as repeated records with an author, a date and text, and their fields are
learned the way forum posts are (:mod:`crawler.learn.records`, :mod:`crawler.learn.fields`):
the same problem at a smaller scale. WordPress' core list (``ol.comment-list``) and h-entry
``comment`` properties are read before this (:mod:`crawler.blogs.wordpress`,
:mod:`crawler.blogs.entry`); comment widgets loaded by JavaScript (Disqus, giscus) are not in
the page and are not found.
"""

from __future__ import annotations

import hashlib
from typing import Any

from crawler.learn.apply import read_field
from crawler.learn.dom import element_text, inner_html, parse
from crawler.learn.fields import learn_fields
from crawler.learn.generalize import eval_first
from crawler.learn.records import mine_records

__all__ = ["comment_blocks"]

_SECTION = (
    "//*[contains(translate(@id, 'COMENT', 'coment'), 'comment') or "
    "contains(translate(@class, 'COMENT', 'coment'), 'comment')]"
    "[not(ancestor::*[contains(translate(@id, 'COMENT', 'coment'), 'comment') or "
    "contains(translate(@class, 'COMENT', 'coment'), 'comment')])]"
)


def comment_blocks(text: str, url: str, article_url: str) -> list[dict[str, Any]]:
    root = parse(text, url)
    comments: list[dict[str, Any]] = []
    for section in root.xpath(_SECTION):
        groups = mine_records(section)
        if not groups:
            continue
        records = [group.rows(m) for m in groups[0].members for group in groups[:1]]
        rules = learn_fields(records)
        body_rule = rules.get("body")
        for record in records:
            body = eval_first(record[body_rule.row], body_rule.xpath) if body_rule is not None else None
            body_html = inner_html(body) if body is not None else None
            if not body_html:
                continue
            author = read_field(rules.get("author"), record)  # type: ignore[arg-type]
            created = read_field(rules.get("date"), record)  # type: ignore[arg-type]
            own_id = read_field(rules.get("post_id"), record)  # type: ignore[arg-type]
            digest = hashlib.sha1(f"{author}\x1f{created}\x1f{element_text(body)}".encode()).hexdigest()[:16]
            comments.append(
                {
                    "article_url": article_url,
                    "comment_id": own_id or digest,
                    "author": author,
                    "created_raw": created,
                    "body_html": body_html,
                }
            )
        if comments:
            break
    return comments
