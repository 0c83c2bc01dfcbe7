"""The attachments pipeline: every post's files downloaded once, stored by content.

Built on Scrapy's :class:`~scrapy.pipelines.media.MediaPipeline`: its requests go through
``engine.download()``, so through every downloader middleware (the crawl's login session and
cookies, robots.txt, the netguard, the WARC archive) and redirects (phpBB 3.3 answers 301).
They skip the scheduler, so they wait for their host's turn in the cluster-wide politeness
gate in :class:`crawler.node.turns.HostTurnMiddleware` (the HEAD requests too).
Not through :class:`~scrapy.pipelines.files.FilesPipeline`: it names files by a hash of the
URL and stores whatever answered, a "no permission" page included.

For each attachment, in this order (the first that decides):

1. the outcome index (:class:`crawler.frontier.cluster.StringHash` ``attachments``, by site, engine
   and attachment id, never by URL): an attachment stored, denied or too large in an earlier
   pass costs no request;
2. a URL that would spend credits, unless :setting:`CRAWLER_ATTACHMENT_SPEND_CREDITS`: denied
   without a request, a redirect to one too (:mod:`.credits`); with it, the page that took
   the credits links the file: that link is fetched;
3. the listed size, else a HEAD request's ``Content-Length``, over
   :setting:`CRAWLER_ATTACHMENT_MAXSIZE`: too large;
4. the GET: stopped at its headers when ``Content-Length`` is over the cap, at the cap when
   the length is unknown (too large); a 401/403 or an HTML answer is denied and not stored;
   another error status or a network failure is failed (tried again on the next pass); else
   the bytes are stored (:class:`.store.FileStore`) and the outcome indexed.

A post's item leaves the pipeline once all its files are stored, and a page is acked only
once its items left the pipelines (Scrapy's scraper keeps the response in its slot until
then, and the node acks no request in that slot): a page is acked only with its files,
while other pages are acked meanwhile (``tests/attachments/test_kill.py``).

Stats: ``attachments/<status>``, ``attachments/known`` (settled by the index, no request),
``attachments/bytes`` (bytes stored), ``attachments/head`` (HEAD requests).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Self

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest, NotConfigured, StopDownload
from scrapy.http import TextResponse
from scrapy.pipelines.media import MediaPipeline
from scrapy.utils.datatypes import SequenceExclude

from crawler import config
from crawler.attachments.links import CREDITS, body_attachments
from crawler.attachments.store import FileStore
from crawler.frontier.cluster import Cluster
from crawler.items import Attachment, Post
from crawler.node.turns import OFF_QUEUE

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure

__all__ = ["AttachmentsPipeline"]

#: Request meta: the :class:`Attachment` a download is for.
META = "crawler_attachment"
#: Request meta: the attachment's key in the outcome index (site, engine, attachment id).
KEY = "crawler_attachment_key"
#: Request meta: set once the download was stopped at the size cap.
OVER_CAP = "crawler_attachment_over_cap"
_RECEIVED = "crawler_attachment_received"
_FORWARDED = "crawler_attachment_forwarded"  # fetched from the page that took credits
#: Outcomes the index keeps; ``failed`` is tried again.
KEPT = ("stored", "denied", "too_large")
_HTML = (b"text/html", b"application/xhtml+xml")


class AttachmentsPipeline(MediaPipeline):
    """Item pipeline (420): see the module docstring. Off unless ``FILES_STORE`` is set."""

    def __init__(self, *, crawler: Crawler, store: FileStore, cap: int,
                 spend_credits: bool) -> None:
        super().__init__(crawler=crawler)
        # follow redirects (MediaPipeline's default handles every status itself)
        self.handle_httpstatus_list = SequenceExclude(range(300, 400))
        self.store, self.cap, self.spend_credits = store, cap, spend_credits
        self.stats = crawler.stats
        self.memory: dict[str, str] = {}  # the index without the frontier
        crawler.signals.connect(self._headers_received, signal=signals.headers_received)
        crawler.signals.connect(self._bytes_received, signal=signals.bytes_received)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        root = crawler.settings.get("FILES_STORE")
        if not root:
            raise NotConfigured("FILES_STORE is not set")
        return cls(crawler=crawler, store=FileStore(root),
                   cap=config.value(crawler.settings, "CRAWLER_ATTACHMENT_MAXSIZE"),
                   spend_credits=config.value(crawler.settings,
                                              "CRAWLER_ATTACHMENT_SPEND_CREDITS"))

    async def process_item(self, item: Any, spider: Any = None) -> Any:
        if not isinstance(item, Post):
            return item
        if not item.attachments:  # a reader that knows no engine: links in the body
            item.attachments = body_attachments(item.body_html, item.url)
        if not item.attachments:
            return item
        return await super().process_item(item)

    # -- MediaPipeline's hooks ---------------------------------------------------------------

    def get_media_requests(self, item: Post, info: Any) -> list[Request]:
        return [self._request(item, attachment) for attachment in item.attachments]

    async def media_to_download(self, request: Request, info: Any, *,
                                item: Any = None) -> dict[str, Any] | None:
        attachment: Attachment = request.meta[META]
        known = self._known(request)
        if known is not None and (known["status"] != "stored" or self.store.has(known["path"])):
            self.stats.inc_value("attachments/known")
            return known
        if CREDITS.search(request.url) and not self.spend_credits:
            return None  # its GET is refused (.credits): denied, not indexed
        size = attachment.size
        if size is None:
            size = await self._head_size(request)
        if size is not None and size > self.cap:
            return self._settled(request, {"status": "too_large", "size": size})
        return None

    async def media_downloaded(self, response: Response, request: Request, info: Any, *,
                               item: Any = None) -> dict[str, Any]:
        if (forward := self._after_credits(response, request)) is not None:
            request, response = forward, await self.crawler.engine.download_async(forward)
        content_type = (response.headers.get(b"Content-Type") or b"").split(b";")[0].strip()
        if request.meta.get(OVER_CAP):
            return self._settled(request, {"status": "too_large"})
        if response.status in (401, 403) or content_type.lower() in _HTML:
            return self._settled(request, {"status": "denied"})  # a page, not the file
        if response.status != 200:
            return {"status": "failed"}
        name = request.meta[META].name
        sha256, path = self.store.put(response.body, name)
        self.stats.inc_value("attachments/bytes", len(response.body))
        return self._settled(request, {
            "status": "stored", "sha256": sha256, "path": path, "size": len(response.body),
            "content_type": content_type.decode("latin-1") or None})

    def media_failed(self, failure: Failure, request: Request, info: Any, *,
                     item: Any = None) -> None:
        # MediaPipeline returns None for a failure whatever this returns: the verdict goes
        # on the attachment itself. robots.txt, offsite, the netguard: not ours to take
        request.meta[META].status = "denied" if failure.check(IgnoreRequest) else "failed"

    def item_completed(self, results: list[tuple[bool, Any]], item: Post, info: Any) -> Post:
        for attachment, (ok, outcome) in zip(item.attachments, results, strict=True):
            if ok and isinstance(outcome, dict):
                for name, value in outcome.items():
                    setattr(attachment, name, value)
            elif attachment.status is None:
                attachment.status = "failed"
            self.stats.inc_value(f"attachments/{attachment.status}")
        return item

    def file_path(self, request: Request, response: Response | None = None, info: Any = None,
                  *, item: Any = None) -> str:
        """Unused: the path comes from the content (:meth:`.FileStore.path_for`)."""
        raise NotImplementedError("attachments are stored by content")

    # -- the size cap, as the bytes arrive ---------------------------------------------------

    def _headers_received(self, headers: Any, body_length: int, request: Request,
                          spider: Any = None) -> None:
        # body_length is Twisted's UNKNOWN_LENGTH, a string, without a Content-Length
        if META in request.meta and isinstance(body_length, int) and body_length > self.cap:
            request.meta[OVER_CAP] = True
            raise StopDownload(fail=False)

    def _bytes_received(self, data: bytes, request: Request, spider: Any = None) -> None:
        if META not in request.meta:
            return
        received = request.meta[_RECEIVED] = request.meta.get(_RECEIVED, 0) + len(data)
        if received > self.cap:
            request.meta[OVER_CAP] = True
            raise StopDownload(fail=False)

    # -- helpers -----------------------------------------------------------------------------

    def _after_credits(self, response: Response, request: Request) -> Request | None:
        """The file's own link on the page that took the credits for it (Discuz!: "your
        credits -2, the download starts now"), when the setting allows spending them."""
        if not (self.spend_credits and isinstance(response, TextResponse)
                and CREDITS.search(response.url) and not request.meta.get(_FORWARDED)):
            return None
        wanted = request.meta[META].id
        for linked in body_attachments(response.text, response.url):
            if linked.id == wanted and not CREDITS.search(linked.url):
                return request.replace(url=linked.url, meta={**request.meta, _FORWARDED: True,
                                                              _RECEIVED: 0})
        return None

    def _request(self, item: Post, attachment: Attachment) -> Request:
        key = f"{item.site}|{item.engine}|{attachment.id}"
        # the cap is this pipeline's (signals above): Scrapy's would fail the download instead
        return Request(attachment.url, meta={META: attachment, KEY: key, OFF_QUEUE: True,
                                             "download_maxsize": 0, "download_warnsize": 0})

    async def _head_size(self, request: Request) -> int | None:
        """The ``Content-Length`` a HEAD request announces; None when it announces none."""
        self.stats.inc_value("attachments/head")
        head = request.replace(method="HEAD", meta={**request.meta, META: request.meta[META]})
        try:
            response = await self.crawler.engine.download_async(head)
        except Exception:  # noqa: BLE001 - the GET will tell (and count) what went wrong
            return None
        length = response.headers.get(b"Content-Length")
        return int(length) if length and length.isdigit() and response.status == 200 else None

    def _known(self, request: Request) -> dict[str, Any] | None:
        key = request.meta[KEY]
        cluster = Cluster.of(self.crawler)
        value = cluster.attachments.get(key) if cluster is not None else self.memory.get(key)
        return json.loads(value) if value else None

    def _settled(self, request: Request, outcome: dict[str, Any]) -> dict[str, Any]:
        """Index *outcome* (a file stored is on disk by now) and return it."""
        if outcome["status"] in KEPT:
            key, value = request.meta[KEY], json.dumps(outcome)
            cluster = Cluster.of(self.crawler)
            if cluster is not None:
                cluster.attachments.put(key, value)
            else:
                self.memory[key] = value
        return outcome
