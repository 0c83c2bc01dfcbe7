"""The WARC/1.1 records of one fetch, byte-exact.

warcio's :class:`~warcio.warcwriter.WARCWriter` writes the records (framing, gzip members,
record ids), but three things are done here, where warcio gets them wrong for a crawler:

- **The digests.** warcio digests the stored payload as it finds it, so a record whose
  headers still say ``Transfer-Encoding: chunked`` gets a payload digest over the chunked
  bytes (warcio issue, open since 2019). Scrapy hands over the body already de-chunked, so
  the header block drops ``Transfer-Encoding`` and both digests (``WARC-Payload-Digest``:
  SHA-1, base32, of the entity body with its content encoding kept; ``WARC-Block-Digest``)
  are computed here and given to warcio, which then computes none.
- **The HTTP header block.** warcio re-serializes headers and %-encodes bytes outside
  ASCII; :class:`RawHeaders` keeps the block as built from what was received (latin-1
  round trip, one line per value: never a folded line).
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
import uuid
from dataclasses import dataclass, field
from io import BytesIO
from typing import TYPE_CHECKING
from urllib.parse import urldefrag

from scrapy.utils.httpobj import urlparse_cached
from warcio.statusandheaders import StatusAndHeaders

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.http import Headers, Response
    from warcio.recordloader import ArcWarcRecord
    from warcio.warcwriter import WARCWriter

#: Revisit profiles of WARC/1.1.
IDENTICAL = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
NOT_MODIFIED = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"

#: Headers not stored: Scrapy has already removed the transfer coding from the body.
_DROPPED = frozenset({b"transfer-encoding"})


def payload_digest(data: bytes, more: bytes = b"") -> str:
    """``sha1:<base32>`` of *data* (followed by *more*, not copied into one), as WARC
    digests are written."""
    sha1 = hashlib.sha1(data)
    if more:
        sha1.update(more)
    return "sha1:" + base64.b32encode(sha1.digest()).decode("ascii")


_EMPTY = payload_digest(b"")  # a GET's request body


def warc_date(timestamp: float) -> str:
    """WARC/1.1 date with microseconds: ``2026-11-27T00:45:12.123456Z``."""
    seconds = int(timestamp)
    micros = min(999_999, round((timestamp - seconds) * 1_000_000))
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{micros:06d}Z"


def target_uri(request: Request) -> str:
    """The URL requested: query string kept, fragment (never sent) dropped."""
    return urldefrag(request.url)[0]


def _line(value: bytes) -> str:
    # no folded or broken header lines: a CR or LF inside a value becomes a space
    return value.decode("latin-1").replace("\r", " ").replace("\n", " ")


def _header_lines(headers: Headers, skip: frozenset[bytes] = frozenset()) -> list[str]:
    lines = []
    for name, values in headers.items():
        if name.lower() in skip:
            continue
        for value in values or ():
            lines.append(f"{_line(name)}: {_line(value)}")
    return lines


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
    lines = [status, *_header_lines(response.headers, _DROPPED)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def request_block(request: Request, response: Response) -> bytes:
    """Request line and headers of *request* as sent (Scrapy's download handler adds
    ``Host``; the path keeps its query string)."""
    parsed = urlparse_cached(request)
    target = (parsed.path or "/") + (f"?{parsed.query}" if parsed.query else "")
    host = parsed.netloc.rpartition("@")[2]
    lines = [f"{request.method} {target} {_http_version(response)}"]
    if b"Host" not in request.headers:
        lines.append(f"Host: {host}")
    lines += _header_lines(request.headers)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class RawHeaders(StatusAndHeaders):
    """An HTTP header block that warcio writes as given (no re-serialization)."""

    def __init__(self, block: bytes) -> None:
        # the writer reads only the block: its headers are not parsed (no cost per page)
        protocol, _, statusline = block[:block.find(b"\r\n")].decode("latin-1").partition(" ")
        super().__init__(statusline, [], protocol=protocol)
        self.headers_buff = block

    def compute_headers_buffer(self, header_filter=None) -> None:  # noqa: ARG002
        """Keep the block as built."""


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


def new_id() -> str:
    """A random (version 4) UUID record id, without a system call per record."""
    return f"<urn:uuid:{uuid.UUID(int=_ids.getrandbits(128), version=4)}>"


def fetch_records(writer: WARCWriter, fetch: Fetch, digest: str, prior: Prior | None,
                  ) -> tuple[list[ArcWarcRecord], bool]:
    """The records of *fetch* (response or revisit first, then its request) and whether
    the response is a revisit. *digest* is ``payload_digest(fetch.body)``."""
    response_id = new_id()
    common = {"WARC-Type": "response", "WARC-Target-URI": fetch.uri,
              "WARC-Date": fetch.date, "WARC-Record-ID": response_id}
    if fetch.ip:
        common["WARC-IP-Address"] = fetch.ip
    block = fetch.response_block
    revisit = None
    if fetch.status == 304:
        revisit = {"WARC-Profile": NOT_MODIFIED}
        if prior is not None:
            revisit.update({"WARC-Refers-To-Target-URI": prior.uri,
                            "WARC-Refers-To-Date": prior.date,
                            "WARC-Payload-Digest": prior.digest})
    elif prior is not None and fetch.body and prior.digest == digest and not fetch.truncated:
        revisit = {"WARC-Profile": IDENTICAL, "WARC-Refers-To-Target-URI": prior.uri,
                   "WARC-Refers-To-Date": prior.date, "WARC-Payload-Digest": digest}
    if revisit is not None:
        headers = {**common, **revisit, "WARC-Block-Digest": payload_digest(block)}
        response = writer.create_warc_record(
            fetch.uri, "revisit", warc_headers_dict=headers, http_headers=RawHeaders(block),
            warc_content_type="application/http; msgtype=response")
    else:
        headers = {**common, "WARC-Payload-Digest": digest,
                   "WARC-Block-Digest": payload_digest(block, fetch.body)}
        if fetch.truncated:
            headers["WARC-Truncated"] = "length"
        response = writer.create_warc_record(
            fetch.uri, "response", payload=BytesIO(fetch.body), length=len(fetch.body),
            warc_headers_dict=headers, http_headers=RawHeaders(block),
            warc_content_type="application/http; msgtype=response")
    request_headers = {"WARC-Type": "request", "WARC-Target-URI": fetch.uri,
                       "WARC-Date": fetch.date, "WARC-Record-ID": new_id(),
                       "WARC-Concurrent-To": response_id,
                       "WARC-Payload-Digest": payload_digest(fetch.request_body)
                       if fetch.request_body else _EMPTY,
                       "WARC-Block-Digest": payload_digest(fetch.request_block,
                                                           fetch.request_body)}
    if fetch.ip:
        request_headers["WARC-IP-Address"] = fetch.ip
    request = writer.create_warc_record(
        fetch.uri, "request", payload=BytesIO(fetch.request_body),
        length=len(fetch.request_body), warc_headers_dict=request_headers,
        http_headers=RawHeaders(fetch.request_block),
        warc_content_type="application/http; msgtype=request")
    return [response, request], revisit is not None


def metadata_record(writer: WARCWriter, uri: str, date: str, fields: dict[str, str],
                    ) -> ArcWarcRecord:
    """A ``metadata`` record about the page *uri* (``application/warc-fields``; CDX
    indexers leave such records out, so replay never serves it for *uri*)."""
    body = "".join(f"{k}: {' '.join(v.splitlines())}\r\n" for k, v in fields.items())
    body = body.encode("utf-8")
    headers = {"WARC-Type": "metadata", "WARC-Target-URI": uri, "WARC-Date": date,
               "WARC-Record-ID": new_id(), "WARC-Block-Digest": payload_digest(body)}
    return writer.create_warc_record(uri, "metadata", payload=BytesIO(body), length=len(body),
                                     warc_headers_dict=headers,
                                     warc_content_type="application/warc-fields")
