"""Discuz!'s anti-CC protection, ``$_config['security']['attackevasive']`` in
``config/config_global.php`` (``source/include/misc/misc_security.php``), passed the way a
browser passes it, within the site's own rule: requests of one session 1 s apart.

The modes add up (``'1|4'``); each answers any page with a small page of its own:

* 1, "频繁刷新限制": a request in the same second as the session's previous one (its
  ``lastrequest`` cookie, set on every answer) gets this page, which reloads itself after
  1 s. On PHP 8 the session's very first request (no cookie yet) ends in Discuz's 503
  "System Error" (``int - string`` in ``misc_security.php``); the cookie is set before that,
  so a refresh passes too.
* 4, "页面重载开启": the first request of a session (or one 300 s after its previous) gets a
  page that sets the cookie and reloads itself after 1 s.
* 2, "代理服务器访问限制": a request with a proxy's headers (``Via``, ``X-Forwarded-For``)
  is refused; no waiting passes it.
* 8, an arithmetic question (the title is the sum, ``12 + 10 + 14 + 7 = ?``) in a form
  posted back with ``answer``: a person's answer, not a crawler's.

:func:`kind_of` tells these pages apart (:data:`RELOAD`, :data:`PROXY`, :data:`QUESTION`).
A :data:`RELOAD` page is fetched again with the session's cookies, 1 s after the request
that got it, at most :data:`TRIES` times, and the host's gap between requests becomes at
least :data:`GAP` for the whole cluster. :data:`PROXY` and :data:`QUESTION` stop the host:
one clear message, the page ends as ``failed/challenge``, and :meth:`Evasive.stopped` says
so for the host's further requests.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from crawler.login import CHALLENGE
from crawler.node.api import node_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

RELOAD = "reload"
PROXY = "proxy"
QUESTION = "question"
#: the gap Discuz wants between two requests of a session (it compares whole seconds, so a
#: request 1 s after the previous one is always in a later second)
GAP = 1.0
#: fetches of one URL that may meet a reload page before the host is given up
TRIES = 3

_TITLES = {"频繁刷新限制": RELOAD, "页面重载开启": RELOAD, "代理服务器访问限制": PROXY}
_SMALL = 20_000  # the protection's pages are 1-2 kB; Discuz's System Error page ~9 kB


def kind_of(response: Response) -> str | None:
    """:data:`RELOAD`, :data:`PROXY`, :data:`QUESTION` for a page of Discuz!'s anti-CC
    protection, else ``None`` (a cheap test first: nearly every page is not one)."""
    body = getattr(response, "body", b"")
    if len(body) > _SMALL or not hasattr(response, "css"):
        return None
    if response.status == 503 and b"misc_security.php" in body and b"System Error" in body:
        return RELOAD  # mode 1 on PHP 8, before the session had its cookie
    if b"secqsubmit" in body and response.css('form input[name="secqsubmit"]') \
            and response.css('form input[name="answer"]'):
        return QUESTION
    if b'bgcolor="#EBEBEB"' not in body:  # securitymessage()'s page: a byte test, as nearly
        return None                         # every page is not one (no parse of the page)
    title = (response.css("title::text").get() or "").strip()
    return _TITLES.get(title)


class Evasive:
    """Per crawl: the hosts seen behind the protection, and when each was last asked."""

    _of: WeakKeyDictionary[Crawler, Evasive] = WeakKeyDictionary()

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.hosts: dict[str, str] = {}  # host -> the kind first seen
        self.last: dict[str, float] = {}  # host -> monotonic time of its last request here
        self.stopped_hosts: dict[str, str] = {}  # host -> why

    @classmethod
    def of(cls, crawler: Crawler) -> Evasive:
        evasive = cls._of.get(crawler)
        if evasive is None:
            evasive = cls._of[crawler] = cls(crawler)
        return evasive

    def stopped(self, host: str) -> str | None:
        """Why *host* is not crawled any further (a question or a proxy ban), else None."""
        return self.stopped_hosts.get(host)

    def due_in(self, host: str) -> float:
        """Seconds until *host* may be asked again (0 if it is not behind the protection)."""
        if host not in self.hosts:
            return 0.0
        return max(0.0, self.last.get(host, 0.0) + GAP - time.monotonic())

    def sent(self, host: str) -> None:
        self.last[host] = time.monotonic()

    def seen(self, host: str, kind: str, response: Response) -> str | None:
        """*host* answered with a page of *kind*; the message that stops it, if it does."""
        if host not in self.hosts:
            self.hosts[host] = kind
            self._space(host)
            if kind == RELOAD:
                logger.info("%(host)s: Discuz! anti-CC protection (attackevasive): its "
                            "reload pages are passed as a browser does, requests 1 s apart",
                            {"host": host})
        self.crawler.stats.inc_value(f"login/attackevasive/{kind}")
        if kind == RELOAD:
            return None
        if kind == QUESTION:
            question = (response.css("title::text").get() or "").strip()
            why = ("Discuz! anti-CC protection (attackevasive 8) asks an arithmetic "
                   f"question ({question}) of every new session: the host is not crawled; "
                   "answer it in a browser and give its cookies (CRAWLER_COOKIES_FILE) with "
                   "its USER_AGENT")
        else:
            why = ("Discuz! anti-CC protection (attackevasive 2) refuses requests "
                   "that come through a proxy (Via, X-Forwarded-For): the host is not "
                   "crawled; crawl it without the proxy")
        if host not in self.stopped_hosts:
            self.stopped_hosts[host] = why
            logger.error("%(host)s: %(why)s", {"host": host, "why": why})
        return why

    def _space(self, host: str) -> None:
        """The cluster spaces the host's requests by GAP at least (the frontier's gate)."""
        node = node_of(self.crawler)
        if node is not None:
            node.space_host(host, GAP)

    async def process_response(self, request: Request, response: Response,
                               host: str | None = None) -> Response | Request:
        """For a downloader middleware: *response* if it is not the protection's page; the
        request again (after the gap) for a reload page; else IgnoreRequest, the page settled
        as ``failed/challenge``. *host*: the request's ``host[:port]`` by default."""
        kind = kind_of(response)
        if kind is None:
            return response
        from scrapy.exceptions import IgnoreRequest
        from scrapy.utils.httpobj import urlparse_cached

        host = host or urlparse_cached(request).netloc.lower()

        why = self.seen(host, kind, response)
        tries = int(request.meta.get("attackevasive_tries", 0)) + 1
        if why is None and tries < TRIES:
            retry = request.replace(dont_filter=True)
            retry.meta["attackevasive_tries"] = tries
            request.meta["not_content"] = CHALLENGE  # never the URL's capture in the archive
            return retry  # the frontier's gate spaces it GAP from the last request
        from crawler.login.pages import not_content

        not_content(self.crawler, response, host, CHALLENGE, request=request)
        raise IgnoreRequest(f"{host}: {why}" if why else f"{host}: Discuz! anti-CC reload "
                            f"page {tries} times at {response.url}")

