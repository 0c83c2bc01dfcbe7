"""Log in once per site for the whole cluster, or use a browser's cookies.

:class:`LoginSpiderMiddleware` holds the start requests back until every site of the crawl
with credentials has a session: the session stored in the crawl's Redis (a node that joins or
takes a host over uses it), else a login by this node under the site's Redis lock, which the
other nodes wait on and then use. A site covered by :setting:`CRAWLER_COOKIES_FILE` is not
logged in to: the file's cookies go into Scrapy's cookie jar.

The login (:meth:`Logins.log_in`): the start page tells the engine (the profile registry's
detection; WordPress by its markup), whose profile declares its form (``login``); the login
page is fetched and its form filled with :meth:`~scrapy.http.FormRequest.from_response`
(hidden fields and CSRF tokens come along) and sent. The engine's error message means a wrong
password: the crawl ends with one line, ``login to HOST as USER failed: <message>``
(:data:`~crawler.login.LOGIN_FAILED_STAT`, exit status 2), before any page is fetched.

:class:`LoginDownloaderMiddleware` sends a site's requests with its session's User-Agent,
never fetches a logout link while logged in, and watches the responses: a "log in first" page
of a site with credentials renews the session once, under the same lock (unless the node
finds the session still logged in, or another node renewed it), and the request is fetched
again; a session that ends again within a minute of its renewal stops the site instead (one
login POST per expiry, never one per page); a wall answered with an error status (a 403
login page, a bot wall's 503) ends here as the outcome of its own
(:mod:`crawler.login.pages`). Discuz!'s anti-CC protection is passed as a browser passes it
(:mod:`crawler.login.evasive`): a reload page is fetched again 1 s later and the host's
requests spaced 1 s; a host that asks a question is not crawled any further.

Login requests bypass the frontier (``engine.download_async``): they are never leased,
counted as pages or emitted. No password goes to a log line, a stat or an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.exceptions import IgnoreRequest
from scrapy.utils.httpobj import urlparse_cached

from crawler.login import CHALLENGE, LOGIN_REQUIRED
from crawler.login.engines import form_of_engine
from crawler.login.evasive import Evasive
from crawler.login.forms import LOGOUT, LoginForm
from crawler.login.logins import LoginFailed, Logins
from crawler.login.pages import (
    Walls,
    has_login_form,
    not_content,
    not_fetched,
    redirected_to_login,
    wall_of,
)
from crawler.login.private import keep_private

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response


class LoginSpiderMiddleware:
    """Holds the start requests until the sites with credentials have a session."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.logins = Logins.of(crawler)
        keep_private(crawler)  # before the crawl's Redis starts

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LoginSpiderMiddleware:
        return cls(crawler)

    async def process_start(self, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
        await self.logins.prepare()
        if self.logins.failed:
            return
        async for item_or_request in start:
            yield item_or_request


class LoginDownloaderMiddleware:
    """A site's session on its requests; walls seen in its responses (module docstring)."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.logins = Logins.of(crawler)
        self.evasive = Evasive.of(crawler)
        Walls.of(crawler)  # says at the close what could not be read

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LoginDownloaderMiddleware:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        if request.meta.get("crawler_login"):
            return
        logins = self.logins
        if logins.failed:
            raise IgnoreRequest(f"Not fetched: {logins.failed}")
        if self.evasive.stopped_hosts and (why := self.evasive.stopped(
                urlparse_cached(request).netloc.lower())):
            not_fetched(self.crawler, request, CHALLENGE)
            raise IgnoreRequest(f"Not fetched: {why}")
        if not logins.versions and not logins.cookie_sites:
            return  # no session anywhere (the usual crawl)
        site = logins.site_of(request.url)
        if site in logins.stopped:
            not_fetched(self.crawler, request, LOGIN_REQUIRED)
            raise IgnoreRequest(f"Not fetched: {logins.stopped[site]}")
        if site in logins.versions or site in logins.cookie_sites:
            if LOGOUT.search(request.url):
                raise IgnoreRequest("Not fetched while logged in: a logout link")
            request.meta.setdefault("login_version", logins.versions.get(site))
            if agent := logins.agents.get(site):
                request.headers[b"User-Agent"] = agent

    async def process_response(self, request: Request, response: Response) -> Response | Request:
        if request.meta.get("crawler_login") or request.meta.get("dont_obey_robotstxt"):
            return response
        passed = await self.evasive.process_response(request, response)
        if passed is not response:
            return passed  # Discuz!'s anti-CC reload page: the request again, 1 s later
        logins = self.logins
        wall = self._wall(request, response)
        if wall is None:
            return response
        request.meta["not_content"] = wall  # never archived, whatever comes of it below
        site = logins.site_of(request.url)
        if wall == LOGIN_REQUIRED and site in logins.credentials and not logins.failed \
                and not request.meta.get("login_retried"):
            try:
                renewed = await logins.renew(site, request.meta.get("login_version"))
            except LoginFailed as exc:
                logins.fail(str(exc))
                renewed = False
            if renewed:  # the URL asked for, not the login page it was redirected to
                retry = request.replace(url=request.meta.get("redirect_urls", [request.url])[0],
                                        dont_filter=True)
                retry.meta["login_retried"] = True
                for key in ("login_version", "not_content"):
                    retry.meta.pop(key, None)
                return retry
        if logins.failed or response.status >= 300 or wall == CHALLENGE \
                or redirected_to_login(request, response):
            # the spider would not see it (an error status) or must not read it
            not_content(self.crawler, response, site, LOGIN_REQUIRED if logins.failed and
                        wall != CHALLENGE else wall, request=request)
            raise IgnoreRequest(f"Not content: {wall} at {response.url}")
        return response  # a 200 "log in first" page: the spider says so (it knows the site)

    def _wall(self, request: Request, response: Response) -> str | None:
        wall = wall_of(response, self._form(request))
        if wall is None and (response.status in (401, 403) and has_login_form(response)
                             or redirected_to_login(request, response)):
            wall = LOGIN_REQUIRED
        return wall

    def _form(self, request: Request) -> LoginForm | None:
        engine = (request.cb_kwargs or {}).get("engine")
        if engine:
            return form_of_engine(engine)
        if not self.logins.forms:
            return None
        found = self.logins.forms.get(self.logins.site_of(request.url))
        return found[1] if found else None
