"""A crawl's logins: one session per site for the whole cluster (see
:mod:`crawler.login.middleware` for how the middlewares use it)."""

from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from weakref import WeakKeyDictionary

from scrapy import Request
from scrapy.downloadermiddlewares.cookies import CookiesMiddleware
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet import defer, task

from crawler.frontier.cluster import Cluster
from crawler.login import (
    LOGIN_FAILED_REASON,
    LOGIN_FAILED_STAT,
    cookiesfile,
)
from crawler.login.credentials import (
    Credentials,
    CredentialsError,
    from_arguments,
    from_settings,
)
from crawler.login.engines import form_of_engine
from crawler.login.evasive import TRIES, Evasive, kind_of
from crawler.login.forms import (
    WORDPRESS,
    LoginForm,
    is_wordpress,
)
from crawler.login.pages import Walls
from crawler.login.session import LOCK_TTL_MS, MemoryStore, SessionStore
from crawler.login.signin import LoginFailed, sign_in, sleep_for

if TYPE_CHECKING:

    from scrapy.crawler import Crawler
    from scrapy.http import Response


logger = logging.getLogger(__name__)

#: meta of the login's own requests: past the frontier, robots.txt and this middleware
LOGIN_META = {"crawler_login": True, "dont_obey_robotstxt": True, "dont_cache": True}
WAIT = 120.0  # s a node waits for another node's login before giving up
POLL = 0.25
SECRET_LENGTH = 16  # shorter: a flag, a user id, a timestamp (MyBB's lastvisit), no secret
CHECKED = 30.0
#: A session that ends again this soon after its renewal is not renewed again: the site
#: is stopped (one login POST per expiry, not one per page)
RENEW_GAP = 60.0  # s a "still logged in" check holds for (a board of many closed pages)


class Logins:
    """A crawl's sites with a session, on this node (one per crawler)."""

    _of: WeakKeyDictionary[Crawler, Logins] = WeakKeyDictionary()

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.owner = uuid.uuid4().hex  # this node's name on a login lock
        self.credentials: dict[str, Credentials] = {}
        self.start_urls: dict[str, str] = {}  # site -> its start URL
        self.forms: dict[str, tuple[str, LoginForm]] = {}  # site -> engine, form
        self.versions: dict[str, int] = {}  # site -> the session version installed here
        self.agents: dict[str, str] = {}  # site -> the User-Agent its session is bound to
        self.cookie_sites: set[str] = set()
        self.locks: dict[str, defer.DeferredLock] = {}
        self.checked: dict[str, tuple[float, int | None]] = {}  # site -> (when, version)
        self.failed: str | None = None
        self.renewed: dict[str, tuple[int | None, float]] = {}  # site -> (version, when)
        self.stopped: dict[str, str] = {}  # site -> why no more logins (and requests)
        self.prepared = False
        self._store: SessionStore | None = None

    @classmethod
    def of(cls, crawler: Crawler) -> Logins:
        logins = cls._of.get(crawler)
        if logins is None:
            logins = cls._of[crawler] = cls(crawler)
        return logins

    @property
    def store(self) -> SessionStore:
        if self._store is None:
            cluster = Cluster.of(self.crawler)
            if cluster is not None:
                self._store = SessionStore(cluster.client, cluster.keys)
            else:
                self._store = MemoryStore()
        return self._store

    def site_of(self, url: str) -> str:
        site_of = getattr(self.crawler.spider, "site_of", None)
        return (site_of(url) if callable(site_of) else None) or urlsplit(url).netloc.lower()

    # -- the start -------------------------------------------------------------------------
    async def prepare(self) -> None:
        """Every site of the crawl with credentials gets a session, or the crawl ends."""
        if self.prepared:
            return
        self.prepared = True
        spider = self.crawler.spider
        urls = getattr(spider, "start_urls", None) or []
        for url in urls:
            self.start_urls.setdefault(urlsplit(url).netloc.lower(), url)
        engine = self.crawler.engine
        paused = False
        try:
            given = from_settings(self.crawler.settings)
            given.update(from_arguments(spider, list(self.start_urls)))
            self.load_cookies_file()
            for site, credentials in given.items():
                if site not in self.start_urls:
                    continue  # a Secret may hold more sites than a crawl has
                if site in self.cookie_sites:
                    logger.info("%(site)s: the browser's cookies (CRAWLER_COOKIES_FILE) are "
                                "used, no login", {"site": site})
                    continue
                self.credentials[site] = credentials
                self.store.seal_with(site, credentials.username, credentials.password)
                if engine is not None and not paused and not engine.paused:
                    # nothing from the scheduler (other nodes' requests) until the sessions
                    # are in: a guest answer's cookie would replace the session's in the jar
                    engine.pause()
                    paused = True
                await self.ensure(site)
            evasive = Evasive.of(self.crawler)
            for host in list(evasive.hosts):  # the crawl's first request 1 s after the login's
                if wait := evasive.due_in(host):
                    await sleep_for(wait)
        except (CredentialsError, cookiesfile.CookiesFileError, LoginFailed) as exc:
            self.fail(str(exc))
        finally:
            if paused:
                engine.unpause()

    def load_cookies_file(self) -> None:
        path = self.crawler.settings.get("CRAWLER_COOKIES_FILE")
        if not path or str(path) in ("None", "none"):
            return
        self.cookie_sites = cookiesfile.use(str(path), list(self.start_urls), self.jar(),
                                            self.crawler.settings.get("USER_AGENT", ""))
        for site in self.cookie_sites:
            Walls.of(self.crawler).with_session[site] = "the browser's cookies"

    def secrets(self) -> list[bytes]:
        """The cookie values of the sites with a session or a browser's cookies (the
        archive masks them: a page may show its session id, as phpBB's logout link does)."""
        if not (self.versions or self.cookie_sites):
            return []
        hosts = {urlsplit(f"//{site}").hostname or site
                 for site in (*self.versions, *self.cookie_sites)}
        return [cookie.value.encode("latin-1", "replace") for cookie in self.jar()
                if cookie.value and len(cookie.value) >= SECRET_LENGTH
                and any(cookiesfile.matches(cookie, host) for host in hosts)]

    def jar(self, key: Any = None) -> Any:
        """Scrapy's cookie jar (the cookies middleware's) of *key* (``meta["cookiejar"]``)."""
        for middleware in self.crawler.engine.downloader.middleware.middlewares:
            if isinstance(middleware, CookiesMiddleware):
                jar = middleware.jars[key]
                cookiesfile.host_only(jar)  # a session's host-only cookie: its host's alone
                return jar
        raise LoginFailed("a login needs Scrapy's cookies middleware: COOKIES_ENABLED is off")

    async def ensure(self, site: str) -> None:
        """The stored session of *site*, else a login (under the cluster's lock)."""
        lock = self.locks.setdefault(site, defer.DeferredLock())
        await maybe_deferred_to_future(lock.acquire())
        try:
            if not self.use_stored(site, stale=None):
                await self.login_once(site, stale=None)
        finally:
            lock.release()

    def use_stored(self, site: str, stale: int | None) -> bool:
        """Install the stored session of *site* if there is one of the same user other than
        version *stale* (``None``: any); whether there was."""
        session = self.store.load(site)
        if not (session and session.get("user") == self.credentials[site].username
                and session["version"] != stale):
            return False
        self.install(site, session)
        logger.info("%(site)s: using the session of %(user)s stored by the cluster",
                    {"site": site, "user": session["user"]})
        return True

    async def login_once(self, site: str, stale: int | None) -> None:
        """Log in to *site* under its Redis lock, unless a session other than version
        *stale* (``None``: any) of the same user is stored meanwhile: then use that one.

        The store is read again after every failed attempt at the lock and once it is held
        (a node that takes the lock the moment another released it finds that one's
        session), and the lock is kept alive while the login runs, so that it cannot lapse
        under a slow login and let a second node in."""
        store, user = self.store, self.credentials[site].username
        deadline = time.monotonic() + WAIT
        said = False
        while not store.acquire(site, self.owner):
            if message := store.failed(site):
                raise LoginFailed(message)
            if self.use_stored(site, stale):
                return
            if time.monotonic() > deadline:
                raise LoginFailed(f"login to {site} as {user} failed: another node held the "
                                  f"login lock for {WAIT:g}s")
            if not said:
                said = True
                logger.info("%(site)s: another node is logging in; waiting for its session",
                            {"site": site})
            await sleep_for(POLL)
        keep = task.LoopingCall(store.extend, site, self.owner)
        keep.start(LOCK_TTL_MS / 3000, now=False)
        try:
            if message := store.failed(site):
                raise LoginFailed(message)
            if self.use_stored(site, stale):
                return
            try:
                session = await sign_in(self, site)
            except LoginFailed as exc:
                store.fail(site, str(exc))
                raise
            session["version"] = store.save(site, session)
            self.install(site, session, jar=False)  # this node's jar has them already
            logger.info("%(site)s: logged in as %(user)s", {"site": site, "user": user})
        finally:
            if keep.running:  # (not if extending failed: Redis down, the release says so)
                keep.stop()
            store.release(site, self.owner)

    def install(self, site: str, session: dict[str, Any], jar: bool = True) -> None:
        if jar:
            cookie_jar = self.jar()
            for data in session["cookies"]:
                cookie_jar.set_cookie(cookiesfile.from_dict(data))
        self.versions[site] = int(session.get("version") or 0)
        if session.get("ua"):
            self.agents[site] = session["ua"]
        if session.get("engine") and site not in self.forms:
            form = form_of_engine(session["engine"])
            if form is not None:
                self.forms[site] = (session["engine"], form)
        Walls.of(self.crawler).with_session[site] = session.get("user") or "the session"

    # -- the login -------------------------------------------------------------------------
    async def fetch(self, request: Request) -> Response:
        request.meta.update(LOGIN_META)
        # the session's User-Agent (phpBB binds a session to it): a check of a session that
        # another node made, with another USER_AGENT, is sent as that node's pages are
        if agent := self.agents.get(self.site_of(request.url)):
            request.headers[b"User-Agent"] = agent
        # Discuz!'s anti-CC protection: its reload pages are passed as a browser passes them,
        # the session's requests 1 s apart; its question or proxy ban ends the login
        evasive, host = Evasive.of(self.crawler), urlsplit(request.url).netloc.lower()
        for _ in range(TRIES):
            if wait := evasive.due_in(host):
                await sleep_for(wait)
            evasive.sent(host)
            response = await self.crawler.engine.download_async(request)
            kind = kind_of(response)
            if kind is None:
                return response
            if why := evasive.seen(host, kind, response):
                raise LoginFailed(f"login to {host} failed: {why}")
            request = request.replace(dont_filter=True)
        raise LoginFailed(f"login to {host} failed: Discuz! anti-CC protection answered "
                          f"{request.url} with its reload page {TRIES} times")

    async def form_of(self, site: str) -> tuple[str, LoginForm]:
        if site in self.forms:
            return self.forms[site]
        start = self.start_urls[site]
        profile = getattr(self.crawler.spider, "profile_class", None)
        response = await self.fetch(Request(start, callback=NO_CALLBACK, dont_filter=True))
        if profile is None and hasattr(response, "css"):
            from crawler.profiles import REGISTRY

            profile = REGISTRY.detect(response)
        if profile is not None:
            form = profile.for_page(response).login if hasattr(response, "css") else profile.login
            if form is None:
                raise LoginFailed(f"login to {site} failed: the {profile.name} profile knows no "
                                  "login form (use a browser's cookies: CRAWLER_COOKIES_FILE)")
            found = (profile.name, form)
        elif is_wordpress(response):
            found = ("wordpress", WORDPRESS)
        else:
            raise LoginFailed(f"login to {site} failed: no engine with a known login form "
                              f"answers at {start} (use a browser's cookies: CRAWLER_COOKIES_FILE)")
        self.forms[site] = found
        return found

    # -- renewal and failure ---------------------------------------------------------------
    async def renew(self, site: str, used: int | None) -> bool:
        """A "log in first" page came with version *used* of *site*'s session: renew it once
        (under the locks); whether the request is worth fetching again."""
        lock = self.locks.setdefault(site, defer.DeferredLock())
        await maybe_deferred_to_future(lock.acquire())
        try:
            if site in self.stopped:
                return False
            if self.versions.get(site) != used:
                return True  # renewed on this node meanwhile
            stored = self.store.load(site)
            user = self.credentials[site].username
            if stored and stored["version"] != used and stored.get("user") == user:
                self.install(site, stored)  # another node renewed it
                return True
            when, version = self.checked.get(site, (0.0, None))
            if version == used and time.monotonic() - when < CHECKED:
                return False  # found logged in moments ago: the page is closed to this user
            _, form = await self.form_of(site)
            if await self.still_logged_in(site, form):
                self.checked[site] = (time.monotonic(), used)
                return False  # still logged in: the page is closed to this user
            if stored and stored.get("user") == self.credentials[site].username \
                    and self.restore(site, stored) and await self.still_logged_in(site, form):
                # a guest cookie (the answer to a request sent before the session was
                # installed, or while it was renewed) had replaced the session's: it is back
                logger.info("%(site)s: the session's cookies were replaced by a guest's; "
                            "restored", {"site": site})
                self.crawler.stats.inc_value("login/restored")
                return True
            made, when = self.renewed.get(site, (None, 0.0))
            if made == used and (age := time.monotonic() - when) < RENEW_GAP:
                self.stop_site(site, f"{site}: the session ended again {age:.0f} s after it "
                               "was renewed: no more logins; its pages that need one are not "
                               "read (the account may lack the rights, or the forum may end "
                               "its sessions at once)")
                return False
            self.crawler.stats.inc_value("login/renewed")
            logger.info("%(site)s: the session ended; logging in again", {"site": site})
            await self.login_once(site, stale=used)
            self.renewed[site] = (self.versions.get(site), time.monotonic())
            return True
        finally:
            lock.release()

    async def still_logged_in(self, site: str, form: LoginForm) -> bool:
        check = await self.fetch(Request(self.start_urls[site], callback=NO_CALLBACK,
                                         dont_filter=True))
        return form.is_logged_in(check)

    def restore(self, site: str, session: dict[str, Any]) -> bool:
        """Put the cookies of *session* back in the jar where the jar's differ; whether any
        did."""
        jar = self.jar()
        have = {(c.domain, c.path, c.name): c.value for c in jar}
        changed = False
        for data in session["cookies"]:
            cookie = cookiesfile.from_dict(data)
            if have.get((cookie.domain, cookie.path, cookie.name)) != cookie.value:
                jar.set_cookie(cookie)
                changed = True
        return changed

    def stop_site(self, site: str, message: str) -> None:
        """No more logins to *site*: its requests are not sent (one error line)."""
        self.stopped[site] = message
        self.crawler.stats.inc_value("login/stopped")
        logger.error(message)

    def fail(self, message: str) -> None:
        if self.failed is not None:
            return
        self.failed = message
        self.crawler.stats.set_value(LOGIN_FAILED_STAT, message)
        logger.error(message)
        engine = self.crawler.engine
        if engine is not None:
            deferred_from_coro(engine.close_spider_async(reason=LOGIN_FAILED_REASON))

