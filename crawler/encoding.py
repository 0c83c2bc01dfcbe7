"""Charset handling for pages whose HTTP header lies about the encoding.

Chinese forums often send ``Content-Type: text/html; charset=utf-8`` (a proxy or CDN default)
for pages that are really GBK or Big5, or send no charset at all. :func:`decode_html` picks the
encoding in this order:

1. a byte-order mark;
2. the HTTP header charset, if the body decodes under it without errors;
3. the ``<meta charset>`` / ``http-equiv`` declaration, if the body decodes under it;
4. detection with charset-normalizer;
5. the profile's default charset (``gb18030`` for Discuz!), decoding with replacement.

GBK and GB2312 are read as GB18030 (a superset) through :func:`w3lib.encoding.resolve_encoding`.

A GBK byte pair is also valid UTF-8 about 8% of the time ("一" is "һ"), so a short page can
decode cleanly under a lying UTF-8 header. When header and meta disagree and both decode, the
meta wins if the header's reading holds unassigned code points, or if the meta names a CJK
charset whose reading is CJK text while the header's reading has none; otherwise the header
wins, as HTML specifies.

:class:`CharsetMiddleware` applies this to every text response before the spider sees it.
"""

from __future__ import annotations

import codecs
import logging
import unicodedata
from typing import TYPE_CHECKING, Self

import charset_normalizer
from scrapy.http import TextResponse
from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    resolve_encoding,
)

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

__all__ = ["CharsetMiddleware", "decode_html", "detect_encoding"]

_CJK = {
    "gb18030",
    "gbk",
    "gb2312",
    "big5",
    "big5hkscs",
    "cp950",
    "shift_jis",
    "cp932",
    "euc_jp",
    "euc_kr",
    "cp949",
}
# Encodings where any byte sequence decodes, so a clean decode proves nothing.
_SINGLE_BYTE = {"cp1252", "latin_1", "iso8859-1", "ascii", "iso8859-15", "windows-1252"}


def detect_encoding(
    body: bytes, *, header_charset: str | None = None, default: str | None = None
) -> tuple[str, str]:
    """Return ``(encoding, source)`` for ``body``; ``source`` says which rule decided."""
    bom_encoding, _ = read_bom(body)
    if bom_encoding:
        return _canonical(bom_encoding), "bom"
    meta = _resolve(html_body_declared_encoding(body))
    header = _resolve(header_charset)
    if header and _decodes(body, header) and not _meta_fits_better(header, meta, body):
        return header, "header"
    if meta and _decodes(body, meta):
        return meta, "meta"
    detected = _detect(body)
    if detected:
        return detected, "detected"
    return _resolve(default) or "utf-8", "default"


def decode_html(
    body: bytes, *, header_charset: str | None = None, default: str | None = None
) -> tuple[str, str]:
    """Return ``(text, encoding)``; undecodable bytes of the last resort become U+FFFD."""
    encoding, _ = detect_encoding(body, header_charset=header_charset, default=default)
    return body.decode(encoding, errors="replace"), encoding


def _resolve(label: str | None) -> str | None:
    if not label:
        return None
    resolved = resolve_encoding(label)
    return _canonical(resolved) if resolved else None


def _canonical(name: str) -> str:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return name


def _decodes(body: bytes, encoding: str) -> bool:
    try:
        body.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return False
    return True


def _meta_fits_better(header: str, meta: str | None, body: bytes) -> bool:
    """Header and meta disagree and both decode cleanly: is the header's reading implausible?

    A single-byte header (latin-1, cp1252) decodes anything, so a multi-byte meta that fits
    wins. A short GBK page can also be valid UTF-8 by accident; that reading then contains
    unassigned or private-use code points, which real text does not.
    """
    if not meta or meta == header or not _decodes(body, meta):
        return False
    if header in _SINGLE_BYTE:
        return meta not in _SINGLE_BYTE
    header_text, meta_text = body.decode(header), body.decode(meta)
    if _implausible(header_text) and not _implausible(meta_text):
        return True
    # The markup names a CJK charset and reads as CJK text, the header's reading has no CJK
    # at all ("一" in GBK is "һ" in UTF-8): the page was written in the meta's charset.
    return meta in _CJK and _has_cjk(meta_text) and not _has_cjk(header_text)


def _implausible(text: str) -> bool:
    return any(unicodedata.category(char) in ("Cn", "Co") for char in text)


def _has_cjk(text: str) -> bool:
    return any(
        "\u4e00" <= char <= "\u9fff"
        or "\u3400" <= char <= "\u4dbf"
        or "\u3040" <= char <= "\u30ff"
        or "\uac00" <= char <= "\ud7af"
        for char in text
    )


def _detect(body: bytes) -> str | None:
    best = charset_normalizer.from_bytes(body).best()
    if best is None:
        return None
    return _resolve(best.encoding)


class CharsetMiddleware:
    """Downloader middleware: re-decode text responses whose declared charset is wrong.

    Reads no settings. Counts ``encoding/fixed/<source>`` when it overrides Scrapy's choice.
    The spider's ``default_charset`` attribute (from its profile) is the last resort.
    """

    def __init__(self, stats: StatsCollector, crawler: Crawler) -> None:
        self.stats = stats
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler.stats, crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        if not isinstance(response, TextResponse) or not response.body:
            return response
        content_type = response.headers.get(b"Content-Type", b"").decode("latin-1")
        header = http_content_type_encoding(content_type)
        default = getattr(self.crawler.spider, "default_charset", None)
        encoding, source = detect_encoding(response.body, header_charset=header, default=default)
        if _canonical(response.encoding) == encoding:
            return response
        self.stats.inc_value(f"encoding/fixed/{source}")
        logger.debug(
            "Decoding %(url)s as %(new)s (%(source)s), not %(old)s",
            {"url": response.url, "new": encoding, "source": source, "old": response.encoding},
        )
        return response.replace(encoding=encoding)
