"""XenForo 2.x: ``html#XF`` with ``data-template``, ``data-content-key`` and friendly URLs.

Dates come from ``time.u-dt@datetime`` (ISO 8601 with ``+HHMM`` offset); the display text is
relative ("Yesterday at 3:10 PM"). View counts are abbreviated ("1.2K"), so they are approximate.
The REST API needs a key, so HTML it is.
"""

from __future__ import annotations

import re

from crawler.attachments.links import ENGINE_PATTERNS
from crawler.login.forms import LoginForm
from crawler.profiles.html import HtmlForumProfile


class XenForo(HtmlForumProfile):
    name = "xenforo"
    detect_order = 40
    languages = ("en",)

    # html#XF carries data-template from 2.0 on; data-xf="2.x" only from 2.3.
    markers = (
        "html#XF[data-template]",
        'a[data-nav-id="forums"]',
        'a[rel~="sponsored"][href*="xenforo.com"]',
    )
    min_markers = 2

    index_url = re.compile(r"/(?:forums/)?(?:index\.php)?$")
    board_url = re.compile(r"/forums/(?:[^/?#]*\.)?(?P<bid>\d+)/")
    thread_url = re.compile(r"/threads/(?:[^/?#]*\.)?(?P<tid>\d+)/")
    drop_params = ("prefix_id", "order", "direction", "last_days")
    post_permalink = "/posts/{post_id}/"

    soft_404_selectors = ('html#XF[data-template="error"]', 'html#XF[data-template="login"]')

    # From XF 2.2.7's templates (login, error, PAGE_CONTAINER) and Pub\Controller\Login, not a
    # live install. index.php?login/ is the login route with or without friendly URLs, relative
    # to the board's root (a start URL that is itself a route, /forums/ or a thread, misses it).
    # The form posts login/password/remember with _xfToken and _xfRedirect; a wrong password
    # renders the same template with its blockMessage--error. A member's page has no logout link
    # (the visitor menu is loaded by script): html@data-logged-in says it. A guest on a closed
    # page gets the login template (HTTP 403) with login_required; a member, do_not_have_permission.
    login = LoginForm(
        url="index.php?login/", username="login", password="password",
        form="//form[contains(@action, 'login/login')]", extra={"remember": "1"},
        error=("div.blockMessage--error",),
        logged_in='html[data-logged-in="true"], div.p-navgroup--member',
        # its error and no-permission pages' message block
        denial_at="//*[contains(concat(' ', @class, ' '), ' blockMessage ')]//text()",
        denied=("You must be logged-in to do that.",
                "You do not have permission to view this page or perform this action."),
        token="_xfToken",
    )

    _board_link = "h3.node-title a, ol.node-subNodeFlatList a"
    _thread_row = "div.structItem--thread"
    _thread_row_link = "div.structItem-title a[data-tp-primary]"
    _thread_row_author = "ul.structItem-parts a.username"
    _thread_row_replies = "div.structItem-cell--meta dl:nth-of-type(1) dd::text"
    _thread_row_views = "div.structItem-cell--meta dl:nth-of-type(2) dd::text"
    _thread_row_created = ("li.structItem-startDate time::attr(datetime)",)
    _thread_row_last_post = ("time.structItem-latestDate::attr(datetime)",)
    _board_name = "h1.p-title-value::text"
    _next_page = "div.block-outer a.pageNav-jump--next::attr(href)"
    _author_id_regex = re.compile(r"(\d+)")

    _thread_title = "h1.p-title-value::text"
    _breadcrumbs = "ul.p-breadcrumbs a[itemprop=item]"
    _post = "article.message--post[data-content^=post-]"
    _post_id = "::attr(data-content)"
    _post_author = "h4.message-name a.username, h4.message-name span.username"
    _post_author_id = "h4.message-name a.username::attr(data-user-id)"
    _post_time = ("ul.message-attribution-main time.u-dt::attr(datetime)",)
    _post_floor = "ul.message-attribution-opposite li:last-child a::text"
    _post_body = "article.message-body div.bbWrapper"
    attachment_url = ENGINE_PATTERNS["xenforo"]
    # data-source="post: 123" on the blockquote (2.3); 2.2 has only the title's source link,
    # a.bbCodeBlock-sourceJump[data-content-selector="#post-123"].
    _post_quote_ids = (
        "blockquote.bbCodeBlock--quote::attr(data-source),"
        " blockquote.bbCodeBlock--quote a.bbCodeBlock-sourceJump::attr(data-content-selector)"
    )
    _post_edited = "div.message-lastEdit"
    text_strip = (".bbCodeBlock--code > .bbCodeBlock-title", ".bbCodeBlock-expandLink")

    def thread_page_one(self, url: str) -> str:
        return re.sub(r"/page-\d+$", "/", self.canonicalize(url))
