"""vBulletin 3.8 / 4.2 (the legacy boards most sites still run): one engine, two markups.

Both share the URLs (``forumdisplay.php?f=``, ``showthread.php?t=``), the ``s=`` session id on
every guest link (dropped), the error texts and the dates. The 4.x list-based templates are
:class:`VBulletin`; the 3.x table-based ones are its nested version :class:`VBulletin3`, which
overrides only the fingerprints and selectors. Each page is read by the version whose
fingerprints it shows (generator meta ``vBulletin 3.8.x``, else vB3-only markup), so
``scrapy crawl vbulletin`` and ``scrapy crawl forum`` handle both; items say ``vbulletin``.

Dates are display-only, in the forum's zone and often relative ("Today, 10:33 PM"), so they are
resolved against the fetch time (the server's Date header) in the site timezone; set
``CRAWLER_SITE_TIMEZONES`` for each site. Dates are month-first by default (``02-28-2013``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from crawler.attachments.links import ENGINE_PATTERNS
from crawler.login.forms import LoginForm
from crawler.profiles.html import HtmlForumProfile

if TYPE_CHECKING:
    from parsel import Selector
    from scrapy.http import TextResponse

    from crawler.profiles.base import PageCursor
    from crawler.profiles.records import ThreadRef


class VBulletin(HtmlForumProfile):
    """vBulletin 4.x; 3.x pages are read by :class:`VBulletin3` (see :attr:`versions`)."""

    name = "vbulletin"
    detect_order = 50
    languages = ("en",)
    date_order = "MDY"

    generator_prefixes = ("vBulletin 4",)
    markers = ("html#vbulletin_html", "ol#posts li.postbitlegacy", "ol#threads li.threadbit")

    index_url = re.compile(r"/(?:forum\.php|index\.php)?(?:\?[^=]*)?$")
    board_url = re.compile(r"forumdisplay\.php\?(?:(?=(?:.*&)?f=(?P<bid>\d+))|(?P<bid2>\d+)-)")
    thread_url = re.compile(r"showthread\.php\?(?:(?=(?:.*&)?t=(?P<tid>\d+))|(?P<tid2>\d+)-)")
    drop_params = ("s", "highlight", "goto", "daysprune", "order", "sort")
    post_permalink = "showthread.php?p={post_id}#post{post_id}"

    soft_404_texts = (
        "You are not logged in or you do not have permission to access this page.",
        "No Thread specified.",
        "Invalid Thread specified.",
    )

    # 3.x and 4.x alike, from the 3.8.11 and 4.2.2 master styles (navbar / header, STANDARD_ERROR,
    # STANDARD_REDIRECT) and login.php / functions_login.php, not a live install. There is no
    # login page: a GET of login.php?do=login redirects to the forum home, whose header holds the
    # guests' form (as does the no-permission page). The form's script puts an MD5 of the
    # password in vb_login_md5password and empties vb_login_password; verify_authentication()
    # takes the plain password when the MD5 fields are empty, as they are sent here. login.php
    # skips the CSRF check (CSRF_SKIP_LIST); a guest's securitytoken is "guest". A wrong password
    # is a STANDARD_ERROR: 3.x its message in the panel's <div>, 4.x a div.blockrow (the success
    # redirect has a <blockquote> / p.blockrow).
    login = LoginForm(
        url="login.php?do=login", username="vb_login_username", password="vb_login_password",
        form="//form[.//input[@name='vb_login_username']][.//input[@name='vb_login_password']]",
        extra={"cookieuser": "1"},
        error=("td.panelsurround div.panel > div > div", "div.standard_error div.blockrow.restore"),
        logged_in='a[href*="do=logout"]',
        # print_no_permission(): the login form; the error page: 4's standard_error block,
        # 3's panel
        denial_at="//form[.//input[@type='password']]//text()"
                  " | //*[contains(@class, 'standard_error')]//text()"
                  " | //td[contains(@class, 'panelsurround')]//text()",
        denied=("You are not logged in or you do not have permission to access this page.",),
        token="securitytoken",
    )

    _board_link = "h2.forumtitle a, ol.subforumlist a"
    _thread_row = "ol#threads > li.threadbit, ol#stickies > li.threadbit"
    _thread_row_link = "h3.threadtitle a.title"
    _thread_row_author = "div.author a.username"
    _thread_row_replies = "ul.threadstats li:nth-child(1) a::text"
    _thread_row_views = "ul.threadstats li:nth-child(2)::text"
    _thread_row_last_post = ("dl.threadlastpost dd:last-child::alltext",)
    _board_name = "#pagetitle span.forumtitle::text"
    _next_page = (
        "div#above_threadlist a[rel=next]::attr(href),"
        " div#above_postlist a[rel=next]::attr(href)"
    )

    _thread_title = "#pagetitle span.threadtitle a::text"
    _breadcrumbs = "div#breadcrumb li.navbit a"
    _post = "ol#posts > li.postcontainer[id^=post_]"
    _post_id = "::attr(id)"
    _post_author = "div.username_container a.username"
    _post_author_id = "div.username_container a.username::attr(href)"
    _post_time = ("span.postdate span.date::alltext",)
    _post_floor = "a.postcounter::text"
    _post_body = "div[id^=post_message_] > blockquote.postcontent"
    attachment_url = ENGINE_PATTERNS["vbulletin"]
    _post_quote_ids = "div.quote_container div.bbcode_postedby a[href*='p=']::attr(href)"
    _quote_id_regex = re.compile(r"[?&;]p=(\d+)")
    _post_edited = "blockquote.lastedited"
    #: Used for every version: the text pipeline knows the engine by name only. vB4 code-block
    #: label; vB3 ``Quote:``/``Code:`` labels and the quote's table cell (no quote class in 3.x).
    text_strip = ("div.bbcode_description", "div.smallfont", "td.alt2")


class VBulletin3(VBulletin):
    """vBulletin 3.x (3.8 templates): a ``table#post{id}`` per post, ``td.thead`` dates,
    ``a.bigusername`` authors, ``tbody#threadbits_forum_{f}`` thread rows, ``div.pagenav``."""

    version = "3"
    versions = ()

    generator_prefixes = ("vBulletin 3",)
    # For boards that strip the generator meta: markup that vB4 does not have.
    markers = (
        "div#posts table[id^=post] a.bigusername",
        "tbody[id^=threadbits_forum_] a[id^=thread_title_]",
        "td.alt1Active[id^=f] a[href*='forumdisplay.php']",
    )

    _board_link = "td.alt1Active[id^=f] a[href*='forumdisplay.php']"
    _thread_row = "tbody[id^=threadbits_forum_] > tr"
    _thread_row_link = "a[id^=thread_title_]"
    # The starter is a <span onclick="window.open('member.php?u=…')">; the thread page has it.
    _thread_row_author = None
    _thread_row_replies = "a[href*='whoposted']::text"
    _thread_row_views = "td:last-child::text"
    _board_name = "td.navbar > strong::text"
    _next_page = (
        "div.pagenav a[rel=next]::attr(href), div.pagenav a[title^='Next Page']::attr(href)"
    )

    _thread_title = "td.navbar > strong::text"
    _breadcrumbs = "span.navbar a"
    _post = "div#posts table[id^=post]"
    _post_author = "a.bigusername"
    _post_author_id = "a.bigusername::attr(href)"
    _post_time = ("td.thead:first-child::alltext",)
    _post_floor = "a[id^=postcount]::attr(name)"
    _post_body = "div[id^=post_message_]"
    _post_quote_ids = "div[id^=post_message_] td.alt2 a[href*='p=']::attr(href)"
    _post_edited = "div[id^=post_message_] ~ div.smallfont > em"

    def thread_ref(self, row: Selector, response: TextResponse) -> ThreadRef:
        ref = super().thread_ref(row, response)
        # Last post cell: "02-28-2013 <span class="time">10:33 PM</span><br />by <a>name</a>".
        cell = row.xpath(".//a[contains(@href, 'goto=lastpost')]/ancestor::div[1]")[:1]
        texts = cell.xpath("./br[1]/preceding-sibling::node()/descendant-or-self::text()").getall()
        ref.last_post_raw = " ".join(" ".join(texts).split()) or None
        return ref


VBulletin.versions = (VBulletin3,)


class VBulletin5(HtmlForumProfile):
    """vBulletin 5 "Connect" (and 6): a different product from 3/4, sharing only the name.

    URLs are channel paths: ``/forum/{channel}[/{sub}]`` and ``/forum/{channel}/{nodeid}-{slug}``,
    with ``/pageN`` appended for later pages. The node id of the page (channel or topic) is in
    ``input[name=nodeid]``. Post markup carries schema.org microdata (``itemprop`` author, text,
    dateCreated). Selectors checked against the vBulletin 6.0.6 master style's templates
    (display_contenttype_threadview_header, conversation_userinfo, display_Topics_item,
    display_Forums_item, bbcode_quote, page_header, pagenavnew); no live board here.
    """

    name = "vbulletin5"
    detect_order = 60
    languages = ("en",)
    date_order = "MDY"

    generator_prefixes = ("vBulletin 5", "vBulletin 6")
    markers = (
        "a.crumb-link",
        "tr.topic-item[data-node-id]",
        "div.js-post__content-text",
        "tr.forum-item[id^=forum]",
    )
    min_markers = 2

    index_url = re.compile(r"^https?://[^/]+/(?:forum/?)?$")
    thread_url = re.compile(r"/forum/(?:[^/?#]+/)+(?P<tid>\d+)-[^/?#]*(?:/page\d+)?/?(?:[?#]|$)")
    board_url = re.compile(r"/forum/(?P<bslug>[^?#]+?)(?:/page\d+)?/?(?:[?#]|$)")
    drop_params = ("s", "securitytoken", "view")

    soft_404_texts = ("You do not have permission to view this page.", "Invalid Node specified.")

    _board_link = "tr.forum-item a.forum-title"
    _thread_row = "tr.topic-item[data-node-id]"
    _thread_row_link = "a.topic-title"
    # "Started by <a data-vbnamecard>" (vB 5.6+/6 phrase started_by_link_x_y); span.byline earlier.
    _thread_row_author = "span.byline a, td.cell-topic a[data-vbnamecard]"
    _thread_row_replies = "div.posts-count::text"
    _thread_row_views = "div.views-count::text"
    _thread_row_last_post = ("td.cell-lastpost time::attr(datetime)",)
    _board_name = "h1.main-title::text"
    _next_page = "a.right-arrow::attr(href)"
    _author_id_regex = re.compile(r"/member/(\d+)")

    _thread_title = "h2.b-post__title::text"
    _breadcrumbs = "ul#breadcrumbs a.crumb-link"
    _post = "li.b-post[data-node-id]"
    _post_id = "::attr(data-node-id)"
    # userlink: a[data-vbnamecard] > span[itemprop=name] (the itemprop only with schema.org on).
    _post_author = "div.b-userinfo [itemprop=name], div.b-userinfo div.author a[data-vbnamecard]"
    _post_author_id = "div.b-userinfo a[data-vbnamecard]::attr(href)"
    _post_time = ("div.b-post__timestamp time::attr(datetime)", "div.b-post__timestamp time::text")
    _post_floor = "a.b-post__count::text, div.b-post__count a::text"
    _post_body = "div.js-post__content-text"
    attachment_url = ENGINE_PATTERNS["vbulletin"]
    # bbcode_quote links the quoted post's page with innerPost: ...?p=456#post456.
    _post_quote_ids = "div.bbcode_postedby a::attr(href)"
    _quote_id_regex = re.compile(r"(?:#post|[?&]p=)(\d+)")
    _post_edited = "div.b-post__edit"
    text_strip = ("div.bbcode_description",)

    def board_id_from(self, url: str) -> str | None:
        return None  # channel URLs carry slugs; the id comes from the page (input[name=nodeid])

    def thread_refs(self, response: TextResponse, cursor: PageCursor) -> list[ThreadRef]:
        refs = super().thread_refs(response, cursor)
        node = response.css("input[name=nodeid]::attr(value)").get()
        for ref in refs:
            ref.board_id = ref.board_id or node
        return refs

    def thread_page_one(self, url: str) -> str:
        return re.sub(r"/page\d+/?$", "", self.canonicalize(url))

    def permalink(self, response: TextResponse, post_id: str, thread_id: str) -> str:
        return f"{self.thread_page_one(response.url)}#post{post_id}"
