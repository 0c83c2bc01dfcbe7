"""The crawl's digest index: for every archived URL, the payload digest and the date of its
last full capture, in the crawl's Redis, so revisits hold across nodes and runs.

One hash per crawl, ``crawler:{<crawl>}:warc:digests`` (``Keys(crawl).warc_digests``, in
the key table of :mod:`crawler.frontier.keys`): URL -> ``<digest> <WARC-Date>``.

A URL is looked up as its request goes out (:meth:`DigestIndex.ask`): the lookups of a
short window go in one pipeline, sent without waiting (:meth:`DigestIndex.send`), with the
entries whose records reached the file since; the reply is read later, so the flush
before an ack barrier finds its priors known and waits for no round trip. A fetch whose
lookup is not known then (its URL changed on the way, Redis failed) is looked up at the
flush, in one round trip that also stores the waiting entries (:meth:`DigestIndex.exchange`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from crawler.archive.records import Prior
from crawler.frontier.link import start

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import redis

    from crawler.frontier.link import Sent

logger = logging.getLogger(__name__)


class Ask:
    """The lookup of one request's URL: *prior* is known once its reply was read; *seq*
    numbers the send whose view of the index it got (entries stored later are not in it)."""

    __slots__ = ("known", "prior", "seq", "uri")

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.seq: int | None = None
        self.known = False
        self.prior: Prior | None = None


class DigestIndex:
    def __init__(self, client: redis.Redis, key: str) -> None:
        self.client = client
        self.key = key
        self.round_trips = 0
        self.late = 0  # fetches looked up at their flush (their lookup was not known)
        self.store: dict[str, str] = {}  # entries whose records are in the file, not sent
        self._queue: list[Ask] = []  # asked, not sent yet
        self._flight: tuple[Sent, list[Ask], dict[str, str], int] | None = None
        self._seq = 0  # sends so far
        self._recent: dict[str, tuple[str, int]] = {}  # stored entries, by the send that did
        self._warned = False

    def ask(self, uri: str) -> Ask:
        """Look up *uri* with the next :meth:`send`."""
        ask = Ask(uri)
        self._queue.append(ask)
        return ask

    def send(self) -> None:
        """Send the waiting lookups and entries in one write, the reply read later (the
        last send's reply is read first: one send on the wire at a time)."""
        self.settle()
        asks, self._queue = [a for a in self._queue if not a.known], []
        if not asks and not self.store:
            return
        store, self.store = self.store, {}
        try:
            sent = start(self.client, self._commands(store, [a.uri for a in asks]))
        except RedisError as exc:
            self._failed(exc, store)
            return
        self.round_trips += 1
        self._seq += 1
        for ask in asks:
            ask.seq = self._seq
        self._flight = (sent, asks, store, self._seq)

    def settle(self) -> None:
        """Read the reply of the send on the wire, if any (waiting for it if need be)."""
        if self._flight is None:
            return
        (sent, asks, store, seq), self._flight = self._flight, None
        try:
            replies = sent.replies()
            errors = [r for r in replies if isinstance(r, Exception)]
            if errors:
                raise errors[0]
        except RedisError as exc:
            self._failed(exc, store)
            return
        self._stored(store, seq)
        if asks:
            for ask, prior in zip(asks, self._read([a.uri for a in asks], replies[-1]),
                                  strict=True):
                ask.prior, ask.known = prior, True

    def priors(self, batch: Sequence[tuple[str, Ask | None]]) -> list[Prior | None]:
        """The prior capture of each ``(uri, ask)`` of a batch to write: what its lookup
        found, or an entry stored since (newer); the fetches without a known lookup
        looked up now, in one round trip (None for them if Redis failed)."""
        self.settle()
        unknown = [uri for uri, ask in batch if ask is None or not ask.known or ask.uri != uri]
        self.late += len(unknown)
        now = self.exchange(self.store, unknown) if unknown else []
        found = dict(zip(unknown, now or [None] * len(unknown), strict=True))
        out = []
        for uri, ask in batch:
            if ask is None or uri in found:
                prior, seq = found[uri], self._seq
            else:
                prior, seq = ask.prior, ask.seq or 0
            if text := self.store.get(uri):
                prior = Prior(*text.split(" ", 1), uri)
            elif (recent := self._recent.get(uri)) and recent[1] > seq:
                prior = Prior(*recent[0].split(" ", 1), uri)
            out.append(prior)
        return out

    def forget(self, oldest: int | None) -> None:
        """Drop the stored entries every lookup still out already sees (*oldest*: the
        lowest send number of the lookups of fetches not written yet)."""
        floor = self._seq if oldest is None else oldest
        self._recent = {uri: e for uri, e in self._recent.items() if e[1] > floor}

    def exchange(self, store: Mapping[str, str], urls: Sequence[str]
                 ) -> list[Prior | None] | None:
        """Store *store* (URL -> ``digest date``) and read the entries of *urls*, in one
        round trip. None when Redis failed (logged once): the entries stay for the next
        try and the caller writes full responses meanwhile."""
        self.settle()
        if not store and not urls:
            return []
        store = dict(store)
        try:
            pipe = self.client.pipeline(transaction=False)
            for command in self._commands(store, urls):
                pipe.execute_command(*command)
            replies = pipe.execute()
        except RedisError as exc:
            self._failed(exc, {})
            return None
        self.round_trips += 1
        self._seq += 1
        self._stored(store, self._seq)
        for uri in store:
            self.store.pop(uri, None)
        return self._read(urls, replies[-1]) if urls else []

    def _commands(self, store: Mapping[str, str], urls: Sequence[str]) -> list[tuple]:
        commands: list[tuple] = []
        if store:
            commands.append(("HSET", self.key, *(x for e in store.items() for x in e)))
        if urls:
            commands.append(("HMGET", self.key, *urls))
        return commands

    def _stored(self, store: Mapping[str, str], seq: int) -> None:
        for uri, text in store.items():
            self._recent[uri] = (text, seq)

    def _failed(self, exc: Exception, store: dict[str, str]) -> None:
        """A send failed: its entries wait for the next (a newer one for a URL wins)."""
        self.store = {**store, **self.store}
        if not self._warned:
            logger.warning("WARC digest index unavailable (%s): pages are archived as "
                           "full responses until it is back", exc)
            self._warned = True

    @staticmethod
    def _read(urls: Sequence[str], raws: Sequence) -> list[Prior | None]:
        out: list[Prior | None] = []
        for url, raw in zip(urls, raws, strict=True):
            if raw:
                digest, _, date = (raw.decode() if isinstance(raw, bytes) else raw).partition(" ")
                out.append(Prior(digest, date, url))
            else:
                out.append(None)
        return out
