"""Listing pages on a revisit: conditional GET, their revisit schedule, and the rows
whose fetch failed (read again in the next pass)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crawler.frontier import codec
from crawler.frontier.keys import host_of
from crawler.incremental import DEEP, FAILED_ROW
from crawler.incremental.component import Component
from crawler.node.revisit import digest, next_interval

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.http import Response


class RevisitDownloaderMiddleware(Component):
    """Conditional GET for listing pages, and their revisit schedule."""

    def process_request(self, request: Request, spider: Any = None) -> None:
        info = request.meta.get("revisit")
        if isinstance(info, dict):
            if info.get("etag"):
                request.headers.setdefault(b"If-None-Match", info["etag"])
            if info.get("modified"):
                request.headers.setdefault(b"If-Modified-Since", info["modified"])

    def process_response(self, request: Request, response: Response,
                         spider: Any = None) -> Response:
        revisits = self.revisits
        if revisits is None:
            return response
        if response.status != 200 and "revisit_row" in request.meta:
            self._read_again(request)
            return response
        if not request.meta.get("revisit"):
            if revisits.listed:  # a page this run took for a listing, now read as a thread
                fingerprint = self.fingerprint(request)
                if fingerprint in revisits.listed:
                    revisits.unschedule(host_of(request), fingerprint)
            return response
        if response.status not in (200, 304) or "revisit_row" in request.meta:
            # a board a listing links to: read again in full when its row there changes
            # (RevisitSpiderMiddleware), not on every pass; in full, because its later
            # pages can change when it does not, and only its parse leads to them
            return response
        self._schedule(request, response)
        return response

    def _schedule(self, request: Request, response: Response) -> None:
        """Keep listing *request* for revisits, with the validators and body digest of
        its *response*, due after its (adaptive) interval."""
        revisits = self.revisits
        info = request.meta["revisit"] if isinstance(request.meta["revisit"], dict) else {}
        again = "interval" in info  # a revisit, not the first fetch
        if response.status == 304:
            changed, body = False, info.get("digest")
            revisits.count("revisit/not_modified")
        else:
            body = digest(response.body).hex()
            changed = body != info.get("digest")
            if again:
                revisits.count("revisit/changed" if changed else "revisit/unchanged")
        if again:
            revisits.count("revisit/listings")
            interval = next_interval(info["interval"], changed, revisits.min_interval,
                                     revisits.max_interval)
            if not changed:  # nothing new to read: the spider skips it
                request.meta["revisit_unchanged"] = True
        else:
            interval = revisits.first_interval
        kept = {"digest": body, "interval": round(interval, 1)}
        for name, header in (("etag", b"ETag"), ("modified", b"Last-Modified")):
            # a 304 may leave out what did not change: keep the validators sent
            value = response.headers.get(header)
            value = value.decode("latin-1") if value else \
                info.get(name) if response.status == 304 else None
            if value:
                kept[name] = value
        meta = {"revisit": kept, "handle_httpstatus_list": [304]}
        try:
            payload = self.stored(request, meta)
        except codec.EncodeError:
            revisits.count("revisit/unencodable")
            return
        revisits.schedule(host_of(request), self.fingerprint(request), payload,
                          revisits.now_ms(), interval)

    def process_exception(self, request: Request, exception: Exception,
                          spider: Any = None) -> None:
        if "revisit_row" in request.meta and self.revisits is not None:
            self._read_again(request)

    def _read_again(self, request: Request) -> None:
        """A row's request that failed (an error status, a download error; perhaps retried
        later in this run): kept as a revisit, due in the next pass, until it is read."""
        revisits = self.revisits
        request.meta[FAILED_ROW] = True
        try:
            payload = self.stored(request, {k: request.meta[k] for k in (
                "revisit_row", "revisit_key", FAILED_ROW, DEEP) if k in request.meta})
        except codec.EncodeError:
            revisits.count("revisit/unencodable")
            return
        revisits.schedule(host_of(request), self.fingerprint(request), payload,
                          revisits.now_ms(), revisits.first_interval)
        revisits.count("revisit/rows/failed")
