"""Second look at a learned template with the whole capture in hand.

The learner sees the first pages of a crawl, often two pages of one thread; the command has a
capture of many threads. The thread title is learned again from one page per thread (two pages
of one thread with ``(Page 2)`` in ``<title>`` would otherwise look like two titles an element
fails to follow), with the learner's own :func:`crawler.learn.thread.learn_title`; when it
finds no element, a heading's child is tried (a heading that adds the pager to the title,
``<h1><a>Title</a> <small>(Page 1 of 3)</small></h1>``, holds the title in its link).

The author is looked at again on every captured post: a letter avatar (NodeBB, esoTalk, Flarum
draw the name's initial in a link to the member's page) looks like a name to the learner. When
most posts hold another link to the same member URL with a longer text, that link is the name.

The thread id's place in a slug URL is looked at again on the first pages of every captured
thread: the learner saw one thread's pages, where a title's number (``/2024-review-123``) takes
one value as the id does; across threads the id is the number in the place every URL has one
and that takes the most values (:func:`crawler.learn.urls.id_position`).

Before the capture, a thread id that shares the page parameter's value (SMF's and ElkArte's
``topic=4.10``: thread 4 from post 10) is read there when the learner named threads by no
number: on one thread's pages the id takes one value, and the learner cannot tell it apart from
a constant.

The board of a thread page without a breadcrumb trail (esoTalk's channel tab, a "posted in"
link) is the one link outside the posts to a board URL with a text, the board's name: the same
element on every captured thread page becomes a trail of one.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

from crawler.learn.dom import element_text, is_inside, parse
from crawler.learn.generalize import best_xpath, eval_first
from crawler.learn.paging import page_number
from crawler.learn.template import FieldRule, Template, TitleRule
from crawler.learn.thread import learn_title
from crawler.learn.urls import fixed_params, id_position, id_regex_for, slots

__all__ = ["refine_author", "refine_board_link", "refine_id_in_page_value", "refine_thread_url",
           "refine_title"]


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
    if rule == template.title or rule.xpath is None and not rule.strip:
        return False  # no element, and no site name around <title> to strip: keep what was
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


def refine_author(template: Template, pages: list[tuple[str, str]]) -> bool:
    """Read the author from the name link rather than a letter avatar linking to the same
    member page (see the module docstring); whether the rule changed."""
    rule = template.posts.author
    if rule is None or rule.value != "." or template.posts.data:
        return False
    pairs, named = [], 0
    for url, text in pages:
        if template.thread_id(url) is None:
            continue
        for record in parse(text, url).xpath(template.posts.record):
            found = eval_first(record, rule.xpath)
            name = _name_link(record, found)
            named += name is not None
            pairs.append((record, name if name is not None else found))
    if not pairs or named * 2 < len(pairs):
        return False
    best = best_xpath(pairs)
    if best is None or best[0] == rule.xpath:
        return False
    template.posts.author = FieldRule(xpath=best[0], value=".", row=rule.row)
    return True


def _name_link(record: Any, found: Any) -> Any:
    """The link in ``record`` to the same URL as ``found`` with the longest text, if longer."""
    link = next((a for a in ([found] if found is not None else []) + list(
        found.iterancestors("a") if found is not None else []) if a.tag == "a"), None)
    href = link.get("href") if link is not None else None
    if not href:
        return None
    same = [a for a in record.iter("a") if a.get("href") == href]
    longest = max(same, key=lambda a: len(element_text(a)))
    return longest if len(element_text(longest)) > len(element_text(found)) else None


def refine_board_link(template: Template, pages: list[tuple[str, str]]) -> bool:
    """With no breadcrumbs learned, read the board from the one link to a board URL that every
    thread page holds outside its posts (see the module docstring); whether one was found."""
    if template.breadcrumbs or not template.board_url:
        return False
    pairs = []
    for url, text in pages:
        if template.thread_id(url) is None:
            continue
        root = parse(text, url)
        posts = root.xpath(template.posts.record)
        # A link that names the board (an icon link "back" to the last listing names none).
        links = [a for a in root.iter("a")
                 if template.board_id(urljoin(url, a.get("href") or "")) is not None
                 and element_text(a) and not any(is_inside(a, post) for post in posts)]
        boards = {a.get("href") for a in links}
        pairs.append((root, links[0] if len(boards) == 1 else None))
    found = sum(1 for _, link in pairs if link is not None)
    best = best_xpath(pairs, min_share=0.9) if found * 10 >= len(pairs) * 9 > 0 else None
    if best is None:
        return False
    template.breadcrumbs = best[0]
    return True


def refine_thread_url(template: Template, pages: list[tuple[str, str]]) -> bool:
    """Learn the thread URL pattern again from the first pages of the captured threads (the
    pages ((url, html)) whose posts the template reads), when their id is in the path (a query
    key names its id); kept when it reads every such page and tells more threads apart."""
    if template.thread_params:
        return False
    urls = [url for url, text in pages if parse(text, url).xpath(template.posts.record)]
    first = sorted({u for u in urls if page_number(template.paging, u) == 1})
    if len(first) < 3:
        return False
    fixed = fixed_params(first, exclude={template.paging.param or ""})
    regex = id_regex_for(first[0], None, "tid", fixed, id_position(first, None))
    if regex is None or regex == template.thread_url:
        return False
    old = template.thread_url
    told_apart = len({template.thread_id(u) for u in first} - {None})
    template.thread_url = regex
    if (any(template.thread_id(u) is None for u in urls)
            or len({template.thread_id(u) for u in first}) <= told_apart):
        template.thread_url = old
        return False
    return True


def refine_id_in_page_value(template: Template, url: str) -> bool:
    """Read the thread id of ``url`` (a thread page) from the number before the page number
    in the page parameter's value (``topic=4.10``), when the learned pattern reads no number."""
    tid, param = template.thread_id(url), template.paging.param
    if (tid is not None and tid.isdigit()) or template.paging.kind != "param" or not param:
        return False
    slot = slots(url).get(("q", param))
    if slot is None or len(slot.numbers) != 2:
        return False
    fixed = fixed_params([url], exclude={param})
    regex = id_regex_for(url, (("q", param), 1), "tid", fixed, (("q", param), 0))
    if regex is None:
        return False
    template.thread_url = regex
    template.thread_params = sorted({param, *fixed})
    return template.thread_id(url) == slot.numbers[0]
