"""vBulletin 3.8 / 4.2 (the legacy boards most sites still run).

Session ids ride in ``s=`` on every link for guests: dropped. Dates are display-only, in the
forum's zone and often relative ("Today, 10:33 PM"), so they are resolved against the fetch
time (the server's Date header) in the site timezone; set ``CRAWLER_SITE_TIMEZONES`` for each
site. Dates are month-first by default (``02-28-2013``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from crawler.profiles.base import ForumProfile, PageCursor, ThreadRef

if TYPE_CHECKING:
    from scrapy.http import TextResponse


class VBulletin(ForumProfile):
    name = "vbulletin"
    languages = ("en",)
    date_order = "MDY"

    generator_prefixes = ("vBulletin 3", "vBulletin 4")
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

    _board_link = "h2.forumtitle a, ol.subforumlist a"
    _thread_row = "ol#threads > li.threadbit, ol#stickies > li.threadbit"
    _thread_row_link = "h3.threadtitle a.title"
    _thread_row_author = "div.author a.username"
    _thread_row_replies = "ul.threadstats li:nth-child(1) a::text"
    _thread_row_views = "ul.threadstats li:nth-child(2)::text"
    _thread_row_last_post = ("dl.threadlastpost dd:last-child::alltext",)
    _board_name = "#pagetitle span.forumtitle::text"
    _next_page = "div#above_threadlist a[rel=next]::attr(href), div#above_postlist a[rel=next]::attr(href)"

    _thread_title = "#pagetitle span.threadtitle a::text"
    _breadcrumbs = "div#breadcrumb li.navbit a"
    _post = "ol#posts > li.postcontainer[id^=post_]"
    _post_id = "::attr(id)"
    _post_author = "div.username_container a.username"
    _post_author_id = "div.username_container a.username::attr(href)"
    _post_time = ("span.postdate span.date::alltext",)
    _post_floor = "a.postcounter::text"
    _post_body = "div[id^=post_message_] > blockquote.postcontent"
    _post_quote_ids = "div.quote_container div.bbcode_postedby a[href*='p=']::attr(href)"
    _quote_id_regex = re.compile(r"[?&;]p=(\d+)")
    _post_edited = "blockquote.lastedited"
    text_strip = ("div.bbcode_description",)


class VBulletin5(ForumProfile):
    """vBulletin 5 "Connect" (and 6): a different product from 3/4, sharing only the name.

    URLs are channel paths: ``/forum/{channel}[/{sub}]`` and ``/forum/{channel}/{nodeid}-{slug}``,
    with ``/pageN`` appended for later pages. The node id of the page (channel or topic) is in
    ``input[name=nodeid]``. Post markup carries schema.org microdata (``itemprop`` author, text,
    dateCreated); its details below are modelled, not verified on a live board.
    """

    name = "vbulletin5"
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
    _thread_row_author = "span.byline a"
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
    _post_author = "div.b-userinfo [itemprop=name]"
    _post_author_id = "div.b-userinfo a[data-vbnamecard]::attr(href)"
    _post_time = ("div.b-post__timestamp time::attr(datetime)", "div.b-post__timestamp time::text")
    _post_floor = "div.b-post__count a::text"
    _post_body = "div.js-post__content-text"
    _post_quote_ids = "div.bbcode_postedby a[data-postid]::attr(data-postid)"
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
