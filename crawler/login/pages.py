"""Pages that are not content: a login page, a "not authorised / must be registered" page, a
bot wall or challenge page.

Such a page is never read as a thread, a post or a listing: the spider hands it to
:func:`not_content`, which settles its URL with an outcome of its own
(``filtered/login_required``, ``failed/challenge``) and counts it per site. At the close each
site that had such pages says so once, in one warning with the count of URLs it could not
read, and what to give the crawl (credentials or a browser's cookies).

Detection is generic, not per site:

* a challenge: the markers of the common bot walls (Cloudflare, DDoS-Guard, Sucuri, ...) in
  its scripts and forms, or its title;
* "log in first": the engine's own denial texts (its profile's ``login.denied``) in the
  engine's message template (``login.denial_at``), or in an error answer;
* a login page: a form with a password input on a page from which the profile read nothing
  (forum pages of guests often carry a quick-login box: those are still read).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy import signals

from crawler.login import CHALLENGE, LOGIN_REQUIRED
from crawler.login.forms import PASSWORD_FORM

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from crawler.login.forms import LoginForm

logger = logging.getLogger(__name__)

#: Bot walls and challenges, by their markup: in a script, a script's or an iframe's
#: source, a form's id or action (a post that quotes the words has them in its text)
_CHALLENGE = re.compile(
    r"cf-browser-verification|cf_chl_opt|/cdn-cgi/challenge-platform/|cf-challenge-running"
    r"|ddos-guard\.net/check|__ddg1_|^challenge-form$|_Incapsula_Resource", re.IGNORECASE)
_MARKUP = ("//script/text() | //script/@src | //iframe/@src | //form/@id | //form/@action"
           " | //*[@id='challenge-running' or @id='challenge-form']/@id")
#: ... or by the whole title of the wall's page; a title that only starts so (a thread's) is
#: a wall only in an error answer (the walls answer 403, 429 or 503)
_TITLE = re.compile(r"Just a moment\.\.\.|Attention Required! \| Cloudflare|DDoS-Guard",
                    re.IGNORECASE)
_TITLE_START = re.compile(r"Sucuri WebSite Firewall|Checking your browser", re.IGNORECASE)
_HEAD = 20_000


#: A word of every marker above, lowercase: a page with none of them (nearly every page) is
#: told apart by substring tests on its raw bytes, without parsing it (0.7 ms a page).
_CHALLENGE_WORDS = (b"challenge", b"cf-browser-verification", b"cf_chl_opt", b"ddos-guard",
                    b"__ddg1_", b"_incapsula_resource")
_TITLE_WORDS = (b"just a moment", b"attention required", b"sucuri website firewall",
                b"checking your browser")


def is_challenge(response: Response) -> bool:
    """A bot wall or challenge page (any status: Cloudflare answers 403 or 503), by its
    structure: its scripts and forms, or its title; never by a post's words."""
    if not hasattr(response, "xpath"):
        return False
    head = response.body[:_HEAD].lower()
    start = head.find(b"<title")
    title = head[start:head.find(b"</title", start)] if start >= 0 else b""
    if not (any(w in head for w in _CHALLENGE_WORDS) or any(w in title for w in _TITLE_WORDS)):
        return False
    try:
        markup = response.xpath(_MARKUP).getall()
        title_text = " ".join(response.xpath("//title//text()").getall()).strip()
    except ValueError:  # not HTML
        return False
    if any(_CHALLENGE.search(value) for value in markup):
        return True
    if _TITLE.fullmatch(title_text):
        return True
    return response.status >= 400 and bool(_TITLE_START.match(title_text))


def has_login_form(response: Response) -> bool:
    """A form with a password input (a login page, or a quick-login box)."""
    if not hasattr(response, "xpath"):
        return False
    try:
        return bool(response.xpath(PASSWORD_FORM))
    except ValueError:  # a JSON body (Discourse's API answers 403 in JSON): no form
        return False


#: A login page's URL as the engines name it (NodeBB ``/login``, phpBB ``ucp.php?mode=login``,
#: MyBB ``member.php?action=login``, Discuz! ``mod=logging``, XenForo ``login/``)
_LOGIN_URL = re.compile(r"/log_?in\b|/sign_?in\b|[?&](?:mode|action|do)=log_?in\b|mod=logging"
                        r"|[?/]login/", re.IGNORECASE)


def redirected_to_login(request: Request, response: Response) -> bool:
    """*request* was redirected to a login page (NodeBB sends a guest from a closed topic to
    ``/login``): by its URL and its password form, as a quick-login box alone says nothing."""
    return bool(request.meta.get("redirect_urls")) and bool(_LOGIN_URL.search(response.url)) \
        and has_login_form(response)


def wall_of(response: Response, form: LoginForm | None) -> str | None:
    """The outcome of *response* if it is a bot wall or one of the engine's "log in first"
    pages (by markers only: nothing is extracted), else ``None``."""
    if is_challenge(response):
        return CHALLENGE
    if form is not None and form.denies(response):
        return LOGIN_REQUIRED
    return None


def empty_login_page(response: Response, read: Any) -> str | None:
    """:data:`LOGIN_REQUIRED` for a page with a password form from which nothing was read
    (*read*: a :class:`~crawler.profiles.records.PageResult`), else ``None``."""
    if read.thread is None and not read.posts and not read.follow and has_login_form(response):
        return LOGIN_REQUIRED
    return None


def not_content(crawler: Crawler, response: Response, site: str, outcome: str,
                request: Request | None = None) -> None:
    """*response* is not content: settle its URL with *outcome*, count it for *site*."""
    request = request if request is not None else response.request
    if request is not None:
        request.meta["not_content"] = outcome  # for whatever archives or caches pages
    crawler.stats.inc_value(f"login/pages/{outcome.split('/', 1)[1]}")
    Walls.of(crawler).count(site, outcome, response.url)
    if request is not None:
        not_fetched(crawler, request, outcome)
    logger.debug("Not content at %(url)s (%(outcome)s)", {"url": response.url, "outcome": outcome})


def not_fetched(crawler: Crawler, request: Request, outcome: str) -> None:
    """Settle *request*'s URL with *outcome* (a page that is not read, or not fetched)."""
    from crawler.node.api import node_of

    if (node := node_of(crawler)) is not None:
        node.settle(request, outcome)


class Walls:
    """Per crawl: the pages of each site that were not content, said once at the close."""

    _of: WeakKeyDictionary[Crawler, Walls] = WeakKeyDictionary()

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.counts: Counter[tuple[str, str]] = Counter()
        #: sites with a session (credentials or cookies): their walls say "not authorised"
        self.with_session: dict[str, str] = {}
        crawler.signals.connect(self.report, signal=signals.spider_closed)

    @classmethod
    def of(cls, crawler: Crawler) -> Walls:
        walls = cls._of.get(crawler)
        if walls is None:
            walls = cls._of[crawler] = cls(crawler)
        return walls

    def count(self, site: str, outcome: str, url: str) -> None:
        self.counts[site, outcome] += 1

    def report(self, spider: Any = None, reason: str | None = None) -> None:
        for (site, outcome), n in sorted(self.counts.items()):
            if outcome == CHALLENGE:
                logger.warning(
                    "%(site)s: %(n)d URLs answered with a bot wall or challenge page, not read "
                    "(outcomes/%(outcome)s); a browser's cookies.txt (CRAWLER_COOKIES_FILE) "
                    "with that browser's USER_AGENT may pass it",
                    {"site": site, "n": n, "outcome": outcome})
            elif who := self.with_session.get(site):
                logger.warning(
                    "%(site)s: %(n)d URLs stayed closed to %(who)s (login page or not "
                    "authorised), not read (outcomes/%(outcome)s)",
                    {"site": site, "n": n, "who": who, "outcome": outcome})
            else:
                logger.warning(
                    "%(site)s: %(n)d URLs need a login (members-only: a login page or \"not "
                    "authorised\"), not read (outcomes/%(outcome)s); give credentials "
                    "(CRAWLER_LOGIN, or -a username=... -a password=...) or a browser's "
                    "cookies (CRAWLER_COOKIES_FILE)",
                    {"site": site, "n": n, "outcome": outcome})
