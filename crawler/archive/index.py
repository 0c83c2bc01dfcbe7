"""The crawl's digest index: for every archived URL, the payload digest and the date of its
last full capture, in the crawl's Redis, so revisits hold across nodes and runs.

One hash per crawl, ``crawler:{<crawl>}:warc:digests`` (``Keys(crawl).warc_digests``, in
the key table of :mod:`crawler.frontier.keys`): URL -> ``<digest> <WARC-Date>``.

A node looks a URL up when its request goes to the download handler (:meth:`DigestIndex.want`)
and does not wait: the lookups of a reactor turn go out together in one write, with the
entries to store (:meth:`DigestIndex.send`), one batch on the wire at a time, and their
replies are read when they have come. By the time the response is written the reply is
almost always there; a URL whose lookup was not answered yet is looked up then, waiting
(:meth:`DigestIndex.priors`). An entry is stored only once its record is in the file
(:meth:`DigestIndex.store`, called after the write), so a revisit never refers to a record
a kill lost.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from crawler.archive.records import Prior
from crawler.frontier.link import Sent, send

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import redis

logger = logging.getLogger(__name__)

#: Answers kept for fetches not written yet; past this (requests that never came back),
#: they are dropped and those URLs looked up again when written
KNOWN_MAX = 10_000


class DigestIndex:
    def __init__(self, client: redis.Redis, key: str) -> None:
        self.client = client
        self.key = key
        self.round_trips = 0
        self.unstored: dict[str, str] = {}  # entries whose records are written, not stored
        self._wanted: list[str] = []  # URLs to look up with the next send
        self._known: dict[str, Prior | None] = {}  # answers not used yet
        self._sent: Sent | None = None  # a batch on the wire
        self._asked: list[str] = []  # ... its lookups
        self._storing: dict[str, str] = {}  # ... and its entries
        self._down = False  # the last try failed: no sending ahead until a write's try works
        self._warned = False

    def want(self, url: str) -> None:
        """Look *url* up with the next :meth:`send`."""
        self._wanted.append(url)

    def has_wanted(self) -> bool:
        return bool(self._wanted or self.unstored)

    def store(self, entries: Mapping[str, str]) -> None:
        """Store *entries* (URL -> ``digest date``, their records written) with the next
        send."""
        self.unstored.update(entries)

    def send(self) -> None:
        """Send the wanted lookups and the entries to store, without waiting; if a batch is
        on the wire, its replies are read first when they have come, else nothing is sent
        (the next call sends). Nothing while Redis is down (each write tries once)."""
        if self._down:
            self._wanted = []
            return
        self._send()

    def _send(self) -> None:
        if self._sent is not None:
            if not self._sent.ready():
                return
            self._receive()
        if not self.has_wanted():
            return
        commands: list[tuple] = []
        if self.unstored:
            commands.append(("HSET", self.key, *(x for kv in self.unstored.items() for x in kv)))
        if self._wanted:
            commands.append(("HMGET", self.key, *self._wanted))
        try:
            self._sent = send(self.client, commands)
        except RedisError as exc:
            self._wanted = []  # looked up again, waiting, when their fetches are written
            self._failed(exc)
            return
        self.round_trips += 1
        self._asked, self._wanted = self._wanted, []
        self._storing, self.unstored = self.unstored, {}

    def priors(self, urls: Sequence[str]) -> list[Prior | None] | None:
        """The index's entries of *urls* (each used once), waiting for what was not
        answered yet; the unstored entries are stored too. None when Redis failed
        (logged once): the caller writes full responses, the entries wait for the next
        try."""
        self._receive()
        wanted = set(self._wanted)
        self._wanted += [url for url in urls if url not in self._known and url not in wanted]
        self._down = False
        if self.has_wanted():
            self._send()
            self._receive()
        if any(url not in self._known for url in urls):  # Redis failed
            return None
        out = [self._known[url] for url in urls]
        for url in urls:
            self._known.pop(url, None)
        return out

    def close(self) -> bool:
        """Store what is left (waiting); whether it all got there."""
        self._wanted = []
        self._receive()
        if self.unstored:
            self._down = False
            self._send()
            self._receive()
        return not self.unstored

    def _receive(self) -> None:
        """Read the replies of the batch on the wire, if any (waiting for them)."""
        sent, self._sent = self._sent, None
        if sent is None:
            return
        asked, self._asked = self._asked, []
        storing, self._storing = self._storing, {}
        try:
            replies = sent.replies()
            if error := next((r for r in replies if isinstance(r, Exception)), None):
                raise error
        except RedisError as exc:
            self.unstored = {**storing, **self.unstored}  # kept for the next try
            self._failed(exc)
            return
        if len(self._known) > KNOWN_MAX:
            self._known.clear()
        for url, raw in zip(asked, replies[-1] if asked else (), strict=True):
            if raw:
                digest, _, date = (raw.decode() if isinstance(raw, bytes) else raw).partition(" ")
                self._known[url] = Prior(digest, date, url)
            else:
                self._known[url] = None

    def _failed(self, exc: RedisError) -> None:
        self._down = True
        if not self._warned:
            logger.warning("WARC digest index unavailable (%s): pages are archived as "
                           "full responses until it is back", exc)
            self._warned = True
