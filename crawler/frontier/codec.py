"""Requests on the wire: the request's attributes minus their defaults, short keys, JSON.

Not pickle: readable in redis-cli, independent of Python versions, safe if Redis is
shared. Format version 2 is the leading ``2``; version 1 payloads (``1``, always a full
URL in ``u``) still decode. Two follow-spider requests in the queue ``...:q:bbs.example.cn``::

    2{"s":"/thread-8812-2-1.html","r":"/forum-37-5.html","e":"failed","m":{"depth":4}}
    2{"s":"/threads/engine-noise.8812/page-3","r":"./page-2","e":"failed","m":{"depth":5}}

A request of priority p other than 0 is tagged ``!<p>|`` before the version (``p`` is not
in the JSON): ``refill.lua`` reads the tag to queue it at its priority level, and a
request that came back from a dead node may also carry ``@<attempts>|`` before it.

Every request of a queue has the queue's host, so version 2 stores the URL without it:
``s`` is the rest of ``https://<host>...``, ``t`` of ``http://<host>...`` (the last letter
of the scheme), ``u`` the full URL (when no host is given, or the URL does not start with
exactly that scheme and host). ``r`` is a Referer on the URL's own scheme and netloc
(RefererMiddleware adds the parent page's URL to every followed link), stored as its
rest, or as ``./`` plus its rest after the URL's folder when shorter (the previous page
of a thread). A payload without ``u`` decodes only with its host: ``decode(..., host)``.

Plain ``scrapy.Request`` objects are read attribute by attribute, their callbacks named
once per spider class and method (``to_dict`` runs a ``getmembers`` of the spider per
callback: most of the cost of encoding), and rebuilt with ``Request(...)``. Subclasses
(FormRequest, JsonRequest...) go through ``to_dict``/``request_from_dict``, which they
may override. Both paths end in :func:`_pack`, so their payloads are byte-identical.
"""

from __future__ import annotations

import base64
import json
import re
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.http.request import _find_method
from scrapy.utils.request import request_from_dict

if TYPE_CHECKING:
    from scrapy import Spider

VERSION = b"2"
_READABLE = (b"1", b"2")
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
_RELATIVE = {"https": "s", "http": "t"}  # key of a URL stored without "<scheme>://<host>"
# scheme://netloc, then the rest, which starts with / ? # or is empty: stripping the
# first part and putting it back is exact, whatever the rest holds
_ORIGIN = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^/?#]*)(.*)", re.DOTALL)
_FOLDER = re.compile(r"[^?#]*/")  # the rest up to its last "/" before any query
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_loads = json.JSONDecoder().decode


class EncodeError(ValueError):
    """The request carries something that is not plain data (meta, cb_kwargs...)."""


def encode(request: Request, spider: Spider | None, host: str | None = None) -> bytes:
    """The payload of *request*; with *host* (its queue's), the URL is stored without it."""
    try:
        if type(request) is Request:
            fields = {attr: getattr(request, attr) for attr in Request.attributes}
            fields["callback"] = _method_name(spider, request.callback)
            fields["errback"] = _method_name(spider, request.errback)
        else:  # to_dict refuses callbacks that are not methods of the spider
            fields = request.to_dict(spider=spider)
        return _pack(fields, host)
    except (TypeError, ValueError) as exc:  # not a spider method; not JSON-able
        raise EncodeError(str(exc)) from None


def decode(payload: bytes, spider: Spider | None, host: str | None = None) -> Request:
    """The request of *payload*; *host* must be the one it was encoded with, if any."""
    if payload[:1] == b"@":  # "@<attempts>|": taken back from nodes that died with it
        payload = payload.split(b"|", 1)[1]
    priority = 0
    if payload[:1] == b"!":  # "!<priority>|"
        tag, payload = payload.split(b"|", 1)
        priority = int(tag[1:])
    if payload[:1] not in _READABLE:
        raise ValueError(f"unknown queued request format {payload[:1]!r}")
    data = _loads(payload[1:].decode())
    if "u" in data:
        url = data.pop("u")
    elif host is None:
        raise ValueError("queued request stored without its host: decode it with the host "
                         f"of its queue ({payload[:80]!r})")
    elif "s" in data:
        url = f"https://{host}{data.pop('s')}"
    else:
        url = f"http://{host}{data.pop('t')}"
    headers = {k.encode("latin-1"): [v.encode("latin-1") for v in vs]
               for k, vs in data.pop("h", {}).items()}
    if "r" in data:
        origin, rest = _ORIGIN.match(url).groups()
        if (referer := data.pop("r")).startswith("./"):
            referer = _folder(rest) + referer[2:]
        headers[b"Referer"] = [(origin + referer).encode("latin-1")]
    kwargs = {_LONG.get(k, k): v for k, v in data.items()}
    kwargs["url"] = url
    if priority:
        kwargs["priority"] = priority
    if headers:
        kwargs["headers"] = headers
    if "body" in kwargs:
        kwargs["body"] = base64.b64decode(kwargs["body"])
    if "_class" in kwargs:
        return request_from_dict(kwargs, spider=spider)
    for key in ("callback", "errback"):
        if key in kwargs:
            kwargs[key] = _method(spider, kwargs[key])
    return Request(**kwargs)


#: Never kept in Redis (nor its AOF): the download adds them again (cookies from the jar,
#: a proxy's and HTTP auth's credentials from their middlewares)
SECRET_HEADERS = frozenset({b"cookie", b"authorization", b"proxy-authorization"})
_PROXY_META = ("_auth_proxy", "_scheme_proxy")

def _pack(fields: dict[str, Any], host: str | None) -> bytes:
    """The payload of a request's fields (as ``to_dict`` gives them: names of methods)."""
    url = fields["url"]
    origin = _ORIGIN.match(url)
    scheme, _, netloc = origin[1].partition("://") if origin else ("", "", "")
    compact: dict[str, Any] = {}
    if host is not None and netloc == host and scheme in _RELATIVE:
        compact[_RELATIVE[scheme]] = origin[2]
    else:
        compact["u"] = url
    meta = fields["meta"]
    if meta and LEASE_META in meta:
        fields["meta"] = meta = {k: v for k, v in meta.items() if k != LEASE_META}
    if meta and "_auth_proxy" in meta:  # the download adds the proxy's credentials again
        env = meta.get("_scheme_proxy")
        fields["meta"] = {k: v for k, v in meta.items() if k not in _PROXY_META
                          and not (env and k == "proxy")}
    if fields["body"]:
        fields["body"] = base64.b64encode(fields["body"]).decode()
    # dict.items: Headers.items() normalizes every key again; values are lists of bytes
    headers = fields["headers"] = {k.decode("latin-1"): [v.decode("latin-1") for v in vs]
                                   for k, vs in dict.items(fields["headers"])
                                   if k.lower() not in SECRET_HEADERS}
    if origin and len(referer := headers.get("Referer", ())) == 1 \
            and (same := _ORIGIN.match(referer[0])) and same[1] == origin[1]:
        folder, rest = _folder(origin[2]), same[2]
        if len(folder) > 2 and rest.startswith(folder):  # when shorter: a sibling page
            rest = "./" + rest[len(folder):]  # "./page-35" next to "/threads/t.1/page-36"
        compact["r"] = rest
        del headers["Referer"]
    # a fixed order, whatever the order of fields; a subclass's own attributes by name
    priority = fields["priority"]
    for name in (*_DEFAULTS, *(n for n in fields if n not in _DEFAULTS and n != "url")):
        if name != "priority" and (value := fields[name]) != _DEFAULTS.get(name, ...):
            compact[_SHORT.get(name, name)] = value
    if priority:  # the tag refill.lua routes by (the level's queue), not a JSON key
        return b"!%d|" % priority + VERSION + _dumps(compact).encode()
    return VERSION + _dumps(compact).encode()


def _folder(rest: str) -> str:
    return match[0] if (match := _FOLDER.match(rest)) else ""


_names: dict[tuple[type, Any], str] = {}  # (spider class, function): its attribute name


def _method_name(spider: Spider | None, method: Any) -> str | None:
    """What ``to_dict`` stores for a callback, without a ``getmembers`` per request."""
    if method is None:
        return None
    key = (type(spider), getattr(method, "__func__", None))
    name = _names.get(key)
    if name is None or getattr(getattr(spider, name, None), "__func__", None) is not key[1]:
        name = _names[key] = _find_method(spider, method)  # ValueError if not a method
    return name


def _method(spider: Spider | None, name: str) -> Any:
    try:
        return getattr(spider, name)
    except AttributeError:
        raise ValueError(f"Method {name!r} not found in: {spider}") from None
