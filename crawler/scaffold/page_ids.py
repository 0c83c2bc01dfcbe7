"""A thread's id written in its pages' markup, for URLs that name the thread by no id: the rule
is learned by :mod:`crawler.learn.page_ids` (the learned reader learns it too); here from the
captured pages' text."""

from __future__ import annotations

from crawler.learn.dom import parse
from crawler.learn.page_ids import learn_page_id
from crawler.learn.template import Template

__all__ = ["learn_page_thread_id"]


def learn_page_thread_id(template: Template, pages: list[tuple[str, str]]
                         ) -> dict[str, str] | None:
    """The rule (``xpath`` of attribute values, ``regex`` with one group) reading the thread
    id from a thread page, when some captured thread's URL gives none; ``None`` otherwise."""
    return learn_page_id(template, [(url, parse(text, url)) for url, text in pages])
