"""The engine's wake-ups (for :mod:`.exchange`): when a host's politeness gap ends, when
the next refill may run, and when a refill's reply has come."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.utils.asyncio import call_later
from twisted.internet.interfaces import IReadDescriptor
from zope.interface import implementer

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from crawler.frontier.link import Sent

#: The meta key of the request :meth:`Waker.wake` hands to ``engine.crawl()``: the
#: scheduler takes it in and drops it (it is never queued, counted nor fetched).
WAKE_META = "crawler_wake"


def is_wake_up(request: Request) -> bool:
    return bool(request.meta.get(WAKE_META))


class Waker:
    """When the next refill may run, and the engine's wake-up call for it.

    Scrapy has no public "poll the scheduler now"; without a wake-up the engine
    waits for its 5 s heartbeat when a politeness gap ends. ``engine.crawl()`` is the
    public call that runs the engine's loop at once: the request it is given is a wake-up
    the scheduler drops (:func:`is_wake_up`).
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.refill_after = 0.0
        self._call: Any = None
        self._gap_call: Any = None  # a host's gap ends (see wake_at)
        self._gap_at = 0.0

    def due(self) -> bool:
        return time.monotonic() >= self.refill_after

    def refill_now(self) -> None:
        """The next refill may run at once."""
        self.refill_after = 0.0

    def wait(self, seconds: float) -> None:
        """Refill no sooner than in *seconds*, and wake the engine then."""
        self.refill_after = time.monotonic() + seconds
        self.cancel()
        self._call = call_later(seconds, self.wake)

    def expedite(self, due_in: float = 0.01) -> None:
        """Local news may make a host due: a new request at once (refill in about
        10 ms, to batch), a settled lease once its host's gap has passed."""
        if self.refill_after > time.monotonic() + due_in:
            self.wait(due_in)

    def wake_at(self, when: float) -> None:
        """Wake the engine at *when* (monotonic: a held host's gap ends), unless a
        wake-up comes first."""
        if self._gap_call is not None:
            if self._gap_at <= when:
                return
            self._gap_call.cancel()
        self._gap_at = when
        self._gap_call = call_later(max(0.0, when - time.monotonic()), self._gap_ends)

    def _gap_ends(self) -> None:
        self._gap_call = None
        self.wake()

    def wake(self) -> None:
        self._call = None
        engine = self.crawler.engine
        if engine is not None and engine.scheduler is not None and engine.spider is not None:
            # dont_filter: Scrapy's offsite filter (a request_scheduled receiver) lets it by
            engine.crawl(Request("data:,", dont_filter=True, meta={WAKE_META: True}))

    def cancel(self) -> None:
        for call in (self._call, self._gap_call):
            if call is not None:
                call.cancel()  # a no-op once called
        self._call = self._gap_call = None


@implementer(IReadDescriptor)
class ReplyWatch:
    """Wakes the engine when the reply of a refill arrives: with nothing to download
    the engine would otherwise not ask for requests before its next heartbeat."""

    def __init__(self, waker: Waker) -> None:
        self.waker = waker
        self.sent: Sent | None = None

    def watch(self, sent: Sent) -> None:
        from twisted.internet import reactor  # noqa: PLC0415 - the running one

        self.sent = sent
        reactor.addReader(self)

    def stop(self) -> None:
        from twisted.internet import reactor  # noqa: PLC0415

        if self.sent is not None:
            reactor.removeReader(self)
            self.sent = None

    def fileno(self) -> int:
        return self.sent.fileno() if self.sent is not None else -1

    def doRead(self) -> None:  # noqa: N802 - Twisted's interface
        self.stop()
        self.waker.wake()

    def connectionLost(self, reason) -> None:  # noqa: N802
        self.sent = None

    def logPrefix(self) -> str:  # noqa: N802
        return "frontier-reply"
