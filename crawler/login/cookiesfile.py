"""A Netscape ``cookies.txt`` (:setting:`CRAWLER_COOKIES_FILE`): what curl ``-c``, wget
``--save-cookies`` and the browser extensions ("Get cookies.txt", "cookies.txt") write.

One cookie per line, seven tab-separated fields: domain, include-subdomains (TRUE/FALSE),
path, secure (TRUE/FALSE), expiry (Unix seconds; 0: a session cookie), name, value. Lines
starting with ``#`` are comments, except ``#HttpOnly_<domain>`` (curl, the extensions), which
is an HttpOnly cookie. :class:`http.cookiejar.MozillaCookieJar` (Python 3.11) reads those, but
refuses a file without the ``# Netscape HTTP Cookie File`` line (some extensions omit it) and
drops every session cookie written with expiry 0 (it takes 0 for 1970: expired) unless told
to ignore expiry altogether. So the file is read here; each cookie becomes an
:class:`http.cookiejar.Cookie` for Scrapy's cookie jar, as MozillaCookieJar makes it: with the
subdomains flag FALSE it goes to its host alone (:func:`host_only`), with TRUE to the domain
and its subdomains.
"""

from __future__ import annotations

import logging
import time
from http.cookiejar import Cookie, DefaultCookiePolicy
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HTTPONLY = "#HttpOnly_"

logger = logging.getLogger(__name__)


class CookiesFileError(ValueError):
    """A cookies file that cannot be read, in one line (no cookie value in it)."""


def load(path: str | Path, now: float | None = None) -> list[Cookie]:
    """The unexpired cookies of the Netscape cookies file at *path*."""
    now = time.time() if now is None else now
    try:
        text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise CookiesFileError(f"CRAWLER_COOKIES_FILE ({str(path)!r}) cannot be read: "
                               f"{exc.strerror or exc}") from None
    cookies = []
    for number, line in enumerate(text.splitlines(), 1):
        httponly = line.startswith(HTTPONLY)
        if httponly:
            line = line[len(HTTPONLY):]
        elif not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) == 6:  # an empty value, written without its tab by some tools
            fields.append("")
        if len(fields) < 7:
            raise CookiesFileError(
                f"CRAWLER_COOKIES_FILE ({str(path)!r}), line {number}: not a Netscape cookies.txt "
                "line (7 fields separated by tabs: domain, subdomains, path, secure, expiry, "
                "name, value)")
        domain, subdomains, cookie_path, secure, expiry, name = (f.strip() for f in fields[:6])
        value = "\t".join(fields[6:])
        try:
            expires = int(float(expiry or 0))
        except ValueError:
            raise CookiesFileError(f"CRAWLER_COOKIES_FILE ({str(path)!r}), line {number}: the "
                                   f"expiry ({expiry!r}) is not a number") from None
        if expires and expires < now:
            continue  # expired
        cookies.append(make_cookie(domain, name, value, path=cookie_path or "/",
                                   subdomains=subdomains.upper() == "TRUE",
                                   secure=secure.upper() == "TRUE", expires=expires or None,
                                   httponly=httponly))
    return cookies


def make_cookie(domain: str, name: str, value: str, *, path: str = "/", subdomains: bool = False,
                secure: bool = False, expires: int | None = None, httponly: bool = False) -> Cookie:
    """A cookie of *domain*, sent to its subdomains only when *subdomains* (the file's flag,
    as :class:`http.cookiejar.MozillaCookieJar` reads it: ``domain_specified``)."""
    domain = domain.lower().lstrip(".")
    if subdomains:
        domain = "." + domain
    return Cookie(
        version=0, name=name, value=value, port=None, port_specified=False, domain=domain,
        domain_specified=subdomains, domain_initial_dot=subdomains,
        path=path, path_specified=True, secure=secure, expires=expires,
        discard=expires is None, comment=None, comment_url=None,
        rest={"HttpOnly": ""} if httponly else {}, rfc2109=False)


def matches(cookie: Cookie, host: str) -> bool:
    """Whether *cookie* goes to *host* (a host name, no port)."""
    host, domain = host.lower(), cookie.domain.lower()
    if domain.startswith("."):
        return host == domain[1:] or host.endswith(domain)
    return host == domain


def to_dict(cookie: Cookie) -> dict:
    """A cookie as plain values (a session kept in Redis)."""
    return {"name": cookie.name, "value": cookie.value, "domain": cookie.domain,
            "path": cookie.path, "secure": cookie.secure, "expires": cookie.expires,
            "httponly": cookie.has_nonstandard_attr("HttpOnly")}


def from_dict(data: dict) -> Cookie:
    return make_cookie(data["domain"], data["name"], data["value"], path=data.get("path") or "/",
                       subdomains=str(data["domain"]).startswith("."),
                       secure=bool(data.get("secure")), expires=data.get("expires"),
                       httponly=bool(data.get("httponly")))


def host_only(jar: Any) -> None:
    """*jar* (Scrapy's) sends a host-only cookie to its host alone, not to its subdomains
    (the standard library's default policy sends a version 0 cookie to both)."""
    jar.policy.strict_ns_domain |= DefaultCookiePolicy.DomainStrictNonDomain


def use(path: str, sites: list[str], jar: Any, user_agent: str) -> set[str]:
    """Put the cookies of the file at *path* into *jar* (Scrapy's); the *sites* they cover,
    each said in the log."""
    cookies = load(path)
    host_only(jar)
    for cookie in cookies:
        jar.set_cookie(cookie)
    covered = set()
    for site in sites:
        mine = [c for c in cookies if matches(c, urlsplit(f"//{site}").hostname or site)]
        if not mine:
            continue
        covered.add(site)
        logger.info("%(site)s: %(n)d cookies from %(path)s", {"site": site, "n": len(mine),
                                                              "path": path})
        if any(c.name == "cf_clearance" for c in mine) and user_agent.startswith("forum-crawler/"):
            logger.warning("%(site)s: cf_clearance is bound to the browser's User-Agent (and "
                           "IP): set USER_AGENT to that browser's, or the cookie is refused",
                           {"site": site})
    if not covered:
        logger.warning("CRAWLER_COOKIES_FILE %(path)s has no cookie for the sites of this "
                       "crawl (%(sites)s)", {"path": path, "sites": ", ".join(sites)})
    return covered
