"""Who wrote a post or a comment, from its byline: the name, without the words around it.

Bylines wrap the name in words and punctuation in the site's language ("By Carol Zhang,",
"Posted by Alice on", "Par Jean :", "作者：李雷"). :func:`author_name` keeps the name;
:func:`find_byline` finds it in a post: a ``rel=author`` link, an ``itemprop=author``, or the
innermost element whose class says ``author`` or ``byline`` (its link to an author page if it has
one, else its text, else an avatar's ``alt``), else the one person the post's links to author
pages name (by path or by query: ``/author/alice/``, ``?action=author&id=2``); beside a post, the
same outside the page's header and footer.
"""

from __future__ import annotations

import re

from lxml import etree

from crawler.learn.dom import element_text
from crawler.learn.when import find_date

__all__ = ["author_name", "dated_byline", "find_byline", "post_author"]

#: Words that introduce a name, in the languages blogs are written in.
_PREFIX = re.compile(
    r"^(?:(?:posted|written|published|authored|submitted|words|photos?)\s+by|"
    r"(?:[ée]crit|publi[ée]|r[ée]dig[ée]|post[ée])\s+par|"
    r"(?:geschrieben|verfasst|publiziert|ver[öo]ffentlicht)\s+von|"
    r"(?:scritto|pubblicato)\s+da|(?:escrito|publicado)\s+por|"
    r"(?:geschreven|gepubliceerd)\s+door|(?:napisane|napisany|opublikowane)\s+przez|"
    r"by|from|author|"
    r"autor|auteur|autore|par|von|por|door|di|da|av|af|przez|написал|автор|作者|文|发布者|發表者|"
    r"发表者|投稿者|作成者|글쓴이|작성자)\s*[:：]?\s+|^(?:author|autor|auteur|作者|发布者|作成者)\s*[:：]\s*"
    r"|^由\s*",
    re.IGNORECASE,
)
#: Where the name ends: a comma, a separator, or a word that starts the date ("on", "le", "am").
_SUFFIX = re.compile(
    r"\s*(?:[,;|·•—–]|\s-\s|\s(?:on|at|in|le|am|il|el|op|em|den)(?:\s|$)"
    r"|\s(?:posted|wrote|says?|said|hat gesagt|sagt|schrieb|a dit|a [ée]crit|zei|schreef"
    r"|napisał|dijo|escribió|disse|ha scritto|ha detto)(?:\s|[:：.…]|$)"
    r"|于|於|发表于|發表於|说|說|撰写|撰寫).*$",
    re.IGNORECASE,
)
#: Words that introduce a name and also start names ("de Dave Reader", "De Niro"): dropped only
#: where two or more words are left.
_PARTICLE = re.compile(r"^de\s+(?=\S+\s+\S)", re.IGNORECASE)
_URL = re.compile(r"[a-z][a-z0-9+.-]*://|/", re.IGNORECASE)
_MAILBOX = re.compile(r"\S+@\S+\s+\((.+)\)")
_EDGES = "\"'“”‘’«»()[]{}:：,，;；.。·•|-–—@ \t\r\n"
#: An author's page: by path, or by query ("?author=2", "?action=author&id=2",
#: "?mode=viewprofile&u=2").
_AUTHOR_PAGE = re.compile(
    r"/authors?/|[?&/]author=|/users?/|/members?/|/profile"
    r"|[?&][\w-]+=(?:author|user|member|(?:view)?profile)(?:&|$)",
    re.IGNORECASE,
)
_INNERMOST = (
    ".//*[contains(@class, 'author') or contains(@class, 'byline')]"
    "[not(.//*[contains(@class, 'author') or contains(@class, 'byline')])]"
)


def author_name(text: str | None) -> str | None:
    """*text* less the words and punctuation around the name; None when nothing is left."""
    if not text or _URL.match(text.strip()):
        return None  # a microdata name on a link is its href (``<a itemprop=name href>``)
    name = " ".join(text.split())
    mailbox = _MAILBOX.fullmatch(name)
    if mailbox:
        name = mailbox.group(1)  # RSS "mail@example.org (Name)"
    for _ in range(2):  # "Posted by: by ..." themes stack them
        name = _PREFIX.sub("", name).strip(_EDGES)
    name = _PARTICLE.sub("", name)
    name = _SUFFIX.sub("", name).strip(_EDGES)
    if not any(c.isalpha() for c in name):
        return None  # a comment's number ("#1"), a date: a name has letters
    return name if len(name) <= 60 and len(name.split()) <= 6 else None


def post_author(root: etree._Element, post: etree._Element) -> str | None:
    """The author of the *post* on page *root*: the page's ``meta name=author`` when the post
    shows that name as a whole element of its own (a byline's value: the meta then names this
    post's author, not the site's, and beats a link labelled "Posts by this author"), else the
    post's byline, else one beside it."""
    for meta in root.xpath("//meta[@name='author' or @property='article:author']/@content"):
        name = author_name(str(meta))
        if name and any(author_name(element_text(node)) == name
                        for node in post.iter() if isinstance(node.tag, str)
                        and not _in_comments(node) and len(element_text(node)) <= 80):
            return name
    return find_byline(post) or find_byline(root, beside=True)


def find_byline(scope: etree._Element, beside: bool = False) -> str | None:
    """The author *scope* names: its ``rel=author`` or ``itemprop=author``, else its innermost
    author/byline element. *beside*: the scope is the page around a post (a sidebar's byline
    counts, the site's header and footer do not)."""
    for node in scope.xpath(".//a[contains(concat(' ', @rel, ' '), ' author ')] | "
                            ".//*[@itemprop='author']"):
        name = author_name(_itemprop_name(node) or element_text(node))
        if name:
            return name
    for node in scope.xpath(_INNERMOST):
        if _in_comments(node) or (beside and node.xpath("ancestor::header | ancestor::footer")):
            continue
        name = author_name(_named_in(node))
        if name:
            return name
    return _author_page_link(scope, beside)


def _author_page_link(scope: etree._Element, beside: bool) -> str | None:
    """The one person *scope*'s links to author pages name: a post's own header ("<a
    href=?action=author&id=2>Written by Alice</a>"), or beside it outside the page's header and
    footer (a documentation layout's post card: "Author: <a href=/blog/author/alice/>")."""
    where = "[not(ancestor::header or ancestor::footer)]" if beside else ""
    names = {
        author_name(element_text(link))
        for link in scope.xpath(f".//a[@href]{where}")
        if _AUTHOR_PAGE.search(link.get("href") or "") and not _in_comments(link)
    }
    names.discard(None)
    return names.pop() if len(names) == 1 else None


def _itemprop_name(node: etree._Element) -> str | None:
    named = node.xpath(".//*[@itemprop='name']")
    return element_text(named[0]) if named else None


def _named_in(node: etree._Element) -> str | None:
    """A byline's link to the author's page, else the node's text, else an avatar's alt."""
    for link in node.xpath("ancestor-or-self::*[position() <= 2]//a[@href]"):
        if _AUTHOR_PAGE.search(link.get("href") or "") and element_text(link):
            return element_text(link)
    text = element_text(node)
    if text:
        return text
    alts = node.xpath(".//img/@alt")
    return str(alts[0]) if alts else None


def _in_comments(node: etree._Element) -> bool:
    return bool(node.xpath("ancestor::*[contains(@class, 'comment') or contains(@id, 'comment')]"))


def dated_byline(line: str) -> str | None:
    """The name in a post's date line that introduces it with a byline's words ("written by
    Carol Zhang on 2024-03-22", "Par Jean, 5 janvier 2024"); None for a line without them (a
    category, a place: "Posted in Notes on …")."""
    date = find_date(line)
    text = " ".join(line.replace(date, " ").split()) if date else line
    if not _PREFIX.match(text):
        return None
    return author_name(text)
