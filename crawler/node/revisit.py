"""Revisits: the state that makes running a crawl again an incremental pass, and watch mode.

Three kinds of per-host state live in one hash per host, ``rv:<host>`` (one field each,
small values, written in batches at each heartbeat and at close):

=====================  ===============================================================
field                  value
=====================  ===============================================================
``p<fingerprint>``     a listing page (forum index, board, thread list; blog index,
                       feed, sitemap) as an encoded request whose meta ``revisit``
                       holds its validators (ETag, Last-Modified), body digest and
                       revisit interval; its due time is in ``rvq:<host>``
``r<key>``             digest (8 bytes) of what a listing says about an item it links
                       to (a thread-list row: reply count, last post...; a sitemap
                       ``lastmod``): a different digest means the item changed
``l<key>``             the encoded request of the last page seen of that item (a
                       thread's last known page), where a changed item is read from
``d<key>``             the encoded request of the item's first page, where its deep
                       revisits read it again in full from (:mod:`crawler.node.deep`)
=====================  ===============================================================

Item digests live apart, one small hash per thread (per article for blogs),
``rvi:<host>:<bucket>``: field = 8-byte digest of the item's id, value = 8-byte digest of
its fields, then its revision. Small hashes stay in Redis' compact listpack encoding:
about 25 bytes per item, against about 90 in one big hash per host.

Listing revisits wait in ``rvq:<host>`` (fingerprint -> due ms) and the cluster's
``revisit:due`` (host -> earliest due) so a node finds its due hosts without scanning:
the owner of a host promotes its due listings into the host's normal queue
(``revisit.lua``), where leases and politeness apply as to any request. Nothing moves on
a rebalance: the keys are per host and the new owner promotes them.

When is a listing due? In watch mode (:setting:`CRAWLER_WATCH`), at its fetch time plus
its interval, which adapts as in Nutch's AdaptiveFetchSchedule: shrunk by
:data:`DEC_RATE` when the page changed, grown by :data:`INC_RATE` when not, within
:setting:`CRAWLER_REVISIT_MIN_INTERVAL` and :setting:`CRAWLER_REVISIT_MAX_INTERVAL`.
Otherwise a run of a crawl that finished before starts a *pass*: every listing fetched
before the pass started is due once in it.
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from crawler.frontier import codec
from crawler.frontier.keys import host_of
from crawler.node.deep import DeepRevisits

if TYPE_CHECKING:
    from scrapy import Request, Spider

    from crawler.frontier.frontier import Frontier
    from crawler.frontier.membership import Membership
    from crawler.node.outcomes import Outcomes

logger = logging.getLogger(__name__)

#: Nutch's AdaptiveFetchSchedule rates: an unchanged page waits 40% longer next time, a
#: changed one 20% less.
INC_RATE, DEC_RATE = 0.4, 0.2
_PROMOTE_BATCH = 100  # due hosts read per heartbeat
_BUCKETS = 256  # item buckets (threads, articles) a node keeps after reading them


def digest(data: bytes | str) -> bytes:
    """An 8-byte digest: 1e-19 odds of a missed change per comparison."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.blake2b(data, digest_size=8).digest()


def watch_argument(raw: object) -> float:
    """The spider argument ``-a watch=<seconds>``, or a one-line ``ValueError``."""
    try:
        seconds = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"-a watch={raw!r} must be a number of seconds (0: off)") from None
    if not 0 <= seconds < float("inf"):
        raise ValueError(f"-a watch={raw!r} must be a number of seconds >= 0 (0: off)")
    return seconds


def next_interval(interval: float, changed: bool, low: float, high: float) -> float:
    """The adaptive revisit interval after a fetch that found the page *changed* or not."""
    interval *= (1 - DEC_RATE) if changed else (1 + INC_RATE)
    return min(max(interval, low), high)


class Revisits:
    """One node's view of the revisit state (see the module docstring for the keys).

    Reads settings through :class:`crawler.node.options.SchedulerOptions`: *watch*
    (:setting:`CRAWLER_WATCH`, seconds, 0: off) and the interval bounds. Writes are
    buffered and sent at each heartbeat (:meth:`tick`), so recording costs no round trip
    per page; reads happen only while :attr:`reading` (a revisit pass or watch mode),
    when there is something to compare with.
    """

    def __init__(self, frontier: Frontier, membership: Membership, outcomes: Outcomes, *,
                 watch: float, min_interval: float, max_interval: float,
                 deep_passes: int = 0, deep_days: float = 0) -> None:
        self.frontier = frontier
        self.outcomes = outcomes
        self.keys = frontier.keys
        self.store = frontier.revisits
        self.membership = membership
        self.watch = watch
        self.min_interval = min_interval if not watch else min(min_interval, watch)
        self.max_interval = max(max_interval, self.min_interval)
        self.pass_start: int | None = None  # ms; None: the crawl's first pass
        self.next_due: int | None = None
        self.counts: dict[str, int] = {}
        self._fields: dict[str, dict[str | bytes, bytes]] = {}  # key -> field -> value, unsent
        self._due: dict[str, dict[str, float]] = {}  # host -> fingerprint -> due ms, unsent
        self._dropped: dict[str, set[str]] = {}  # host -> listings no more, unsent
        self.listed: set[str] = set()  # fingerprints this run kept as listings
        self._buckets: OrderedDict[str, dict] = OrderedDict()  # item buckets read lately
        self.deep = DeepRevisits(self.store, membership, self.keys.ready(frontier.node),
                                 passes=deep_passes, days=deep_days, every=self.min_interval)

    @property
    def reading(self) -> bool:
        """Whether stored state can tell new from changed (not on a crawl's first pass)."""
        return bool(self.watch) or self.pass_start is not None

    def watching(self) -> bool:
        """Watch mode: the crawl never finishes."""
        return bool(self.watch)

    def next_watch_due(self) -> int | None:
        """In watch mode, when the next listing is due (Redis ms), if any is kept."""
        return self.next_due if self.watch else None

    @property
    def first_interval(self) -> float:
        """Seconds a listing waits after its first fetch."""
        return self.watch or self.min_interval

    def now_ms(self) -> int:
        """The cluster's clock (Redis'), in ms: when a listing was fetched."""
        return self.frontier.now_ms()

    def open(self, finished_at: int | None) -> None:
        """Decide the pass: a run of a crawl that finished at *finished_at* (ms) revisits
        every listing once; a run that finds an unfinished pass resumes it."""
        begun = self.store.pass_begun()
        if finished_at is not None and (begun is None or finished_at > begun):
            begun = self.frontier.now_ms()
            self.store.begin_pass(begun)
            logger.info("Revisiting: the crawl finished before, so this run fetches its "
                        "listing pages again (conditional GET) and only what changed")
        self.pass_start = begun
        self.deep.start_pass(self.store.pass_number())

    # -- state -----------------------------------------------------------------------

    def get(self, host: str, fields: list[str | bytes], bucket: bytes | None = None,
            ) -> list[bytes | None]:
        """Stored values of *fields* of *host* (of its item *bucket*, if given; unsent
        writes first), in one round trip."""
        if not fields:
            return []
        key = self._key(host, bucket)
        unsent = self._fields.get(key, {})
        if bucket is not None:
            stored = self._bucket(key)
        else:
            missing = [f for f in fields if f not in unsent]
            stored = self.store.fields(key, missing) if missing else {}
        return [unsent[f] if f in unsent else stored.get(f) for f in fields]

    def set(self, host: str, field: str | bytes, value: bytes, bucket: bytes | None = None,
            ) -> None:
        key = self._key(host, bucket)
        self._fields.setdefault(key, {})[field] = value
        if key in self._buckets:
            self._buckets[key][field] = value

    def _bucket(self, key: str) -> dict:
        """A whole item bucket (a thread's items), read once for the items of a page
        and kept for the next ones until the next heartbeat (an LRU of :data:`_BUCKETS`,
        emptied by :meth:`tick`): one round trip per page."""
        cached = self._buckets.get(key)
        if cached is not None:
            self._buckets.move_to_end(key)
            return cached
        cached = self._buckets[key] = self.store.bucket(key)
        if len(self._buckets) > _BUCKETS:
            self._buckets.popitem(last=False)
        return cached

    def _key(self, host: str, bucket: bytes | None) -> str:
        return self.store.key(host, bucket)

    def schedule(self, host: str, fingerprint: str, payload: bytes, fetched_ms: int,
                 interval: float) -> None:
        """Keep listing *fingerprint* of *host* (*payload*: its request) for revisits."""
        self.set(host, "p" + fingerprint, payload)
        # a run-again pass revisits what was fetched before it began: not this
        due = fetched_ms + interval * 1000 if self.watch \
            else max(fetched_ms, (self.pass_start or 0) + 1)
        self._due.setdefault(host, {})[fingerprint] = due
        self.listed.add(fingerprint)
        self._dropped.get(host, set()).discard(fingerprint)

    def keep_deep(self, host: str, key: str, payload: bytes) -> None:
        """Keep item *key*'s first request (*payload*) for its deep revisits."""
        self.set(host, "d" + key, payload)
        self.deep.keep(host, key)

    def unschedule(self, host: str, fingerprint: str) -> None:
        """Revisit listing *fingerprint* no more: a page of unknown role (a fallback's,
        taken for a listing) turned out to be a thread's. ``revisit.lua`` drops its due
        time once its request is gone."""
        self.listed.discard(fingerprint)
        self._fields.get(self.keys.revisit_state(host), {}).pop("p" + fingerprint, None)
        self._due.get(host, {}).pop(fingerprint, None)
        self._dropped.setdefault(host, set()).add(fingerprint)

    def read_as_thread(self, spider: Spider, request: Request) -> None:
        """A page of unknown role (taken for a listing) read as a thread's from a copy a
        learner kept, *request* the one that would fetch it now: the state its response
        would leave (:mod:`crawler.incremental`): a listing no more, its row (``r``) and
        its thread's last page read (``l``) kept."""
        host = host_of(request)
        self.unschedule(host, spider.crawler.request_fingerprinter.fingerprint(request).hex())
        if row := request.meta.get("revisit_row"):
            self.set(host, "r" + row[0], bytes.fromhex(row[1]))
        if key := request.meta.get("revisit_key"):
            last = request.replace(dont_filter=True, meta={"revisit_key": key})
            try:
                self.set(host, "l" + key, codec.encode(last, spider, host))
            except codec.EncodeError:
                self.count("revisit/unencodable")

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    # -- every heartbeat ------------------------------------------------------------------

    def tick(self) -> int:
        """Send buffered state, then promote this node's due listings; how many went to
        the queues (not in this heartbeat's counts yet)."""
        self.flush()
        # Item buckets read from Redis are kept for one heartbeat only: other nodes write
        # them too (a host's thread moves to its new owner when its node dies, or to a node
        # that steals a batch), and an item whose stored digest this node never sees is
        # taken for new, so an edit of it would come out as a new item, without revision.
        self._buckets.clear()
        if not self.reading:
            return 0
        now = self.frontier.now_ms()
        horizon = now if self.watch else self.pass_start
        hosts, self.next_due = self.store.due(horizon, _PROMOTE_BATCH)
        hosts = [h for h in hosts if self.membership.owns(h)]
        promoted = int(self.membership.with_ring(
            lambda epoch: self._promote(hosts, epoch, now, horizon)) or 0) if hosts else 0
        deep = self.deep.sweep(now, horizon)
        if deep:
            self.count("revisit/deep", deep)
            for _ in range(deep):  # each ends in one outcome, as a discovered URL does
                self.outcomes.record("discovered")
        return promoted + deep

    def _promote(self, hosts: list[str], epoch: int, now: int, horizon: int) -> int:
        # Due again unless their responses say when: a safety net for a fetch that fails
        # for good or dies with its node (ten first intervals: long enough for the host's
        # queue ahead of it, short enough not to lose the page for long); in a run-again
        # pass, in the next pass (after this pass's horizon)
        safety = min(self.max_interval, 10 * self.first_interval)
        again = now + int(safety * 1000) if self.watch else max(now, horizon) + 1
        promoted = self.frontier.promote_revisits(hosts, epoch, now, horizon, again)
        if promoted:
            self.count("revisit/promoted", promoted)
            for _ in range(promoted):  # each ends in one outcome, as a discovered URL does
                self.outcomes.record("discovered")
        return promoted

    def flush(self) -> None:
        """Send the buffered writes in one round trip (kept for the next try if it fails)."""
        if self._fields or self._due or self._dropped:
            self.store.write(self._fields, self._due, self._dropped)
            self._fields, self._due, self._dropped = {}, {}, {}
        self.deep.flush(self.frontier.now_ms())  # after the requests it refers to

    def stats(self) -> dict[str, Any]:
        counts, self.counts = self.counts, {}
        return counts
