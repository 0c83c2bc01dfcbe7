"""XenForo 2.x: ``html#XF`` with ``data-template``, ``data-content-key`` and friendly URLs.

Dates come from ``time.u-dt@datetime`` (ISO 8601 with ``+HHMM`` offset); the display text is
relative ("Yesterday at 3:10 PM"). View counts are abbreviated ("1.2K"), so they are approximate.
The REST API needs a key, so HTML it is.
"""

from __future__ import annotations

import re

from crawler.profiles.html import HtmlForumProfile


class XenForo(HtmlForumProfile):
    name = "xenforo"
    detect_order = 40
    languages = ("en",)

    markers = ("html#XF[data-xf]", 'a[data-nav-id="forums"]', 'a[rel~="sponsored"][href*="xenforo.com"]')
    min_markers = 2

    index_url = re.compile(r"/(?:forums/)?(?:index\.php)?$")
    board_url = re.compile(r"/forums/(?:[^/?#]*\.)?(?P<bid>\d+)/")
    thread_url = re.compile(r"/threads/(?:[^/?#]*\.)?(?P<tid>\d+)/")
    drop_params = ("prefix_id", "order", "direction", "last_days")
    post_permalink = "/posts/{post_id}/"

    soft_404_selectors = ('html#XF[data-template="error"]', 'html#XF[data-template="login"]')

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
    _post_quote_ids = "blockquote.bbCodeBlock--quote::attr(data-source)"
    _post_edited = "div.message-lastEdit"
    text_strip = (".bbCodeBlock--code > .bbCodeBlock-title", ".bbCodeBlock-expandLink")

    def thread_page_one(self, url: str) -> str:
        return re.sub(r"/page-\d+$", "/", self.canonicalize(url))
