"""The crawl's digest index: for every archived URL, the payload digest and the date of its
last full capture, in the crawl's Redis, so revisits hold across nodes and runs.

One hash per crawl, ``crawler:{<crawl>}:warc:digests`` (``Keys(crawl).warc_digests``, in
the key table of :mod:`crawler.frontier.keys`): URL -> ``<digest> <WARC-Date>``. A node
looks up and stores in batches: one pipelined round trip stores the entries of the last
batch and reads those of the next (:meth:`DigestIndex.exchange`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from crawler.archive.records import Prior

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import redis

logger = logging.getLogger(__name__)


class DigestIndex:
    def __init__(self, client: redis.Redis, key: str) -> None:
        self.client = client
        self.key = key
        self.round_trips = 0
        self._warned = False

    def exchange(self, store: Mapping[str, str], urls: Sequence[str]
                 ) -> list[Prior | None] | None:
        """Store *store* (URL -> ``digest date``) and read the entries of *urls*, in one
        round trip. None when Redis failed (logged once): the caller keeps *store* for the
        next try and writes full responses meanwhile."""
        if not store and not urls:
            return []
        try:
            pipe = self.client.pipeline(transaction=False)
            if store:
                pipe.hset(self.key, mapping=dict(store))
            if urls:
                pipe.hmget(self.key, list(urls))
            replies = pipe.execute()
        except RedisError as exc:
            if not self._warned:
                logger.warning("WARC digest index unavailable (%s): pages are archived as "
                               "full responses until it is back", exc)
                self._warned = True
            return None
        self.round_trips += 1
        if not urls:
            return []
        out: list[Prior | None] = []
        for url, raw in zip(urls, replies[-1], strict=True):
            if raw:
                digest, _, date = (raw.decode() if isinstance(raw, bytes) else raw).partition(" ")
                out.append(Prior(digest, date, url))
            else:
                out.append(None)
        return out
