"""Simple Machines Forum 2.0 / 2.1.

URLs are ``index.php?board=2.0`` and ``index.php?topic=101.15`` where the number after the dot
is an offset (topics on boards, posts on topics); ``PHPSESSID`` rides on links when the guest
has no cookie and is dropped. Dates are display-only in the forum's zone ("Today at …").
``span.page_number`` "#N" is the reply number (the opening post is #0 and has none), so the
position is N + 1.
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

    from crawler.profiles.records import PostRecord, ThreadRef


class SMF(HtmlForumProfile):
    name = "smf"
    detect_order = 80
    languages = ("en",)

    markers = (
        'a[href*="simplemachines.org"]',
        "div#boardindex_table, div#messageindex, div#forumposts",
        "link[rel=contents]",
    )
    min_markers = 2

    index_url = re.compile(r"/(?:index\.php)?(?:\?(?!.*\b(?:board|topic|action)=).*)?$")
    board_url = re.compile(r"index\.php\?(?:.*[&;])?board=(?P<bid>\d+)(?:\.\d+)?")
    thread_url = re.compile(r"index\.php\?(?:.*[&;])?topic=(?P<tid>\d+)(?:\.(?:\d+|msg\d+))?")
    drop_params = ("PHPSESSID", "sort", "desc", "prev_next", "topicseen", "all")
    post_permalink = "index.php?msg={post_id}"
    post_offset_param = re.compile(r"topic=\d+\.(\d+)")

    soft_404_texts = ("appears to be either missing or off limits to you",)
    soft_404_selectors = ("div#fatal_error",)
    login = LoginForm(
        url="index.php?action=login", username="user", password="passwrd",
        form="//form[contains(@action, 'action=login2')]", extra={"cookieneverexp": "1"},
        error=("div.errorbox", "div.error", "p.error"), logged_in='a[href*="action=logout"]',
        # its login page's form (loadBoard() to a guest), or its fatal error
        denial_at="//form[@id='frmLogin']//text() | //*[@id='fatal_error']//text()",
        denied=("Only registered members are allowed to access this section.",
                "You are not allowed to access this section",
                # 2.1's loadBoard() to a guest on a board or topic closed to guests
                "The topic or board you are looking for appears to be either missing or off "
                "limits to you."),
    )

    _board_link = "div#boardindex_table a.subject[id^=b], div.children a[id^=b]"
    _thread_row = "div#topic_container > div.windowbg"
    _thread_row_link = "span[id^=msg_] a"
    _thread_row_author = "p.floatleft a"
    _thread_row_replies = "div.board_stats p::text"
    _thread_row_views = "div.board_stats p::text"
    _thread_row_last_post = ("div.lastpost p > a::alltext",)
    _board_name = "h2.display_title::text"
    _next_page = "div.pagesection div.pagelinks span.current_page + a.nav_page::attr(href)"
    _author_id_regex = re.compile(r"[;&?]u=(\d+)")

    _thread_title = "#top_subject::text"
    _breadcrumbs = "div.navigate_section li a"
    _post = "div#forumposts div.windowbg[id^=msg]"
    _post_id = "::attr(id)"
    _post_author = "div.poster h4 a"
    _post_author_id = "div.poster h4 a::attr(href)"
    _post_time = ("div.postinfo > a.smalltext::alltext",)
    _post_floor = "span.page_number::text"
    _post_body = "div.post > div.inner"
    attachment_url = ENGINE_PATTERNS["smf"]
    _post_quote_ids = "blockquote cite a::attr(href)"
    _quote_id_regex = re.compile(r"msg(\d+)")
    _post_edited = "span.modified span.lastedit"
    text_strip = ("div.codeheader",)

    def thread_ref(self, row: Selector, response: TextResponse) -> ThreadRef:
        ref = super().thread_ref(row, response)
        # One <p> holds "Replies: 6<br>Views: 1,234".
        stats = " ".join(row.css("div.board_stats p::text").getall())
        replies = re.search(r"(\d[\d,]*)", stats)
        views = re.search(r"Views:\s*(\d[\d,]*)", stats)
        ref.reply_count = int(replies.group(1).replace(",", "")) if replies else None
        ref.view_count = int(views.group(1).replace(",", "")) if views else None
        return ref

    def post(self, sel: Selector, response: TextResponse, thread_id: str) -> PostRecord:
        record = super().post(sel, response, thread_id)
        # span.page_number is SMF's reply counter: "#1" is the second post; the opening post is
        # #0 and shows no span (its position then comes from the page offset).
        if record.position is not None:
            record.position += 1
        return record

    def breadcrumbs(self, response: TextResponse) -> list[str]:
        # Curve2 prints the trail twice, above and below the posts: read the first one only.
        return self.crumb_names(response, response.css("div.navigate_section")[:1].css("li a"))

    def thread_page_one(self, url: str) -> str:
        return re.sub(r"(topic=\d+)\.\d+", r"\1.0", self.canonicalize(url))
