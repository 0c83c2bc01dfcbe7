"""Second look at a learned template with the whole capture in hand.

The learner sees the first pages of a crawl, often two pages of one thread; the command has a
capture of many threads. The thread title is learned again from one page per thread (two pages
of one thread with ``(Page 2)`` in ``<title>`` would otherwise look like two titles an element
fails to follow), with the learner's own :func:`crawler.learn.thread.learn_title`; when it
finds no element, a heading's child is tried (a heading that adds the pager to the title,
``<h1><a>Title</a> <small>(Page 1 of 3)</small></h1>``, holds the title in its link).
"""

from __future__ import annotations

from typing import Any

from crawler.learn.dom import element_text, parse
from crawler.learn.template import Template, TitleRule
from crawler.learn.thread import learn_title

__all__ = ["refine_title"]


def refine_title(template: Template, pages: list[tuple[str, str]]) -> bool:
    """Set the title rule from ``pages`` ((url, html)) when one is found; whether it changed."""
    threads: dict[str, Any] = {}
    others = []
    for url, text in pages:
        tid = template.thread_id(url)
        if tid is None:
            others.append(parse(text, url))
        elif tid not in threads:
            threads[tid] = (parse(text, url), url)
    if len(threads) < 2:
        return False
    rule = learn_title(list(threads.values()), others)
    if rule.xpath is None:
        rule = _heading_child([root for root, _ in threads.values()]) or rule
    if rule.xpath is None or rule == template.title:
        return False
    template.title = rule
    return True


_HEADING_CHILDREN = ("//h1/a", "//h1/span", "//h2/a", "//h2/span")


def _heading_child(roots: list[Any]) -> TitleRule | None:
    """The first heading child whose text is in every page's ``<title>`` and differs from
    thread to thread."""
    for expr in _HEADING_CHILDREN:
        texts = []
        for root in roots:
            found = root.xpath(expr)
            text = element_text(found[0]) if found else ""
            if not text or text not in (root.findtext(".//title") or ""):
                break
            texts.append(text)
        if len(texts) == len(roots) and len(set(texts)) == len(texts):
            return TitleRule(xpath=f"({expr})[1]", strip=[])
    return None
