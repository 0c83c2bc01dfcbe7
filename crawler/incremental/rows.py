"""What a listing links to, on a revisit: unchanged listings skipped, changed rows fetched
again from their item's last known page, each item's first request kept for its deep
revisits, and the pages of a deep revisit let through the Bloom filter."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import Request

from crawler.frontier import codec
from crawler.frontier.keys import host_of
from crawler.incremental import DEEP, FAILED_ROW
from crawler.incremental.component import Component, own_meta

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.http import Response

    from crawler.node.revisit import Revisits


class RevisitSpiderMiddleware(Component):
    """Skips unchanged listings, refetches changed items from their last known page, and
    records each item's last page and first request."""

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any],
                                    spider: Any = None):
        revisits = self.revisits
        if revisits is None:
            async for out in result:
                yield out
            return
        if response.meta.get("revisit_unchanged"):
            return  # 304 or the same body: the callback never runs
        request = response.request
        result = _noting_own_meta(result)
        if (key := response.meta.get("revisit_key")) and response.status == 200:
            try:
                revisits.set(host_of(request), "l" + key,
                             self.stored(request, {"revisit_key": key}))
            except codec.EncodeError:
                revisits.count("revisit/unencodable")
            if response.meta.get(DEEP):
                result = _deep(result, key)
        if not request.meta.get("revisit"):
            async for out in result:
                yield out
        else:
            outputs = [out async for out in result]
            for out in self._rows(revisits, outputs):
                yield out
        if response.meta.get(FAILED_ROW) and response.status == 200:
            # read at last (its callback ran through): no longer kept as a revisit
            revisits.unschedule(host_of(request), self.fingerprint(request))

    async def process_start(self, start: AsyncIterator[Any]):
        async for out in start:
            if isinstance(out, Request):
                own_meta(out)
            yield out

    def _rows(self, revisits: Revisits, outputs: list[Any]) -> list[Any]:
        rows = [(i, out) for i, out in enumerate(outputs)
                if isinstance(out, Request) and "revisit_row" in out.meta]
        if not rows:
            return outputs
        if revisits.reading:
            by_host: dict[str, list[int]] = {}
            for n, (_, out) in enumerate(rows):
                by_host.setdefault(host_of(out), []).append(n)
            stored: list[tuple[bytes | None, bytes | None]] = [(None, None)] * len(rows)
            for host, ns in by_host.items():
                keys = [rows[n][1].meta["revisit_row"][0] for n in ns]
                values = revisits.get(host, [f"{p}{k}" for k in keys for p in "rl"])
                for j, n in enumerate(ns):
                    stored[n] = (values[2 * j], values[2 * j + 1])
            for n, (i, out) in enumerate(rows):
                outputs[i] = self._compare(revisits, out, *stored[n])
        for _, out in rows:
            key, row = out.meta["revisit_row"]
            revisits.set(host_of(out), "r" + key, bytes.fromhex(row))
            if not out.meta.get("revisit"):  # an item's, not a board's
                self._keep_first(revisits, out, key)
        return outputs

    def _keep_first(self, revisits: Revisits, request: Request, key: str) -> None:
        """Keep the item's first request, where its deep revisits read it from."""
        if not revisits.deep.enabled:
            return
        meta = {k: request.meta[k] for k in ("revisit_row", "revisit_key")
                if k in request.meta}
        try:
            payload = self.stored(request, {**meta, DEEP: True})
        except codec.EncodeError:
            revisits.count("revisit/unencodable")
            return
        revisits.keep_deep(host_of(request), key, payload)

    def _compare(self, revisits: Revisits, request: Request, row: bytes | None,
                 last: bytes | None) -> Request:
        key, now = request.meta["revisit_row"]
        if row is None:
            revisits.count("revisit/rows/new")
            return request
        if row.hex() == now:
            revisits.count("revisit/rows/unchanged")
            return request  # dropped by the Bloom filter, as seen
        revisits.count("revisit/rows/changed")
        if last is None:
            return request.replace(dont_filter=True)
        resume = codec.decode(last, self.crawler.spider, host_of(request))
        # what the listing says now (the row) replaces what it said then
        cb_kwargs = {**resume.cb_kwargs, **{k: v for k, v in request.cb_kwargs.items()
                                             if k in resume.cb_kwargs and k != "cursor"}}
        return resume.replace(cb_kwargs=cb_kwargs, meta={**resume.meta, **request.meta})


async def _noting_own_meta(result: AsyncIterator[Any]) -> AsyncIterator[Any]:
    async for out in result:
        if isinstance(out, Request):
            own_meta(out)
        yield out


async def _deep(result: AsyncIterator[Any], key: str) -> AsyncIterator[Any]:
    """A deep revisit's page: the item's next pages (same ``revisit_key``) are read
    again too, past the Bloom filter that saw them."""
    async for out in result:
        if isinstance(out, Request) and out.meta.get("revisit_key") == key:
            out = out.replace(dont_filter=True, meta={**out.meta, DEEP: True})
        yield out
