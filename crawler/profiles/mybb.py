"""MyBB 1.8 (default theme and its "classic" postbit).

Display dates are in the forum's zone and may be relative: "Today"/"Yesterday" sit in a
``span[title="MM-DD-YYYY"]`` with the clock time after the span, so the date is rebuilt from
the title plus the time. Floors are shown (``#N``).
"""

from __future__ import annotations

import re
from typing import Any

from parsel import Selector
from scrapy.http import TextResponse

from crawler.attachments.links import ENGINE_PATTERNS, listed_size
from crawler.items import Attachment
from crawler.login.forms import LoginForm
from crawler.profiles._utils import join_text, regex_group, to_int
from crawler.profiles.html import HtmlForumProfile
from crawler.profiles.records import PostRecord, ThreadRef

#: The replies cell: its link opens "who posted" (misc.php?action=whoposted, or MyBB.whoPosted()).
_REPLIES_CELL = (
    "./td[a[contains(@href, 'action=whoposted') or contains(@onclick, 'whoPosted')"
    " or contains(@href, 'whoPosted')]]"
)
#: An image attachment's tooltip: ``Filename: x.png&#13;Size: 6.17 KB&#13;<date>``.
_IMAGE_TITLE = re.compile(r"^\s*[^:\r\n]+:\s*(?P<name>[^\r\n]+?)\s*[\r\n]")
_CLOCK = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AP]M)?", re.IGNORECASE)


class MyBB(HtmlForumProfile):
    name = "mybb"
    detect_order = 70
    languages = ("en",)
    date_order = "MDY"

    markers = (
        'a[href*="mybb.com"]',
        'script[src*="jscripts/general.js"]',
        "div#posts div.post[id^=post_]",
        "tr.inline_row",
    )
    min_markers = 2

    index_url = re.compile(r"/(?:index\.php)?$")
    board_url = re.compile(
        r"forumdisplay\.php\?(?=(?:.*&)?fid=(?P<bid>\d+))|/Forum-[^/?#]*?-?(?P<bid2>\d+)?$"
    )
    thread_url = re.compile(
        r"showthread\.php\?(?=(?:.*&)?tid=(?P<tid>\d+))|/thread-(?P<tid2>\d+)(?:-page-\d+)?\.html"
    )
    drop_params = ("sid", "action", "highlight", "mode", "datecut", "sortby", "order")
    post_permalink = "showthread.php?tid={thread_id}&pid={post_id}#pid{post_id}"

    soft_404_texts = (
        "The specified thread does not exist.",
        "The specified forum does not exist.",
        "You do not have permission to access this page.",
    )
    login = LoginForm(
        url="member.php?action=login", extra={"remember": "yes"},
        # the page's own form, not the header's quick-login popup (quick_username/_password)
        form="//form[.//input[@name='action'][@value='do_login']][.//input[@name='password']]",
        error=("div.error li", "div.error"), logged_in='a[href*="action=logout"]',
        # its error templates: the message is the text of the error table's cell
        denial_at="//table[contains(@class, 'tborder')]/tr/td[contains(@class, 'trow1')]/text()",
        denied=("You are either not logged in or do not have permission to view this page",
                "You do not have permission to access this page."),
        token="my_post_key",
    )

    _board_link = (
        "tbody[id^=cat_] strong a[href*='forumdisplay.php'],"
        " table.tborder tr td strong a[href*='Forum-']"
    )
    _thread_row = "tr.inline_row"
    _thread_row_link = "span[id^=tid_] a"
    _thread_row_author = "div.author a"
    # Replies and views are read in thread_ref: the default theme's rows have an icon column
    # before the subject, so cells are found from the "who posted" link, not by position.
    _thread_row_last_post = ("span.lastpost::alltext",)
    # The header's login popup is a td.thead too ("Login"): only the listing's own title.
    _board_name = "td.thead > div > strong::text"
    # Not the board's pager that the breadcrumb hides in a popup (div.pagination_breadcrumb).
    _next_page = "div.pagination:not(.pagination_breadcrumb) a.pagination_next::attr(href)"
    _author_id_regex = re.compile(r"uid=(\d+)")

    _thread_title = "td.thead > div > strong::text"
    _breadcrumbs = "div.navigation > a"
    _post = "div#posts > div.post[id^=post_]"
    _post_id = "::attr(id)"
    _post_author = "div.author_information span.largetext a"
    _post_author_id = "div.author_information span.largetext a::attr(href)"
    _post_floor = "div.post_head div.float_right strong a::text"
    _post_body = "div.post_body"
    attachment_url = ENGINE_PATTERNS["mybb"]
    _post_quote_ids = "blockquote.mycode_quote cite a.quick_jump::attr(href)"
    _quote_id_regex = re.compile(r"pid=(\d+)")
    _post_edited = "span.post_edit span.edited_post"
    text_strip = ("div.codeblock > div.title",)

    def post(self, sel: Selector, response: TextResponse, thread_id: str) -> PostRecord:
        record = super().post(sel, response, thread_id)
        record.created_raw = self._date(sel.css("div.post_head span.post_date"))
        return record

    def attachments(self, sel: Selector, response: TextResponse) -> list[Attachment]:
        found = super().attachments(sel, response)
        for image in sel.css("img.attachment[title]"):
            title = image.attrib["title"]
            aid = regex_group(self.attachment_url, image.attrib.get("src", ""), "aid")
            named = _IMAGE_TITLE.match(title)
            for attachment in found:
                if attachment.id == aid and named:
                    attachment.name = named.group("name")
                    attachment.size = listed_size(title)
        return found

    def thread_ref(self, row: Selector, response: TextResponse) -> ThreadRef:
        ref = super().thread_ref(row, response)
        replies = row.xpath(_REPLIES_CELL)
        ref.reply_count = to_int(join_text(replies))
        ref.view_count = to_int(join_text(replies.xpath("following-sibling::td[1]")))
        ref.last_post_raw = self._date(row.css("span.lastpost"))
        ref.url = self.canonicalize(ref.url)
        return ref

    @staticmethod
    def _date(container: Any) -> str | None:
        """``<span title="03-02-2024">Today</span>, 07:00 AM`` -> ``03-02-2024 07:00 AM``."""
        if not container:
            return None
        title = container.xpath("./span[@title]/@title").get()
        text = " ".join(container.xpath("./text() | ./span[@title]/text()").getall())
        text = re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip(" ,")
        clock = _CLOCK.search(text)
        if title:
            return f"{title} {clock.group(0)}" if clock else title
        stamp = re.search(r"\d{2}-\d{2}-\d{4},?\s*(?:" + _CLOCK.pattern + ")?", text, re.IGNORECASE)
        return stamp.group(0).strip(" ,") if stamp else text or None
