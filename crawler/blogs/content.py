"""A post's body markup: its content element less the metadata themes put inside it (dates,
bylines, tags, share buttons, comment sections), scripts and forms."""

from __future__ import annotations

import copy
import re

from lxml import etree, html

from crawler.learn.dom import inner_html

__all__ = ["clean_html", "drop_keeping_tail", "post_body", "text_block"]

_META = re.compile(
    r"post-info|entry-meta|entry-footer|post-meta|byline|posted-on|share|social|sharedaddy|"
    r"jp-relatedposts|tags-links|cat-links|entry-tags|post-tags|related|page-links|nextprev|"
    r"prev-next|post-nav",
    re.IGNORECASE,
)
_DISCUSSION = re.compile(r"comments|trackbacks|pingbacks|respond|comment-?form", re.IGNORECASE)
_WHOLE_ID = re.compile(r"[a-z]+(?:[-_][a-z]+)?", re.IGNORECASE)
_SECTIONS = {"section", "div", "aside", "ol", "ul", "nav"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


def post_body(node: etree._Element, drop: tuple[str, ...] = ("footer", "header")) -> str | None:
    """``node``'s markup less the metadata themes put inside the content (dates, bylines, tags,
    share buttons), scripts and forms."""
    node = copy.deepcopy(node)
    for form in node.xpath(".//form"):
        drop_keeping_tail(_form_block(form, node))
    for junk in node.xpath(".//script | .//style | .//noscript | .//comment()"):
        drop_keeping_tail(junk)
    for junk in list(node.iter()):
        if not isinstance(junk.tag, str) or junk is node:
            continue
        # an id counts whole ("comments"): ids made from headings ("post-07-threaded-comments") are
        # the post's own sections
        ident = junk.get("id") or ""
        label = (junk.get("class") or "") + " " + (ident if _WHOLE_ID.fullmatch(ident) else "")
        if junk.tag in drop or _META.search(label) or _discussion(junk, label):
            drop_keeping_tail(junk)
    _drop_trailing_links(node)
    markup = inner_html(node)
    return markup or None


def _drop_trailing_links(node: etree._Element) -> None:
    """Layout blocks after the text that hold nothing but links (a "Return" button, a pager):
    navigation, not the post's words."""
    while len(node) and node[-1].tag in ("div", "nav") and _has_text(node[-1]) and not "".join(
            t for t in node[-1].xpath(".//text()[not(ancestor::a)]")).strip():
        drop_keeping_tail(node[-1])


def text_block(post: etree._Element) -> etree._Element:
    """The element of *post* that holds its paragraphs: the byline blocks, date lines and
    related links some themes put beside the text inside the post (a ``<dl>`` of author and
    date, a meta line) stay out. The post itself when its paragraphs are not together."""
    paragraphs = [p for p in post.xpath(".//p[not(ancestor::header or ancestor::footer or "
                                        "ancestor::nav or ancestor::aside)]")
                  if not _in_discussion(p, post)]
    if len(paragraphs) < 2:
        return post
    holders = [set(p.iterancestors()) for p in paragraphs]
    for node in paragraphs[0].iterancestors():
        if node is post:
            return post
        if all(node in held for held in holders[1:]):
            return node
    return post


def _in_discussion(node: etree._Element, post: etree._Element) -> bool:
    """*node* is in a comment or a form inside *post* (a comment list inside ``<article>``)."""
    for parent in node.iterancestors():
        if parent is post:
            return False
        label = f"{parent.get('class') or ''} {parent.get('id') or ''}".lower()
        if parent.tag == "form" or "comment" in label:
            return True
    return False


def _form_block(form: etree._Element, top: etree._Element) -> etree._Element:
    """The form with the blocks around it that hold nothing else but a heading: a comment
    form's section ("Add Comment", "Leave a Reply") whatever its id or class."""
    block = form
    for parent in form.iterancestors():
        if parent is top or parent.tag not in _SECTIONS:
            break
        others = [c for c in parent if c is not block]
        if any(isinstance(c.tag, str) and c.tag not in _HEADINGS and _has_text(c)
               for c in others) or (parent.text or "").strip() or any(
                   (c.tail or "").strip() for c in parent):
            break
        block = parent
    return block


def _has_text(node: etree._Element) -> bool:
    return bool("".join(node.itertext()).strip())


def _discussion(node: etree._Element, label: str) -> bool:
    """A comment or trackback section that the theme put inside the article."""
    return node.tag in _SECTIONS and bool(_DISCUSSION.search(label))


def drop_keeping_tail(node: etree._Element) -> None:
    parent = node.getparent()
    if parent is None:
        return
    tail = node.tail
    previous = node.getprevious()
    parent.remove(node)
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


def clean_html(markup: str) -> str | None:
    fragment = html.fragment_fromstring(markup, create_parent="div")
    return post_body(fragment)
