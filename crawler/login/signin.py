"""The login itself: the engine's form fetched, filled and sent, to the forum's own origin
only (:func:`sign_in`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from scrapy import Request
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import task

from crawler.login import cookiesfile
from crawler.login.forms import origin_of
from crawler.node.traps import strip_session_ids

if TYPE_CHECKING:
    from crawler.login.logins import Logins


class LoginFailed(Exception):
    """A login that failed, in one line (no password)."""


async def sleep_for(seconds: float) -> None:
    from twisted.internet import reactor

    await maybe_deferred_to_future(task.deferLater(reactor, seconds, lambda: None))


async def sign_in(logins: Logins, site: str) -> dict[str, Any]:
    """Log in to *site* (its form filled and sent): the session, or LoginFailed."""
    credentials = logins.credentials[site]
    user = credentials.username
    failed = f"login to {site} as {user} failed"
    engine, form = await logins.form_of(site)
    start = logins.start_urls[site]
    url = urljoin(start, form.url)
    page = await logins.fetch(Request(url, callback=NO_CALLBACK, dont_filter=True))
    try:
        request = form.fill(page, user, credentials.password)
    except (ValueError, AttributeError):
        raise LoginFailed(f"{failed}: no login form at {url} (HTTP {page.status})") from None
    if asked := form.captcha_of(page):
        raise LoginFailed(f"{failed}: the login form asks a CAPTCHA or a question "
                          f"({asked}); log in with a browser and give its cookies "
                          "(CRAWLER_COOKIES_FILE)")
    if request.method != "POST":  # a GET form would put the password in a URL (and logs)
        raise LoginFailed(f"{failed}: the login form at {url} is not sent by POST")
    if origin_of(request.url) != origin_of(start):  # the password stays with the forum
        raise LoginFailed(f"{failed}: the login form at {url} is sent to "
                          f"{origin_of(request.url)}, not to {origin_of(start)}; not sent")
    if form.delay:
        await sleep_for(form.delay)
    logins.store.count_post(site)
    logins.crawler.stats.inc_value("login/posts")
    request.meta["dont_redirect"] = True  # a 307/308 would send the password on
    result = await logins.fetch(request)
    if 300 <= result.status < 400 and (location := result.headers.get(b"Location")):
        # phpBB puts the new session's id in it (?sid=): the cookie carries it, not the
        # URL, which Scrapy logs
        target = strip_session_ids(urljoin(result.url, location.decode("latin-1")))
        result = await logins.fetch(Request(target, callback=NO_CALLBACK, dont_filter=True))
    if message := form.error_of(result, credentials.password):
        raise LoginFailed(f"{failed}: {message}")
    if not form.is_logged_in(result):
        result = await logins.fetch(Request(start, callback=NO_CALLBACK, dont_filter=True))
        if not form.is_logged_in(result):
            message = form.error_of(result, credentials.password) or (
                "the forum did not log us in (no logout link after the login form was sent)")
            raise LoginFailed(f"{failed}: {message}")
    host = urlsplit(start).hostname or ""
    cookies = [cookiesfile.to_dict(c) for c in logins.jar() if cookiesfile.matches(c, host)]
    token = None
    if form.token and hasattr(result, "css"):
        token = result.css(f'input[name="{form.token}"]::attr(value)').get()
    agent = (result.request.headers.get(b"User-Agent") or b"").decode("latin-1") \
        if result.request is not None else ""
    return {"cookies": cookies, "ua": agent or logins.crawler.settings.get("USER_AGENT"),
            "engine": engine, "token": token, "user": user}
