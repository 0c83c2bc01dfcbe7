"""Same-site links worth following on a forum whose URL scheme is not known yet.

Left out: other hosts, fragments of the page itself, assets, feeds, links marked
``rel=nofollow``, the targets of the page's forms (a reply box, a search or login form posts
there), and actions a reader does not need, told by the URL's structure:

* a path segment, a query route (``?thread-create-3.htm``) or a script name
  (``newreply.php``, ``posting.php``) that is an action verb: reply, new, create, quote, edit,
  delete, report, login, register, search, print, mark-read, subscribe, like, vote, ...;
* a query key that names an action or a view (``action=``, ``do=``, ``mode=``) and member,
  search, feed and permalink keys (:data:`_DENY`);
* a post's permalink by its anchor: the number of the link's fragment is a value of its query
  (``?show=114#a114``, ``?answer=4#post-id-4``): it shows a thread's page again;
* a view of the page itself: its path (not a script's) with more query items whose values are
  words (``/unanswered?by=votes``, ``/thread/X/?noscript``): the same list or posts again.

Session parameters are dropped (:func:`~crawler.learn.urls.clean_url`).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from urllib.parse import SplitResult, urljoin, urlsplit

from lxml import etree

from crawler.learn.urls import POST_KEYS, clean_url

__all__ = ["Frontier", "follow_links", "id_hint", "is_action", "is_denied", "views_a_thread"]

_DENY = re.compile(
    r"log(?:in|on|out|off)|/pm(?:\.php)?(?:[/?]|$)|"  # private messages
    r"register|signup|sign_up|lostpw|password|search|memberlist|member\.php|profile|/users?/|"
    r"/u/|/members?/|/badges?/|uid=|[?&;]u=|space|misc\.php|help|faq|rules|calendar|stats|who(?:is)?online|online\.php|"
    r"action=(?!forum)|do=|mode=|goto=|findpost|findcomment|showpost|lastpost|newpost|[?&;]pid=|replytocom|"
    r"newtopic|newthread|newreply|posting\.php|post\.php|reply|edit|delete|report|print|archive|mobile=|"
    r"rss|feed|syndication|\.xml|ucp\.php|mcp\.php|/post/\d|/posts/\d|authorid=|ordertype=|[?&;]sort\w*=|order=|"
    r"/(?:sort|order)(?:by)?:|"  # a list's sort order as a path parameter (``/sort:votes-desc/``)
    r"\.(?:css|js|png|jpe?g|gif|svg|ico|zip|pdf|webp|mp4|rar|7z|gz|tgz|bz2|xz|tar|mbox)(?:$|\?)|"
    r"/api/|/assets/|/static/|/uploads?/",
    re.IGNORECASE,
)
#: Verbs of actions a reader never needs, as whole words of a route (not of a title).
_VERBS = frozenset(
    "add new create compose publish post reply respond quote edit update delete remove report flag "
    "like unlike vote upvote downvote bookmark favorite favourite subscribe unsubscribe "
    "subscription subscriptions "
    "watch unwatch "
    "follow unfollow ignore block move merge split lock unlock pin unpin close moderate moderation "
    "approve hide print share email send login logout logon logoff signin signout signup register "
    "join password "
    "reset activate search markread mark preview upload attach download export history revisions "
    "find ask "
    "jump goto lastpost newpost newreply newtopic newthread notifications".split()
)
#: Words that, beside a verb, still name a route and not a title (``new-topic``, ``post-reply``).
_ROUTE_NOUNS = frozenset(
    "topic topics thread threads post posts message messages comment comments reply replies forum "
    "forums board boards discussion question answer conversation pm all as read page item poll "
    "polls".split()
)
#: Query keys whose value is an action or a view mode (``?action=post``, ``?mode=reply``).
_VERB_KEYS = frozenset("action act a do mode op task cmd func view".split())
_WORD = re.compile(r"[a-z]+|\d+")


def is_action(url: str) -> bool:
    """Whether ``url`` (absolute or a path) asks for an action rather than a page to read: a
    route word that is a verb (a whole path segment of at most three words, a script's name,
    a route in the query), or a verb as the value of an action key."""
    parts = urlsplit(url)
    for segment in parts.path.lower().split("/"):
        name = segment.rsplit(".", 1)[0] if "." in segment else segment
        words = [w for w in _WORD.findall(name) if not w.isdigit()]
        if not words or len(words) > 3 or len(name) > 24:
            continue  # a number or a title's slug, not a route
        if _route_verb(words) or _verb([name.replace("-", "").replace("_", "")]):
            return True
    for item in re.split(r"[&;]", parts.query.lower()):
        key, eq, value = item.partition("=")
        if not eq:  # a route in the query: ``thread-create-3.htm``
            words = [w for w in _WORD.findall(key.rsplit(".", 1)[0]) if not w.isdigit()]
            if words and len(words) <= 3 and _route_verb(words):
                return True
        elif key in _VERB_KEYS and value and any(value.startswith(v) for v in _VERBS if len(v) > 3):
            return True
    return False


def _verb(words: list[str]) -> bool:
    return any(w in _VERBS for w in words)


def _route_verb(words: list[str]) -> bool:
    """A verb among words that are all verbs or route nouns: ``create``, ``new-topic``,
    ``thread-create`` (and not the slug ``new-user``)."""
    return _verb(words) and all(w in _VERBS or w in _ROUTE_NOUNS for w in words)


def _denied(path: str, query: str) -> bool:
    """Deny words in the query or in short path segments (a long slug may say "search")."""
    short = [s for s in path.split("/") if len(s) <= 24]
    text = "/" + "/".join(short) + ("/" if path.endswith("/") else "") + "?" + query
    target = path + ("?" + query if query else "")
    return bool(_DENY.search(text)) or is_action(target) or _permalink(query)


def is_denied(url: str) -> bool:
    """Whether ``url`` is a link no reader follows (an action, a member or search page)."""
    parts = urlsplit(url)
    return _denied(parts.path, parts.query)


def _permalink(query: str) -> bool:
    """A post's permalink (``?p=104``, ``/topic/3/?post=125``): every numbered query key is a
    post key, so the URL shows a thread's page again, which comes by its own URL. (``?id=3&p=2``
    is a page: it names the thread too.)"""
    keys = {k for k, _, v in (i.partition("=") for i in re.split(r"[&;]", query)) if v.isdigit()}
    return bool(keys) and all(POST_KEYS.match(k) for k in keys)


def _nofollow(a: etree._Element) -> bool:
    return "nofollow" in (a.get("rel") or "").lower().split()


def form_targets(root: etree._Element, url: str) -> set[str]:
    """Where the page's forms send (a reply box, search, login): not pages to read. A form
    that sends to the page itself (a jump box) is left out."""
    here = clean_url(url)
    targets = set()
    for form in root.iter("form"):
        action = (form.get("action") or "").strip()
        if action and not action.startswith(("#", "javascript:")):
            target = clean_url(urljoin(url, action))
            if target != here:
                targets.add(target)
    return targets


def _hrefs(root: etree._Element) -> Iterator[tuple[etree._Element, str]]:
    """Each link of the page and its target: ``<a href>``, and the ``src`` of a frame or an
    inline frame (a frameset page, or a layout that shows its thread list or thread in an
    iframe, has its pages there and nowhere else)."""
    for element in root.iter("a", "frame", "iframe"):
        yield element, (element.get("href" if element.tag == "a" else "src") or "").strip()


def _anchored_permalink(parts: SplitResult) -> bool:
    """Whether the link's fragment names the number one of its query values holds: a post's
    permalink (``?show=114#a114``), which shows a thread's page again."""
    number = re.search(r"\d+", parts.fragment)
    return number is not None and any(
        value == number.group() for _, _, value in (
            i.partition("=") for i in re.split(r"[&;]", parts.query)))


def _views_page(parts: SplitResult, page: SplitResult) -> bool:
    """Whether the link is a view of the page itself: the same path (not a script, whose query
    is its route), the page's query items and more, whose values are words or nothing
    (``?by=votes``, ``?noscript``): the same list or posts, sorted or shown otherwise."""
    if parts.path != page.path or "." in parts.path.rsplit("/", 1)[-1]:
        return False
    mine = {i for i in re.split(r"[&;]", page.query) if i}
    items = {i for i in re.split(r"[&;]", parts.query) if i}
    extra = items - mine
    # A value with a number is another page (``?page=2``), and so is a route (``?forum-1.htm``).
    return bool(extra) and mine <= items and not any(
        re.search(r"\d", i.partition("=")[2] if "=" in i else i) for i in extra)


def _skipped(parts: SplitResult, page: SplitResult) -> bool:
    """A link no reader follows: denied (:func:`_denied`), a post's permalink by its anchor,
    or a view of the page itself."""
    return _denied(parts.path, parts.query) or _anchored_permalink(parts) \
        or _views_page(parts, page)


def follow_links(root: etree._Element, url: str) -> list[str]:
    host = urlsplit(url).netloc
    here = clean_url(url)
    page = urlsplit(url)
    found: dict[str, None] = {}
    forms = form_targets(root, url)
    for a, href in _hrefs(root):
        if not href or href.startswith(("#", "javascript:", "mailto:", "tel:")) or _nofollow(a):
            continue
        absolute = urljoin(url, href)
        parts = urlsplit(absolute)
        if parts.netloc != host or parts.scheme not in ("http", "https"):
            continue
        if _skipped(parts, page):
            continue
        cleaned = clean_url(absolute)
        if cleaned != here and cleaned not in forms:
            found.setdefault(cleaned, None)
    return list(found)


def id_hint(regex: str | None, group: str) -> str | None:
    """The literal text just before an id in a URL regex (``tid=``, ``topic/``): a link without
    it cannot match, so most links are skipped before any URL parsing."""
    if not regex:
        return None
    head = regex.split(f"(?P<{group}>", 1)[0]
    match = re.search(r"((?:[A-Za-z0-9_-]|\\[./-])+[=/-]?)$", head.replace("\\=", "="))
    return match.group(1).replace("\\", "") if match else None


def views_a_thread(hint: str | None, url: str, here: str, tid: str | None) -> bool:
    """Whether ``url``, a link of page ``here`` and no thread page, is another script's view
    of thread ``tid`` (``here``'s own) or of the thread ``here`` names by the thread URLs'
    query key (a frameset around a post, ``index.php?msg=3.2``, and its frames): it holds that
    number under that key (``tid=3``, ``msg=3.2``): a print view, a frameset, a font-size
    switch. The thread comes by its own URL. A board that shares the key names another
    number (``viewforum.php?id=2`` beside ``viewtopic.php?id=3``), and a listing's own pages
    (``viewforum.php?id=2&p=2``) keep its script."""
    if not hint or not hint.endswith("="):
        return False
    if tid is None:
        found = re.search(rf"[?&;]{re.escape(hint)}(\d+)", here)
        if not found or urlsplit(url).path == urlsplit(here).path:
            return False
        tid = found.group(1)
    return re.search(rf"[?&;]{re.escape(hint)}{re.escape(tid)}(?!\d)", url) is not None


@lru_cache(maxsize=64)
def _hint_pattern(hints: tuple[str, ...]) -> re.Pattern[str]:
    # "t=" must not match "start=": a hint starts the href or follows a separator.
    return re.compile("|".join(f"(?:^|[^A-Za-z0-9_]){re.escape(h)}" for h in hints) or "(?!)")


def hinted_links(root: etree._Element, url: str, hints: tuple[str, ...]) -> list[str]:
    """:func:`follow_links` for the links whose href holds one of ``hints``."""
    host = urlsplit(url).netloc
    page = urlsplit(url)
    found: dict[str, None] = {}
    pattern = _hint_pattern(hints)
    seen: set[str] = set()
    forms = form_targets(root, url)
    for a, href in _hrefs(root):
        if href in seen or not pattern.search(href) or href.startswith(("#", "javascript:")) \
                or _nofollow(a):
            continue
        seen.add(href)
        absolute = urljoin(url, href)
        parts = urlsplit(absolute)
        if parts.netloc == host and not _skipped(parts, page):
            if (cleaned := clean_url(absolute)) not in forms:
                found.setdefault(cleaned, None)
    return list(found)


class Frontier:
    """Per site, what the learned template asks for beyond its patterns: each thread read
    once, by its id whatever URL form links it (``/topic/12/slug`` and ``/topic/12?page=2`` are one
    thread), and up to ``budget`` pages that no pattern places (the template is unsure of
    them: a board or thread list of another URL form), breadth-first like a plain crawler."""

    def __init__(self, budget: int = 30) -> None:
        self.budget = budget
        #: Thread id -> the URL it was asked for under.
        self.threads: dict[str, str] = {}
        #: 8-byte digest of each post read so far (its author, date and text) -> its thread id:
        #: content, as an id read off the page may count within the thread.
        self.posts: dict[int, str] = {}

    def owner(self, thread_id: str, keys: list[str]) -> tuple[str, set[str]]:
        """The thread a page's posts belong to, and the keys among them read already. Two URL
        forms of one thread can name it by other ids (``/topic/some-title/``,
        ``/topic/12?page=2``): the posts tell, as the thread read first holds most of them
        (two at least). The page's new posts are recorded under that thread."""
        digests = {key: _digest(key) for key in keys}
        held = Counter(self.posts[d] for d in digests.values() if d in self.posts)
        owner, count = held.most_common(1)[0] if held else (thread_id, 0)
        if count < 2 or count * 2 <= len(keys):
            owner = thread_id  # two threads may share a post's text ("Thanks!" the same day)
        seen = {key for key, digest in digests.items() if self.posts.get(digest) == owner}
        for digest in digests.values():
            self.posts.setdefault(digest, owner)
        return owner, seen

    def read_before(self, keys: list[str]) -> bool:
        """Whether every post of ``keys`` (their digests) was read already."""
        return bool(keys) and all(_digest(key) in self.posts for key in keys)

    def first_time(self, thread_id: str | None, url: str) -> bool:
        """Whether thread ``thread_id`` was not read yet under another URL than ``url`` (now
        it is read under ``url``)."""
        if thread_id is None:
            return True
        return self.threads.setdefault(thread_id, clean_url(url)) == clean_url(url)

    def read_elsewhere(self, thread_id: str | None, url: str) -> bool:
        """Whether thread ``thread_id`` was read under another URL than ``url`` already."""
        return thread_id in self.threads and self.threads[thread_id] != clean_url(url)

    def unsure(self) -> bool:
        """Whether one more page no pattern places may be followed (then it is counted)."""
        self.budget -= 1
        return self.budget >= 0


def _digest(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")
