"""Bench-only experiment: the proposed enqueue/codec fixes, patched in at import, so their
effect can be measured before the lead applies them to crawler/scheduler/ (loaded as an
extension by `throughput.py --configs "ours (embedded Redis) + fixes"`).

1. enqueue_request: answer duplicates from the node-local seen cache before the trap
   rules run (most discovered links are repeats: pagers, board links).
2. codec: encode and decode plain requests (GET, no body, cookies, cb_kwargs, flags,
   priority) directly, without Request.to_dict / request_from_dict.
"""

from __future__ import annotations

import json

from scrapy import Request

from crawler.scheduler import codec
from crawler.scheduler import scheduler as scheduler_module

_original_encode, _original_decode = codec.encode, codec.decode
Scheduler = scheduler_module.Scheduler


def _name(method, spider) -> str | None:
    if method is None:
        return None
    if getattr(method, "__self__", None) is spider:
        return method.__func__.__name__
    raise LookupError  # a function that is not a spider method: the general path


def fast_encode(request: Request, spider) -> bytes:
    if (type(request) is not Request or request.method != "GET" or request.body
            or request.cookies or request.cb_kwargs or request.flags or request.priority
            or request.dont_filter or request.encoding != "utf-8"):
        return _original_encode(request, spider)
    try:
        data = {"u": request.url}
        if (c := _name(request.callback, spider)) is not None:
            data["c"] = c
        if (e := _name(request.errback, spider)) is not None:
            data["e"] = e
    except LookupError:
        return _original_encode(request, spider)
    meta = {k: v for k, v in request.meta.items() if k != codec.LEASE_META}
    if meta:
        data["m"] = meta
    if request.headers:
        data["h"] = {k.decode("latin-1"): [v.decode("latin-1") for v in vs]
                     for k, vs in request.headers.items()}
    try:
        return codec.VERSION + json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    except (TypeError, ValueError) as exc:
        raise codec.EncodeError(str(exc)) from None


def fast_decode(payload: bytes, spider) -> Request:
    data = json.loads(payload[1:])
    if payload[:1] != codec.VERSION or not data.keys() <= {"u", "c", "e", "m", "h"}:
        return _original_decode(payload, spider)
    return Request(data["u"], callback=getattr(spider, data["c"]) if "c" in data else None,
                   errback=getattr(spider, data["e"]) if "e" in data else None,
                   meta=data.get("m"), headers=data.get("h"))


_enqueue = Scheduler.enqueue_request


def enqueue_request(self, request: Request) -> bool:
    # a repeat of a URL this node queued lately is a duplicate whatever the trap rules say
    # (it passed them the first time): answer it before running them
    if not request.dont_filter and not request.meta.get(codec.LEASE_META):
        stripped = self._without_session_ids(request)
        fingerprint = self.df.fingerprint(stripped)
        if fingerprint in self.df._recent:
            self._record("discovered")
            self.df._recent.move_to_end(fingerprint)
            self.df.log(stripped)
            self._record("filtered/duplicate")
            return False
    return _enqueue(self, request)


codec.encode, codec.decode = fast_encode, fast_decode
Scheduler.enqueue_request = enqueue_request


class Fixes:
    """Loaded as an extension only so that this module is imported in the crawl."""

    @classmethod
    def from_crawler(cls, crawler) -> Fixes:
        return cls()
