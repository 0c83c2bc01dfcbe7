"""Captures every fetch into WARC/1.1 files: on when :setting:`CRAWLER_WARC_DIR` is set.

The add-on places :class:`WarcMiddleware` at 950, closer to the downloader than
HttpCompressionMiddleware (590), RedirectMiddleware (600), RetryMiddleware (550) and the
robots.txt middleware (100): it sees each response as it came off the wire (body
de-chunked by Scrapy, content encoding kept), every redirect hop, every retry attempt,
every robots.txt and every 304. Not archived: the login flow's fetches (meta
``crawler_login``: a password in a POST body, session cookies) and pages
:mod:`crawler.login` marks ``not_content`` (login walls, denial pages, bot challenges).
A request refused before the download (robots.txt, the netguard, offsite) never reaches it,
so it is never archived; nor is a response served from Scrapy's HTTP cache or made up by
another middleware (only requests that passed through :meth:`process_request`, i.e. went to
the download handler, are written).

Each fetch's records are made and gzipped as it comes (its body is then let go), and
written in batches (a full batch, every second, before each batch of acks, and at the
close). Its URL was looked up in the digest index as its request went out
(:class:`~crawler.archive.index.DigestIndex`: the lookups of :data:`LOOKUP_WINDOW` in one
round trip, read later), so a batch is written without waiting for Redis; a page whose
payload digest is the one its URL had at its last full capture is written as a
``revisit`` (its response record made again, without the body).

Stats: ``warc/responses``, ``warc/revisits``, ``warc/not_modified``, ``warc/payload_bytes``
(payload bytes stored in response records), ``warc/files``, ``warc/skipped/login``,
``warc/skipped/not_content``, ``warc/late_lookups`` (fetches whose lookup was not back at
their flush: looked up then, the flush waiting for Redis).
"""

from __future__ import annotations

import logging
import socket
import time
from dataclasses import replace
from importlib import metadata
from typing import TYPE_CHECKING, Any, NamedTuple, Self
from weakref import WeakKeyDictionary

import scrapy
from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.http import Response as HttpResponse
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.task import LoopingCall

from crawler import config
from crawler.archive.index import Ask, DigestIndex
from crawler.archive.records import (
    Fetch,
    Prior,
    metadata_record,
    new_id,
    request_block,
    request_record,
    response_block,
    response_record,
    revisit_headers,
    target_uri,
    warc_date,
)
from crawler.archive.writer import WarcFiles, close_abandoned, member, mount_point, safe_name
from crawler.durable import ITEMS_ERROR_STAT, items_durable
from crawler.frontier.cluster import Cluster
from crawler.login.logins import Logins
from crawler.node.api import node_name
from crawler.ops.logs import disabled
from crawler.redis import crawl_id

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

#: Item types whose page is a page of ``pages.jsonl``: a thread's, an article's.
PAGE_ITEMS = ("thread", "article")

#: A batch is written once it holds this many fetches or this many body bytes.
BATCH_FETCHES = 64
BATCH_BYTES = 4 * 1024 * 1024
FLUSH_INTERVAL = 1.0
#: s: the lookups of the requests sent within it go to Redis together (one round trip)
LOOKUP_WINDOW = 0.01


class Captured(NamedTuple):
    """A fetch waiting for its batch, its records made and compressed as it came (while
    its body was in the CPU's caches): a batch then holds gzip members, not bodies, and
    the flush before an ack barrier is short."""

    fetch: Fetch  # without its body
    ask: Ask | None  # its URL's lookup in the digest index
    payload: int  # the body's length
    digest: str  # its payload digest
    response_id: str
    response: bytes | None  # the full response record's gzip member (a 304 has none)
    request: bytes  # the request record's gzip member

    def members(self, prior: Prior | None) -> tuple[bytes, bool]:
        """The gzip members to write, and whether the response is a revisit of *prior*:
        then its response record is made again, as a revisit (without the body)."""
        revisit = revisit_headers(self.fetch, self.digest, prior)
        if revisit is None and self.response is not None:
            return self.response + self.request, False
        record = response_record(self.fetch, self.digest, self.response_id, revisit)
        return member(record) + self.request, revisit is not None


class WarcMiddleware:
    """Downloader middleware (950): every fetch as WARC records; see the module docstring."""

    def __init__(self, crawler: Crawler, directory: str, max_size: int) -> None:
        self.crawler = crawler
        self.directory = directory
        self.max_size = max_size
        self.stats = crawler.stats
        self.logins = Logins.of(crawler)
        # requests sent to the download handler, with their URL's lookup
        self._sent: WeakKeyDictionary[Request, Ask | None] = WeakKeyDictionary()
        self._pending: list[Captured] = []
        self._notes: list[tuple[str, str, dict[str, str]]] = []
        self._pending_bytes = 0
        self._files: WarcFiles | None = None
        self._index: DigestIndex | None = None
        self._index_opened = False
        self._lookups: Any = None  # the delayed call that sends the lookups
        self._loop = LoopingCall(self._tick)
        self._flush_soon = False
        self._stopped = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        directory = config.value(crawler.settings, "CRAWLER_WARC_DIR")
        if not directory:
            raise disabled(cls, "CRAWLER_WARC_DIR is not set")
        mw = cls(crawler, str(directory), config.value(crawler.settings, "CRAWLER_WARC_MAX_SIZE"))
        crawler.signals.connect(mw.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(mw.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(mw.spider_closed, signal=signals.spider_closed)
        # a crawl that finishes goes idle first: the stats (and CRAWLER_STATS_FILE, written
        # at spider_closed before this middleware's own handler) then count every record
        crawler.signals.connect(mw.flush, signal=signals.spider_idle)
        crawler.signals.connect(mw.flush_to_os, signal=items_durable)
        return mw

    # -- capture ------------------------------------------------------------

    def process_request(self, request: Request, spider: Any = None) -> None:
        # the last middleware before the download handler
        archived = request.url.startswith(("http://", "https://")) \
            and not request.meta.get("crawler_login")
        index = self._digest_index() if archived else None
        self._sent[request] = index.ask(self._uri(request)) if index is not None else None
        if index is not None and self._lookups is None:
            from twisted.internet import reactor  # noqa: PLC0415 - the installed one

            self._lookups = reactor.callLater(LOOKUP_WINDOW, self._send_lookups)

    def _send_lookups(self) -> None:
        self._lookups = None
        if self._index is not None:
            self._index.send()

    def _uri(self, request: Request) -> str:
        uri = target_uri(request)
        for secret in self.logins.secrets():  # a session id in a URL: masked
            uri = uri.replace(secret.decode("latin-1"), "*" * len(secret))
        return uri

    def process_response(self, request: Request, response: Response,
                         spider: Any = None) -> Response:
        ask = self._sent.pop(request, False)
        if ask is False or "cached" in response.flags:
            return response
        if not request.url.startswith(("http://", "https://")):  # file:, data:, ftp: no HTTP
            return response
        if request.meta.get("crawler_login"):  # the login flow: a password, session cookies
            self.stats.inc_value("warc/skipped/login")
            return response
        ip = getattr(response, "ip_address", None)
        body, uri = response.body, self._uri(request)
        for secret in self.logins.secrets():  # a session id in a page: masked
            body = body.replace(secret, b"*" * len(secret))
        fetch = Fetch(
            uri=uri, date=warc_date(time.time()),
            ip=str(ip) if ip is not None else None,
            request_block=request_block(request, response), request_body=request.body or b"",
            response_block=response_block(response), body=body,
            status=response.status, truncated="download_stopped" in response.flags,
            meta=request.meta)
        self._pending.append(_capture(fetch, ask))
        self._pending_bytes += len(fetch.body)
        full = len(self._pending) >= BATCH_FETCHES or self._pending_bytes >= BATCH_BYTES
        if full and not self._flush_soon:
            # after the other middlewares have seen the response (a login wall is marked
            # not_content on its way back)
            from twisted.internet import reactor  # noqa: PLC0415 - the installed one

            self._flush_soon = True
            reactor.callLater(0, self._tick)
        return response

    def process_exception(self, request: Request, exception: BaseException,
                          spider: Any = None) -> None:
        self._sent.pop(request, None)

    def item_scraped(self, item: Any, response: Response, spider: Any = None) -> None:
        """A thread (or article) item: note the page it came from, with its title. A signal,
        not a spider middleware: nothing runs for the many requests a page yields."""
        adapter = ItemAdapter(item)
        kind, title = adapter.get("item_type"), adapter.get("title")
        if kind in PAGE_ITEMS and isinstance(title, str) and title.strip() \
                and isinstance(response, HttpResponse):
            fields = {"item-type": kind, "title": title.strip()}
            if isinstance(url := adapter.get("url"), str):
                fields["item-url"] = url
            self.note_page(target_uri(response.request or response), fields)

    def note_page(self, uri: str, fields: dict[str, str]) -> None:
        """Write a ``metadata`` record (``application/warc-fields``) about the page *uri*
        with the next batch: what ``python -m crawler wacz`` lists in ``pages.jsonl``."""
        self._notes.append((uri, warc_date(time.time()), fields))

    # -- writing ------------------------------------------------------------

    def spider_opened(self, spider: Any = None) -> None:
        # what a killed run of this crawl left: closed (a live node's files are held)
        if closed := close_abandoned(self.directory, f"{safe_name(crawl_id(self.crawler))}-"):
            logger.warning("WARC: %(n)d file(s) a killed run left open closed: %(names)s",
                           {"n": len(closed), "names": ", ".join(p.name for p in closed)})
        self._loop.start(FLUSH_INTERVAL, now=False)

    def spider_closed(self, spider: Any = None, reason: str = "") -> None:
        if self._loop.running:
            self._loop.stop()
        if self._lookups is not None and self._lookups.active():
            self._lookups.cancel()
        self.flush()
        if (index := self._index) is not None:
            index.exchange(index.store, [])
            if index.store:
                logger.warning("WARC digest index: %d entries could not be stored; the next "
                               "run archives those pages in full", len(index.store))
        if self._files is not None:
            self._files.close()
            logger.info("WARC: %d file(s) in %s", len(self._files.closed), self.directory)

    def _tick(self) -> None:
        try:
            self.flush()
            if self._index is not None and self._index.store:  # no lookup took them along
                self._index.send()
        except Exception:  # a bug must not stop the archive's clock: said, and tried again
            logger.exception("WARC: writing a batch failed")

    def flush_to_os(self) -> bool:
        """Before the acks of settled pages leave (:data:`crawler.durable.items_durable`):
        their records handed to the OS, so a SIGKILL loses none of an acked page. False
        (the acks are held) when the archive cannot be written."""
        self.flush()
        if self._files is not None:
            self._files.flush_to_os()
            self._stop_if_failed()
        return self.error is None

    @property
    def error(self) -> OSError | None:
        return self._files.error if self._files is not None else None

    def _stop_if_failed(self) -> None:
        """The archive cannot be written (a full disk): the crawl stops, exit status 4, with
        one line naming the folder and its disk; the acks of the pages not archived are held,
        so the same command fetches them again."""
        if self.error is None or self._stopped:
            return
        self._stopped = True
        reason = self.error.strerror or str(self.error)
        message = (f"cannot write the web archive to {self.directory} (on the disk mounted at "
                   f"{mount_point(self.directory)}: {reason}): the crawl stopped; the pages not "
                   "archived were not marked done, so the same command fetches them again")
        self.stats.set_value(ITEMS_ERROR_STAT, message)
        engine = self.crawler.engine
        if engine is not None and getattr(self.crawler, "crawling", False):
            from twisted.internet import reactor  # noqa: PLC0415 - the installed one

            reactor.callLater(0, lambda: deferred_from_coro(
                engine.close_spider_async(reason="archive_write_failed")))

    def flush(self, spider: Any = None) -> None:
        """Write the buffered fetches: one Redis round trip, then their records."""
        self._flush_soon = False
        batch = [c for c in self._pending if not c.fetch.meta.get("not_content")]
        if skipped := len(self._pending) - len(batch):  # a login wall, a denial page
            self.stats.inc_value("warc/skipped/not_content", skipped)
        self._pending, self._pending_bytes = [], 0
        if not batch and not self._notes:
            return
        files, index = self._open(), self._digest_index()
        priors = index.priors([(c.fetch.uri, c.ask) for c in batch]) if index else None
        if index is not None and index.late:
            self.stats.set_value("warc/late_lookups", index.late)
        out = []
        captured: dict[str, str] = {}  # this batch's full captures: indexed once on disk
        not_modified = revisits = responses = payload = 0
        for capture, prior in zip(batch, priors or [None] * len(batch), strict=True):
            fetch, digest = capture.fetch, capture.digest
            if text := captured.get(fetch.uri):
                prior = Prior(*text.split(" ", 1), fetch.uri)  # this batch's
            members, revisit = capture.members(prior)
            out.append(members)
            if fetch.status == 304:
                not_modified += 1
            elif revisit:
                revisits += 1
            else:
                responses += 1
                payload += capture.payload
                if capture.payload and not fetch.truncated:
                    captured[fetch.uri] = f"{digest} {fetch.date}"
        notes, self._notes = self._notes, []
        out += [member(metadata_record(uri, date, fields)) for uri, date, fields in notes]
        files.write_members(out)
        files.flush_to_os()
        if files.error is not None:  # nothing claimed, nothing indexed: not in the file
            self._stop_if_failed()
            return
        if index is not None:  # a digest is indexed once its record is in the file
            index.store.update(captured)
            index.forget(min((a.seq for a in self._sent.values()
                              if a is not None and a.seq is not None), default=None))
        for name, count in (("warc/not_modified", not_modified), ("warc/revisits", revisits),
                            ("warc/responses", responses), ("warc/payload_bytes", payload)):
            if count:
                self.stats.inc_value(name, count)

    def _open(self) -> WarcFiles:
        if self._files is None:
            crawl = crawl_id(self.crawler)
            name = node_name(self.crawler)
            settings = self.crawler.settings
            info = {
                "software": f"forum-crawler (Scrapy {scrapy.__version__}; "
                            f"warcio {metadata.version('warcio')})",
                "format": "WARC File Format 1.1",
                "conformsTo": "https://iipc.github.io/warc-specifications/specifications/"
                              "warc-format/warc-1.1/",
                "isPartOf": crawl,
                "hostname": socket.gethostname(),
                "robots": "obey" if settings.getbool("ROBOTSTXT_OBEY") else "ignore",
                "http-header-user-agent": settings.get("USER_AGENT"),
            }
            self._files = WarcFiles(self.directory, crawl, str(name), self.max_size, info,
                                    on_open=lambda: self.stats.inc_value("warc/files"))
        return self._files

    def _digest_index(self) -> DigestIndex | None:
        if not self._index_opened:
            self._index_opened = True
            try:
                cluster = Cluster.of(self.crawler)
                if cluster is not None:
                    self._index = DigestIndex(cluster.client, cluster.keys.warc_digests)
            except Exception:  # noqa: BLE001 - no Redis: full responses, never a lost page
                logger.warning("WARC: no digest index (Redis unavailable); no revisit records",
                               exc_info=True)
        return self._index


def _capture(fetch: Fetch, ask: Ask | None) -> Captured:
    """*fetch* with its records made: the response in full (a 304 is always a revisit:
    made at the flush), and its request; its body let go. *ask*: its URL's lookup."""
    digest, response_id = fetch.digest, new_id()
    response = None if fetch.status == 304 else member(response_record(fetch, digest,
                                                                       response_id))
    return Captured(replace(fetch, body=b""), ask, len(fetch.body), digest, response_id,
                    response, member(request_record(fetch, response_id)))
