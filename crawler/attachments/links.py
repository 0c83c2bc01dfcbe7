"""Finding a post's attachments in its markup: links and images whose URL an engine's
attachment pattern matches, with the name and the size the forum lists beside them.

Each profile sets ``attachment_url``, a regex whose group ``aid`` is the engine's attachment
id; :func:`find_attachments` applies it to a post. :func:`body_attachments` applies every
engine's pattern (and :data:`CREDITS`) to a post's markup, for readers that know no engine:
the learned reader gives it a post's whole record (:mod:`crawler.learn.files`).
"""

from __future__ import annotations

import base64
import re
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin

from parsel import Selector
from w3lib.url import url_query_cleaner

from crawler.items import Attachment

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

__all__ = ["CREDITS", "ENGINE_PATTERNS", "ID_OF", "body_attachments", "discuz_id",
           "find_attachments", "listed_size"]

#: The attachment URLs of the engines the profiles know (``aid``: the attachment id).
ENGINE_PATTERNS: dict[str, re.Pattern[str]] = {
    "phpbb": re.compile(r"download/file\.php\?(?:[^#]*&)?id=(?P<aid>\d+)"),
    "mybb": re.compile(r"attachment\.php\?(?:[^#]*&)?aid=(?P<aid>\d+)"),
    "smf": re.compile(r"[?;&]action=dlattach;(?:[^#]*;)?attach=(?P<aid>\d+)"),
    "discuz": re.compile(r"mod=attachment&(?:amp;)?(?:[^#]*&)?aid=(?P<aid>[A-Za-z0-9%=+/_-]+)"),
    "vbulletin": re.compile(r"attachment\.php\?(?:[^#]*&)?attachmentid=(?P<aid>\d+)"
                            r"|filedata/fetch\?(?:[^#]*&)?id=(?P<aid5>\d+)"),
    # not /data/attachments/<bucket>/<data id>-<hash>.jpg: a thumbnail, named by its bucket
    "xenforo": re.compile(r"(?<!data)/attachments/(?:[^/?#]*\.)?(?P<aid>\d+)/"),
}

#: A URL that spends credits on an attachment: Discuz!'s purchase page of a priced one, and
#: the page a member is redirected to when the board charges for downloads.
CREDITS = re.compile(r"[?&]action=attach(?:pay|credit)&(?:[^#]*&)?aid=(?P<aid>\d+)")

#: Session and cache parameters dropped from an attachment's URL (the rest may be a token).
_VOLATILE = ("sid", "s", "PHPSESSID", "t")
_SIZE = re.compile(r"(\d+(?:[.,]\d+)?)\s*(bytes?|[kmgt]i?b)\b", re.IGNORECASE)
_UNITS = {"b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
#: How far up from a link its listed size may be: the link's own row, not the whole post.
_ROW_DEPTH = 3


def discuz_id(raw: str) -> str | None:
    """Discuz!'s ``aid=MnwzOWQx...`` is base64 of ``aid|hash|time|uid|tid``: the id is its
    head (the rest changes with every page view)."""
    try:
        decoded = base64.b64decode(unquote(raw), validate=False).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return raw if raw.isdigit() else None
    head = decoded.split("|", 1)[0]
    return head if head.isdigit() else None


#: How an engine's ``aid`` group becomes its attachment id, where it is not the id itself.
ID_OF: dict[str, Callable[[str], str | None]] = {"discuz": discuz_id}


def listed_size(text: str | None) -> int | None:
    """``"(6.17 KiB)"``, ``"Size: 3 MB"``, ``"464 Bytes"`` -> bytes (forums count 1024 a
    kilobyte); None when the text lists no size."""
    found = _SIZE.search(text or "")
    if not found:
        return None
    number = float(found.group(1).replace(",", "."))
    return round(number * _UNITS[found.group(2)[0].lower()])


def find_attachments(post: Selector, base_url: str, pattern: re.Pattern[str],
                     id_of: Callable[[str], str | None] | None = None) -> list[Attachment]:
    """The attachments of *post*: each ``a[href]`` and ``img[src]`` matching *pattern*, once
    per id (a thumbnail and its link are one attachment; the first with a name wins)."""
    found: dict[str, Attachment] = {}
    for element in post.xpath(".//a[@href] | .//img[@src]"):
        url = element.attrib.get("href") or element.attrib.get("src") or ""
        match = pattern.search(url)
        if not match:
            continue
        raw = next((g for g in match.groups() if g), None)
        aid = id_of(raw) if id_of and raw else raw
        if not aid:
            continue
        name = _name(element)
        known = found.get(aid)
        if known is None:
            found[aid] = Attachment(id=aid, url=clean_url(urljoin(base_url, url)), name=name,
                                    size=_size_near(element))
        else:  # an image and its link: the link has the name, its row the size
            known.name = known.name or name
            known.size = known.size if known.size is not None else _size_near(element)
    return list(found.values())


def body_attachments(body_html: str | None, base_url: str) -> list[Attachment]:
    """Attachment links in a post body, by every known engine's URL pattern."""
    if not body_html:
        return []
    body = Selector(text=body_html)
    found: dict[str, Attachment] = {}
    for engine, pattern in [*ENGINE_PATTERNS.items(), ("credits", CREDITS)]:
        for attachment in find_attachments(body, base_url, pattern, ID_OF.get(engine)):
            found.setdefault(attachment.id, attachment)
    return list(found.values())


def clean_url(url: str) -> str:
    """*url* without the session parameters a guest's links carry."""
    return url_query_cleaner(url, _VOLATILE, remove=True, keep_fragments=False) \
        if "?" in url else url


def _name(element: Selector) -> str | None:
    """The link's text, else its (or the thumbnail's it wraps) ``alt`` or ``title``."""
    text = " ".join(t.strip() for t in element.xpath(".//text()").getall() if t.strip())
    for name in (text, *element.xpath("(@alt | @title | .//img/@alt | .//img/@title)").getall()):
        if name and name.strip():
            return " ".join(name.split())
    return None


def _size_near(element: Selector) -> int | None:
    """The size listed right after the link, else in the smallest enclosing row that links
    nowhere else (the link and its thumbnail, each maybe twice: an icon and a name)."""
    after = element.xpath("following-sibling::text()[1]").get()
    if (size := listed_size(after)) is not None:
        return size
    for row in _rows(element):
        if len(set(row.xpath(".//a/@href | .//img/@src").getall())) > 2:
            return None
        if (size := listed_size(" ".join(row.xpath(".//text()").getall()))) is not None:
            return size
    return None


def _rows(element: Selector) -> Iterable[Selector]:
    return element.xpath(f"ancestor::*[position() <= {_ROW_DEPTH}]")[::-1]
