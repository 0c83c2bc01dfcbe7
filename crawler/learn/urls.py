"""URL shapes: which number in a URL names the thread, which the page, and regexes for both.

A URL is cut into *slots*: each query parameter (``&`` or ``;`` separated, SMF uses both) and
each path segment; numbers inside a slot are its *values*. Two links of one listing differ in
one value: the page (``page=2``, ``start=10``, ``topic=13.15``, ``/page/3``, ``-3.html``) or the
thread. Everything is done on canonical URLs (w3lib), so parameter order does not matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from w3lib.url import canonicalize_url

from crawler.learn.slug_ids import id_like, is_titled, leads_title, number_at

__all__ = ["POST_KEYS", "Slot", "canonical", "clean_url", "id_regex_for", "item_key",
           "page_regex_for", "path_query", "query_items", "slots", "slug_regex_for"]

_SESSION_KEYS = re.compile(
    r"^(?:sid|s|phpsessid|sessionid|jsessionid|session_id|sess|formhash|_dsign)$", re.I)
#: View parameters that never change what a page holds (Discuz's ``extra``, search highlights).
_NOISE_KEYS = re.compile(r"^(?:extra|highlight|hilit|utm_\w+)$", re.I)
_SESSION_VALUE = re.compile(r"^[0-9a-f]{24,}$", re.I)

_NUM = re.compile(r"\d+")
#: RFC 3986 reserved characters a query may hold literally, with a meaning of their own to the
#: server ("&", "=", "+" and "#" left to w3lib).
_RESERVED = frozenset("!$'()*,/:;?@")
_ESCAPE_OR_NUM = re.compile(r"%[0-9A-Fa-f]{2}|\d+")
#: Opens a number group: its digits are not those of a percent-escape (``%E5%98%88``); inside
#: the group, so that the literal text before it stays the regex's head (links.id_hint).
_UNESCAPED = r"(?<!%)(?<!%[0-9A-Fa-f])"


def _numbers(text: str) -> list[re.Match[str]]:
    return [m for m in _ESCAPE_OR_NUM.finditer(text) if not m.group(0).startswith("%")]
_THREAD_KEYS = ("tid", "t", "topic", "thread", "threadid", "thread_id", "topic_id", "id")
#: Query keys of post permalinks (``?post=125``, ``?p=132``, ``?pid=``): never the thread's id.
POST_KEYS = re.compile(r"^(?:p|pid|post|post_id|postid|msg|comment|reply|replytocom)$",
                       re.IGNORECASE)
_SLUG = re.compile(r"[A-Za-z%]{3}")


@dataclass(frozen=True)
class Slot:
    """One query parameter (``key`` set) or path segment (``index`` set) and its text."""

    key: str | None
    index: int | None
    text: str

    @property
    def numbers(self) -> list[str]:
        """Numbers of the slot, percent-escapes (``%E7%81%8C``) not counted."""
        return [m.group(0) for m in _numbers(self.text)]

    @property
    def name(self) -> tuple[str, object]:
        return ("q", self.key) if self.key is not None else ("p", self.index)


def clean_url(url: str) -> str:
    """``url`` without session parameters (``sid=<32 hex>``, ``PHPSESSID``) and its fragment,
    canonicalized; ``&`` and ``;`` separators both understood."""
    parts = urlsplit(url)
    items = [i for i in re.split(r"[&;]", parts.query) if i]
    kept = [i for i in items if not _is_session(i)]
    sep = ";" if ";" in parts.query and "&" not in parts.query else "&"
    query = sep.join(kept)
    rebuilt = parts._replace(query=query, fragment="").geturl()
    if sep != "&":
        return rebuilt
    return canonical(rebuilt)


def canonical(url: str) -> str:
    """:func:`w3lib.url.canonicalize_url`, but with the query's reserved characters as written.

    w3lib escapes the items anew: ``?3,41`` becomes ``?3%2C41=``, which a server that splits
    its query on commas (or reads a route in it) no longer understands. Reserved characters a
    query item holds literally stay literal; w3lib's order and other escapes stay."""
    head, _, tail = canonicalize_url(url).partition("?")
    if not tail:
        return head
    as_written = dict(_item_forms(i) for i in urlsplit(url).query.split("&") if i)
    return head + "?" + "&".join(as_written.get(i, i) for i in tail.split("&"))


@lru_cache(maxsize=4096)
def _item_forms(item: str) -> tuple[str, str]:
    """One query item as w3lib canonicalizes it, and with the reserved characters that
    ``item`` holds literally (and no "=" if it had none) put back."""
    canonical = canonicalize_url("http://h/?" + item).partition("?")[2]
    kept = canonical if "=" in item else canonical.removesuffix("=")
    for char in _RESERVED.intersection(item):
        kept = kept.replace(f"%{ord(char):02X}", char)
    return canonical, kept


def _is_session(item: str) -> bool:
    key, _, value = item.partition("=")
    if _NOISE_KEYS.match(key):
        return True
    if _SESSION_KEYS.match(key) and (key.lower() != "s" or _SESSION_VALUE.match(value)):
        return True
    return bool(_SESSION_VALUE.match(value) and len(value) in (32, 40))


def path_query(url: str) -> str:
    parts = urlsplit(canonical(url))
    return parts.path + ("?" + parts.query if parts.query else "")


def slots(url: str) -> dict[tuple[str, object], Slot]:
    parts = urlsplit(clean_url(url))
    found: dict[tuple[str, object], Slot] = {}
    for index, segment in enumerate(parts.path.split("/")):
        if segment:
            found[("p", index)] = Slot(None, index, segment)
    for item in query_items(parts.query):
        if "=" not in item:
            # A route in the query (``?thread-12-2.htm``, ``?145403-some-title``): one slot
            # with an empty key, whatever its text, so that two threads' URLs line up.
            found[("q", "")] = Slot("", None, item)
            continue
        key, _, value = item.partition("=")
        found[("q", key)] = Slot(key, None, value)
    return found


def query_items(query: str) -> list[str]:
    """The items of a query: ``&`` or ``;`` separated, and a comma route's parameters apart
    (``?3,41,page=2`` is the route ``3,41`` and ``page=2``; ``ids=1,2`` stays one item)."""
    items = []
    for item in re.split(r"[&;]", query):
        if item_key(item) == "" and "=" in item:
            pieces = item.split(",")
            first = next(i for i, p in enumerate(pieces) if "=" in p)
            items.append(",".join(pieces[:first]))
            items.extend(pieces[first:])
        elif item:
            items.append(item)
    return [i for i in items if i]


def item_key(item: str) -> str:
    """The key of a query item; ``""`` for a route: no "=" (``?thread-12.htm``), or a comma
    before it (``?3,41,page=2``, values joined by commas as others join them by "/")."""
    key, eq, _ = item.partition("=")
    return key if eq and "," not in key else ""


def _slot_regex(slot: Slot, group: str | None, number_index: int | None, loose: bool) -> str:
    """Regex of one slot; the number at ``number_index`` becomes ``group`` (or group 1), other
    numbers ``\\d+``; with ``loose``, long slug text between numbers matches any slug."""
    out = []
    position = 0
    for n, match in enumerate(_numbers(slot.text)):
        out.append(_literal(slot.text[position : match.start()], loose))
        if n == number_index:
            out.append(f"(?P<{group}>{_UNESCAPED}\\d+)" if group else r"(\d+)")
        else:
            out.append(r"\d+")
        position = match.end()
    out.append(_literal(slot.text[position:], loose))
    return "".join(out)


def _literal(piece: str, loose: bool) -> str:
    if loose and _SLUG.search(piece) and len(piece) > 12:
        return r"[^/?#&;]*"
    return re.escape(piece)


def id_position(
    urls: list[str], page_slot: tuple[tuple[str, object], int] | None
) -> tuple[tuple[str, object], int] | None:
    """Where the id sits in URLs of one page kind: the number (not the page) that takes the most
    different values across ``urls`` (post permalink keys never). Ties go to thread-like query
    keys, then to a segment after a word (``/topic/13``, not ``/slug/41``), then to a segment
    that is only a number, then to the deeper
    segment (``/forum/<board>/topic/<thread>/``), then to the last number of a slug
    (``slug-12``)."""
    first = slots(urls[0])
    candidates = [
        (name, index) for name, slot in first.items() for index in range(len(slot.numbers))
        if (name, index) != page_slot and not _shared_by_two_texts(urls, name, index, page_slot)
    ]

    def rank(position: tuple[tuple[str, object], int]) -> tuple[bool | int, ...]:
        name, index = position
        slot = first[name]
        # The same place in each URL (opening, closing or n-th number): crawler.learn.slug_ids.
        found = [number_at(s, index, slot) for s in (slots(url).get(name) for url in urls)
                 if s is not None]
        values = {n for n in found if n is not None}
        keyed = name[0] == "q" and name[1] in _THREAD_KEYS
        postish = name[0] == "q" and bool(POST_KEYS.match(str(name[1])))
        bare = slot.text.isdigit()
        # /forum/<board>/topic/<thread>: the deeper one.
        depth = int(name[1]) if name[0] == "p" else 0
        # /topic/13/slug/41: the number after a word names the thread, the one after the slug
        # is a post index.
        previous = first.get(("p", depth - 1)) if name[0] == "p" else None
        # Only a bare number counts (``/t/thread-01/102``: the slug's number is not after a word).
        after_word = bare and previous is not None and bool(
            re.fullmatch(r"[A-Za-z_-]{1,12}", previous.text))
        present = len(found) - found.count(None)
        return (not postish, present, len(values), id_like(slot.numbers[index]), keyed,
                after_word, bare, depth, leads_title(slot.text, index), index - len(slot.numbers))

    return max(candidates, key=rank) if candidates else None


def _shared_by_two_texts(urls: list[str], name: tuple[str, object], index: int,
                         page_slot: tuple[tuple[str, object], int] | None = None) -> bool:
    """Whether two of ``urls`` hold one value at ``index`` of slot ``name`` in different slot
    texts (``how-to-3`` and ``dates-3``, WordPress's suffix for a title used before; ``2,114``
    and ``2,75``, a board's number): a number that stays while the thread changes is not its id.
    In the slot that holds the page too (``topic=12.0``, ``topic=12.10``, ``topic=12.msg127``)
    only the text up to the number counts: what follows it is the page or a post."""
    texts: dict[str, str] = {}
    first = slots(urls[0])[name]
    paged = page_slot is not None and page_slot[0] == name and page_slot[1] > index
    for url in urls:
        slot = slots(url).get(name)
        if slot is None:
            continue
        value = number_at(slot, index, first)  # the same place: opening, closing or n-th
        if value is None:
            return True  # another thread's URL has no number there (``how-to`` beside ``how-to-2``)
        text = slot.text[: _numbers(slot.text)[index].end()] if paged else slot.text
        if texts.setdefault(value, text) != text:
            return True
    return False


def id_regex_for(
    url: str,
    page_slot: tuple[tuple[str, object], int] | None,
    group: str,
    fixed: dict[str, str],
    position: tuple[tuple[str, object], int] | None = None,
) -> str | None:
    """A regex over path+query whose ``group`` is the id at ``position`` (default: the best
    position for ``url`` alone, :func:`id_position`).

    ``page_slot`` is ``(slot name, number index)`` of the page number (SMF's ``topic=13.15``
    holds both); ``fixed`` query parameters (``mod=viewthread``) are required so that other
    page kinds of one script do not match.
    """
    position = position or id_position([url], page_slot)
    if position is None:
        return None
    found = slots(url)
    slot, number_index = found[position[0]], position[1]
    lookaheads = "".join(
        f"(?=(?:.*[?&;])?{re.escape(k)}={re.escape(v)}(?:[&;#]|$))"
        for k, v in sorted(fixed.items()) if k != slot.key
    )
    path = urlsplit(canonicalize_url(url)).path
    if slot.key is not None:
        # What follows the id in the value is left open (SMF: ``topic=13.0``, ``topic=13.msg21``).
        spans = _numbers(slot.text)
        head_text = slot.text[: spans[number_index].end()]
        value = _slot_regex(Slot(slot.key, None, head_text), group, number_index, loose=False)
        key = f"{re.escape(slot.key)}=" if slot.key else ""
        return f"^{re.escape(path)}\\?{lookaheads}(?:.*[&;])?{key}{value}(?:[^0-9]|$)"
    segments = path.split("/")
    head = "/".join(_head_segment(i, s) for i, s in enumerate(segments[: slot.index]))
    own = _id_segment(slot, group, number_index)
    return f"^{head}/{own}(?:[/?#;&]|$){lookaheads}"


def slug_regex_for(url: str, group: str) -> str | None:
    """For thread URLs with no number at all (``/topic/ubuntu-lts-newbie/``): the last path
    segment, a slug, is the id; the segments before it are kept as :func:`id_regex_for` keeps
    them (a route word exact, a board's slug any)."""
    segments = urlsplit(canonicalize_url(url)).path.split("/")
    index = max((i for i, seg in enumerate(segments)
                 if _SLUG.search(seg) and not _NUM.fullmatch(seg)), default=None)
    if index is None or index == 0 or "." in segments[index]:
        return None
    head = "/".join(_head_segment(i, seg) for i, seg in enumerate(segments[:index]))
    return f"^{head}/(?P<{group}>[^/?#&;.]+)(?:[/?#;&]|$)"


#: Path words that name a kind of page, not one board: kept in a thread pattern as they are.
_ROUTE_WORD = re.compile(
    r"^(?:forums?|foren|board|boards|community|talk|threads?|topics?|discussions?|questions?|"
    r"posts?|messages?|showthread|viewtopic|thema|sujet|tema|archives?|index|bbs|read|node)$",
    re.IGNORECASE,
)


def _head_segment(index: int, segment: str) -> str:
    """A path segment before the id: numbers and long slugs loose; a route word (``threads``),
    a short code (``t``, ``f``) or a script name exact; any other word a board's slug, which
    another thread of another board has in another form (``/Talk/adoptions/3940686-…``), as is
    a title with a number (``/t/title-2/123``: another thread's title has none)."""
    if is_titled(segment):
        return r"[^/?#&;]+"
    if _NUM.search(segment) or len(segment) > 20:
        return _slot_regex(Slot(None, index, segment), None, None, loose=True)
    if not segment or len(segment) <= 2 or "." in segment or _ROUTE_WORD.match(segment):
        return re.escape(segment)
    return r"[^/?#&;]+"


def _id_segment(slot: Slot, group: str, number_index: int) -> str:
    """The id's path segment: exact when it is plain (``13``, ``thread-13.html``), slug-tolerant
    when it carries a title (``thread-12-dates-and-times-12``: other threads' slugs differ)."""
    spans = _numbers(slot.text)
    before, after = slot.text[: spans[number_index].start()], slot.text[spans[number_index].end() :]
    # A title after the id (``3940686-Siblings``) differs per thread, however short.
    titled = bool(re.match(r"[-_][^\W\d_]", after))
    if not (_SLUG.search(before) or _SLUG.search(after)) or (
            len(before) <= 12 and len(after) <= 12 and len(spans) == 1 and not titled):
        return _slot_regex(slot, group, number_index, loose=True)
    head = r"(?:[^/?#&;]*[^0-9/?#&;])?" if before else ""
    tail = r"(?:[^0-9/?#&;][^/?#&;]*)?" if after else ""
    return f"{head}(?P<{group}>{_UNESCAPED}\\d+){tail}"


def page_regex_for(url: str, slot_name: tuple[str, object], number_index: int) -> str:
    """A regex whose group 1 is the page value of ``url``-like links."""
    slot = slots(url)[slot_name]
    value = _slot_regex(slot, None, number_index, loose=True)
    if slot.key is not None:
        key = f"{re.escape(slot.key)}=" if slot.key else ""
        return f"[?&;,]{key}{value}(?:[&;,#]|$)"
    previous = slots(url).get(("p", (slot.index or 0) - 1))
    if previous is not None and not previous.numbers and re.fullmatch(r"\d+", slot.text):
        # A bare number is a page only after its word: /page/3, /seite/3.
        return f"/{re.escape(previous.text)}/{value}(?:[/?#]|$)"
    if previous is not None and re.fullmatch(r"\d+", slot.text):
        # After the thread's own number (``/topic/61/2``, ``/topic/146535/108548484/1/title``):
        # the path up to it, so that neither the id nor a board's number reads as the page.
        segments = urlsplit(canonicalize_url(url)).path.split("/")[: slot.index]
        head = "/".join(_head_segment(i, seg) for i, seg in enumerate(segments))
        return f"^{head}/{value}(?:[/?#]|$)"
    return f"/{value}(?:[/?#]|$)"


def fixed_params(urls: list[str], exclude: set[str]) -> dict[str, str]:
    """Non-numeric query parameters with one value in all ``urls`` (``mod=viewthread``)."""
    common: dict[str, str] | None = None
    for url in urls:
        params = {s.key: s.text for s in slots(url).values() if s.key is not None and not s.numbers}
        params = {k: v for k, v in params.items() if k not in exclude and v}
        common = (params if common is None
                  else {k: v for k, v in common.items() if params.get(k) == v})
    return common or {}
