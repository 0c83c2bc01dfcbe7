"""Reading WARC files back for the tests, independently of the writer: the raw bytes of
each record, split by hand (gzip members, WARC headers, HTTP header block, payload)."""

from __future__ import annotations

import base64
import hashlib
import zlib
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Record:
    file: str
    version: str
    headers: dict[str, str]
    block: bytes  # the record block: HTTP header block + payload for HTTP records

    @property
    def type(self) -> str:
        return self.headers["WARC-Type"]

    @property
    def uri(self) -> str:
        return self.headers.get("WARC-Target-URI", "")

    @property
    def http_head(self) -> bytes:
        return self.block.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n"

    @property
    def payload(self) -> bytes:
        return self.block.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in self.block else b""

    @property
    def status(self) -> int:
        return int(self.http_head.split(b" ", 2)[1])


def sha1_b32(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def _members(data: bytes):
    while data:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        yield d.decompress(data) + d.flush()
        data = d.unused_data


def read(path: Path) -> list[Record]:
    """Every record of a gzipped WARC; each gzip member must hold exactly one record."""
    out = []
    for member in _members(path.read_bytes()):
        head, _, rest = member.partition(b"\r\n\r\n")
        lines = head.decode("utf-8").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:])
        length = int(headers["Content-Length"])
        assert rest[length:] == b"\r\n\r\n", f"{path.name}: record not closed by CRLF CRLF"
        out.append(Record(path.name, lines[0], headers, rest[:length]))
    return out


def read_all(paths) -> list[Record]:
    return [r for p in sorted(paths) for r in read(Path(p))]
