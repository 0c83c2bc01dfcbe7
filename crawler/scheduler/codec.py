"""Requests on the wire: ``request.to_dict()`` minus its defaults, short keys, JSON.

Not pickle: readable in redis-cli, independent of Python versions, safe if Redis is
shared. A typical forum request encodes to its URL plus about 20 bytes. Format
version 1 is the leading ``1``.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

from scrapy.utils.request import request_from_dict

if TYPE_CHECKING:
    from scrapy import Request, Spider

VERSION = b"1"
LEASE_META = "crawler_lease"  # the lease a request was handed out under; never stored

_SHORT = {
    "url": "u", "callback": "c", "errback": "e", "headers": "h", "body": "b",
    "cookies": "k", "meta": "m", "encoding": "n", "flags": "f", "cb_kwargs": "a",
    "dont_filter": "d", "method": "x", "priority": "p", "_class": "_",
}
_LONG = {short: long for long, short in _SHORT.items()}
_DEFAULTS: dict[str, Any] = {
    "callback": None, "errback": None, "headers": {}, "body": b"", "cookies": {},
    "meta": {}, "encoding": "utf-8", "flags": [], "cb_kwargs": {}, "dont_filter": False,
    "method": "GET", "priority": 0,
}


class EncodeError(ValueError):
    """The request carries something that is not plain data (meta, cb_kwargs...)."""


def encode(request: Request, spider: Spider) -> bytes:
    try:  # to_dict refuses callbacks that are not methods of the spider
        data = request.to_dict(spider=spider)
    except ValueError as exc:
        raise EncodeError(str(exc)) from None
    meta = data.get("meta")
    if meta and LEASE_META in meta:
        data["meta"] = {k: v for k, v in meta.items() if k != LEASE_META}
    if data.get("body"):
        data["body"] = base64.b64encode(data["body"]).decode()
    if data.get("headers"):
        data["headers"] = {k.decode("latin-1"): [v.decode("latin-1") for v in vs]
                           for k, vs in data["headers"].items()}
    compact = {_SHORT[k]: v for k, v in data.items() if _DEFAULTS.get(k, ...) != v}
    try:
        return VERSION + json.dumps(compact, separators=(",", ":"), ensure_ascii=False).encode()
    except (TypeError, ValueError) as exc:
        raise EncodeError(str(exc)) from None


def decode(payload: bytes, spider: Spider) -> Request:
    if payload[:1] != VERSION:
        raise ValueError(f"unknown queued request format {payload[:1]!r}")
    data = {_LONG[k]: v for k, v in json.loads(payload[1:]).items()}
    if "body" in data:
        data["body"] = base64.b64decode(data["body"])
    for key in ("headers", "cookies", "meta", "flags", "cb_kwargs"):
        data.setdefault(key, type(_DEFAULTS[key])())
    return request_from_dict(data, spider=spider)
