"""The WARC/1.1 records of one fetch, byte-exact.

The records are serialized here, not by warcio's :class:`~warcio.warcwriter.WARCWriter`:
its record builder and writer took about 0.1 ms of CPU per fetch in the bench's crawl
(py-spy: 30% of what the archive cost it), and three things it gets wrong for a crawler
are done here anyway (warcio still writes each file's warcinfo record, and reads
the files: ``warcio check``, the WACZ indexer, the tests):

- **The digests.** warcio digests the stored payload as it finds it, so a record whose
  headers still say ``Transfer-Encoding: chunked`` gets a payload digest over the chunked
  bytes (warcio issue, open since 2019). Scrapy hands over the body already de-chunked, so
  the header block drops ``Transfer-Encoding`` and both digests (``WARC-Payload-Digest``:
  SHA-1, base32, of the entity body with its content encoding kept; ``WARC-Block-Digest``)
  are computed here.
- **The HTTP header block.** warcio re-serializes headers and %-encodes bytes outside
  ASCII; the block is kept here as built from what was received (latin-1 round trip, one
  line per value: never a folded line).
- **The status line.** The protocol is Scrapy's ``response.protocol`` (``HTTP/1.1`` stays
  ``HTTP/1.1``). Scrapy keeps no reason phrase, so the standard one for the code is written.
"""

from __future__ import annotations

import base64
import hashlib
import http
import os
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from scrapy.utils.httpobj import urlparse_cached

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.http import Headers, Response

#: Revisit profiles of WARC/1.1.
IDENTICAL = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
NOT_MODIFIED = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"

#: Response headers not stored: Scrapy has already removed the transfer coding from the
#: body; a cookie set is a session's (a WACZ is made to be shared)
_DROPPED = frozenset({b"transfer-encoding", b"set-cookie", b"set-cookie2"})
#: Request headers not stored: a session's cookies, HTTP auth's and a proxy's credentials
SECRET = frozenset({b"cookie", b"authorization", b"proxy-authorization"})


def payload_digest(data: bytes, more: bytes = b"") -> str:
    """``sha1:<base32>`` of *data* (followed by *more*, not copied into one), as WARC
    digests are written."""
    sha1 = hashlib.sha1(data)
    if more:
        sha1.update(more)
    return "sha1:" + base64.b32encode(sha1.digest()).decode("ascii")


_EMPTY = payload_digest(b"")  # a GET's request body


_second: list = [None, ""]  # the last second formatted, and its text


def warc_date(timestamp: float) -> str:
    """WARC/1.1 date with microseconds: ``2026-11-27T00:45:12.123456Z``."""
    seconds = int(timestamp)
    micros = min(999_999, round((timestamp - seconds) * 1_000_000))
    if _second[0] != seconds:
        _second[:] = seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{_second[1]}.{micros:06d}Z"


def target_uri(request: Request) -> str:
    """The URL requested: query string kept, fragment (never sent) and credentials
    (``user:password@``) dropped."""
    url = request.url.partition("#")[0]
    if "@" in url.partition("?")[0]:
        parts = urlsplit(url)
        url = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    return url


def _header_value(text: str) -> str:
    # a WARC header is one line
    return text.replace("\r", " ").replace("\n", " ") if "\r" in text or "\n" in text else text


def _line(value: bytes) -> bytes:
    # no folded or broken header lines: a CR or LF inside a value becomes a space
    return value.replace(b"\r", b" ").replace(b"\n", b" ")


def _header_lines(headers: Headers, skip: frozenset[bytes] = frozenset()) -> list[bytes]:
    # Scrapy's Headers is a dict of names (normalized) to lists of values, all bytes: read
    # as one (its items() looks each name up again, a third of the archive's cost per page)
    lines = [name + b": " + value for name, values in dict.items(headers)
             if name.lower() not in skip for value in values or ()]
    text = b"".join(lines)  # one look for a CR or LF in them all, not two per line
    return [_line(line) for line in lines] if b"\r" in text or b"\n" in text else lines


def _http_version(response: Response) -> str:
    protocol = getattr(response, "protocol", None) or ""
    # HTTP/1.0 and HTTP/1.1 as received; HTTP/2 (Scrapy: "h2") has no text form of its own
    return protocol if protocol.upper().startswith("HTTP/") else "HTTP/1.1"


def response_block(response: Response) -> bytes:
    """Status line and headers of *response* as received, without ``Transfer-Encoding``."""
    try:
        reason = http.HTTPStatus(response.status).phrase
    except ValueError:
        reason = ""
    status = f"{_http_version(response)} {response.status} {reason}".rstrip()
    lines = [status.encode("latin-1"), *_header_lines(response.headers, _DROPPED)]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def request_block(request: Request, response: Response) -> bytes:
    """Request line and headers of *request* as sent (Scrapy's download handler adds
    ``Host``; the path keeps its query string)."""
    parsed = urlparse_cached(request)
    target = (parsed.path or "/") + (f"?{parsed.query}" if parsed.query else "")
    host = parsed.netloc.rpartition("@")[2]
    lines = [f"{request.method} {target} {_http_version(response)}".encode("latin-1")]
    if b"Host" not in request.headers:
        lines.append(f"Host: {host}".encode("latin-1"))
    lines += _header_lines(request.headers, SECRET)
    return b"\r\n".join(lines) + b"\r\n\r\n"


@dataclass(frozen=True, slots=True)
class Fetch:
    """What one fetch leaves to archive, captured before any decoding."""

    uri: str
    date: str
    ip: str | None
    request_block: bytes
    request_body: bytes
    response_block: bytes
    body: bytes
    status: int
    truncated: bool
    #: the request's meta, read when the fetch is written (``not_content``: a login wall)
    meta: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def digest(self) -> str:
        return payload_digest(self.body)


@dataclass(frozen=True, slots=True)
class Prior:
    """What the digest index knows of a URL: the capture a revisit refers to."""

    digest: str
    date: str
    uri: str


_random = random.SystemRandom().getrandbits(64)  # seeds the generator below per process
_ids = random.Random(_random ^ os.getpid())


#: the bits of a version 4 UUID that are not random: its version (4) and variant (RFC 4122)
_V4_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))
_V4_SET = (4 << 76) | (0x8000 << 48)


def new_id() -> str:
    """A random (version 4) UUID record id, without a system call per record (formatted
    here: :class:`uuid.UUID` took a tenth of a record's cost)."""
    h = f"{_ids.getrandbits(128) & _V4_CLEAR | _V4_SET:032x}"
    return f"<urn:uuid:{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}>"


def _record(headers: list[tuple[str, str]], content_type: str, *block: bytes) -> bytes:
    """One WARC/1.1 record, serialized: the header block (*headers*, then
    ``Content-Type`` and ``Content-Length``), the record block (the parts of *block*), and
    the CRLF CRLF that ends a record."""
    text = "".join([f"{name}: {value}\r\n" for name, value in headers])
    length = sum(len(part) for part in block)
    head = (f"WARC/1.1\r\n{text}Content-Type: {content_type}\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()
    return b"".join((head, *block, b"\r\n\r\n"))


def fetch_records(fetch: Fetch, digest: str, prior: Prior | None) -> tuple[list[bytes], bool]:
    """The records of *fetch*, serialized (response or revisit first, then its request),
    and whether the response is a revisit. *digest* is ``payload_digest(fetch.body)``."""
    response_id = new_id()
    revisit = revisit_headers(fetch, digest, prior)
    return ([response_record(fetch, digest, response_id, revisit),
             request_record(fetch, response_id)], revisit is not None)


def revisit_headers(fetch: Fetch, digest: str, prior: Prior | None
                    ) -> list[tuple[str, str]] | None:
    """The headers that make *fetch*'s response record a ``revisit`` of *prior* (a 304, or
    the payload *prior* stored), or None: a full response. Read from *digest*, not from
    the body (which a fetch waiting for its batch no longer holds)."""
    if fetch.status == 304:
        revisit = [("WARC-Profile", NOT_MODIFIED)]
        if prior is not None:
            revisit += [("WARC-Refers-To-Target-URI", _header_value(prior.uri)),
                        ("WARC-Refers-To-Date", prior.date),
                        ("WARC-Payload-Digest", prior.digest)]
        return revisit
    if prior is not None and digest != _EMPTY and prior.digest == digest and not fetch.truncated:
        return [("WARC-Profile", IDENTICAL),
                ("WARC-Refers-To-Target-URI", _header_value(prior.uri)),
                ("WARC-Refers-To-Date", prior.date), ("WARC-Payload-Digest", digest)]
    return None


def response_record(fetch: Fetch, digest: str, record_id: str,
                    revisit: list[tuple[str, str]] | None = None) -> bytes:
    """*fetch*'s response record (id *record_id*), serialized: a full response, or with
    *revisit* (:func:`revisit_headers`) a revisit that holds the header block alone."""
    block = fetch.response_block
    common = [("WARC-Target-URI", _header_value(fetch.uri)), ("WARC-Date", fetch.date),
              ("WARC-Record-ID", record_id)]
    if fetch.ip:
        common.append(("WARC-IP-Address", fetch.ip))
    if revisit is not None:
        return _record([("WARC-Type", "revisit"), *common, *revisit,
                        ("WARC-Block-Digest", payload_digest(block))],
                       "application/http; msgtype=response", block)
    headers = [("WARC-Type", "response"), *common, ("WARC-Payload-Digest", digest),
               ("WARC-Block-Digest", payload_digest(block, fetch.body))]
    if fetch.truncated:
        headers.append(("WARC-Truncated", "length"))
    return _record(headers, "application/http; msgtype=response", block, fetch.body)


def request_record(fetch: Fetch, response_id: str) -> bytes:
    """*fetch*'s request record, serialized, concurrent to the response record
    *response_id*."""
    ip = [("WARC-IP-Address", fetch.ip)] if fetch.ip else []
    return _record(
        [("WARC-Type", "request"), ("WARC-Target-URI", _header_value(fetch.uri)),
         ("WARC-Date", fetch.date), ("WARC-Record-ID", new_id()),
         ("WARC-Concurrent-To", response_id),
         ("WARC-Payload-Digest",
          payload_digest(fetch.request_body) if fetch.request_body else _EMPTY),
         ("WARC-Block-Digest", payload_digest(fetch.request_block, fetch.request_body)), *ip],
        "application/http; msgtype=request", fetch.request_block, fetch.request_body)


def metadata_record(uri: str, date: str, fields: dict[str, str]) -> bytes:
    """A ``metadata`` record about the page *uri* (``application/warc-fields``; CDX
    indexers leave such records out, so replay never serves it for *uri*), serialized."""
    body = "".join(f"{k}: {' '.join(v.splitlines())}\r\n" for k, v in fields.items())
    body = body.encode("utf-8")
    return _record([("WARC-Type", "metadata"), ("WARC-Target-URI", _header_value(uri)),
                    ("WARC-Date", date), ("WARC-Record-ID", new_id()),
                    ("WARC-Block-Digest", payload_digest(body))],
                   "application/warc-fields", body)
