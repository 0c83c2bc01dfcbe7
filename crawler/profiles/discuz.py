"""Discuz! X (X2.5–X3.5), the dominant Chinese self-hosted BBS.

Dynamic URLs (``forum.php?mod=forumdisplay|viewthread``) and the rewritten ``forum-2-1.html`` /
``thread-101-2-1.html`` forms. Floors (``a#postnum{pid}``) are only rendered for browsers, not
for robots, so positions usually come from page order. Dates prefer ``span@title`` (the full
date) over the relative display text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from crawler.attachments.links import CREDITS, ENGINE_PATTERNS, discuz_id, find_attachments
from crawler.items import Attachment
from crawler.login.forms import LoginForm
from crawler.profiles.html import HtmlForumProfile

if TYPE_CHECKING:
    from parsel import Selector
    from scrapy.http import TextResponse


class Discuz(HtmlForumProfile):
    name = "discuz"
    detect_order = 20
    default_charset = "gb18030"
    timezone = "Asia/Shanghai"
    languages = ("zh", "en")
    date_order = "YMD"

    generator_prefixes = ("Discuz!",)
    markers = (
        "body#nv_forum",
        "div#postlist table.plhin",
        "tbody[id^=normalthread_]",
        'script[src*="static/js/common.js"]',
    )
    min_markers = 2

    index_url = re.compile(r"/(?:forum\.php|index\.php)?(?:\?(?!.*\bmod=)(?:gid=\d+)?)?$")
    board_url = re.compile(
        r"forum\.php\?(?=.*\bmod=forumdisplay)(?=.*\bfid=(?P<bid>\d+))|/forum-(?P<bid2>\d+)-\d+\.html"
    )
    thread_url = re.compile(
        r"forum\.php\?(?=.*\bmod=viewthread)(?=.*\btid=(?P<tid>\d+))|/thread-(?P<tid2>\d+)-\d+-\d+\.html"
    )
    drop_params = ("extra", "authorid", "ordertype", "_dsign", "formhash", "from", "mobile", "sid")
    post_permalink = "forum.php?mod=redirect&goto=findpost&ptid={thread_id}&pid={post_id}"

    soft_404_texts = (
        "抱歉，指定的主题不存在",
        "抱歉，您没有权限访问该版块",
        "抱歉，本帖要求阅读权限",
    )
    soft_404_selectors = ("div#messagetext.alert_error",)
    login = LoginForm(
        url="member.php?mod=logging&action=login",
        form="//form[.//input[@name='formhash']][.//input[@type='password']]",
        extra={"cookietime": "2592000", "questionid": "0"},
        # the answer to a login is a message page: alert_error (登录失败，您还可以尝试 4 次)
        # or alert_right, whose <p> holds only the scripts that redirect
        error=("div#messagetext.alert_error > p", "div.alert_error > p"),
        logged_in='a[href*="action=logout"]',
        # its message page (showmessage())
        denial_at="//*[@id='messagetext']//text()",
        denied=("您需要先登录才能继续本操作", "抱歉，您尚未登录", "抱歉，您没有权限访问该版块",
                "抱歉，本帖要求阅读权限"),
        token="formhash",
    )

    _board_link = "table.fl_tb h2 a, div#subforum table.fl_tb h2 a"
    _thread_row = "tbody[id^=normalthread_], tbody[id^=stickthread_]"
    _thread_row_link = "a.xst"
    _thread_row_author = "td.by:nth-of-type(2) cite a"
    _thread_row_replies = "td.num a::text"
    _thread_row_views = "td.num em::text"
    _thread_row_created = (
        "td.by:nth-of-type(2) em span::attr(title)",
        "td.by:nth-of-type(2) em span::text",
    )
    _thread_row_last_post = ("td.by:last-child em span::attr(title)", "td.by:last-child em a::text")
    _board_name = "div.bm_h h1 a::text"
    _next_page = "div.pg a.nxt::attr(href)"

    _thread_title = "span#thread_subject::text"
    _breadcrumbs = "div#pt div.z a:not(.nvhm)"
    _post = "div#postlist > div[id^=post_]"
    _post_id = "table.plhin::attr(id)"
    _post_author = "td.pls .authi a.xw1, td.plc .authi a.xi2"
    _post_author_id = "td.pls .authi a.xw1::attr(href), td.plc .authi a.xi2::attr(href)"
    _post_time = ("em[id^=authorposton] span::attr(title)", "em[id^=authorposton]::text")
    _post_floor = "a[id^=postnum] em::text"
    _post_body = "td.t_f[id^=postmessage_]"
    attachment_url = ENGINE_PATTERNS["discuz"]
    _post_quote_ids = "div.quote blockquote a[href*='goto=findpost']::attr(href)"
    _quote_id_regex = re.compile(r"\bpid=(\d+)")
    _post_edited = "i.pstatus"
    text_strip = (
        "i.pstatus", "div.blockcode em", "div.locked", "ignore_js_op", "div.attach_nopermission"
    )

    def attachments(self, sel: Selector, response: TextResponse) -> list[Attachment]:
        found = super().attachments(sel, response)
        # a priced attachment: guests and members who have not paid get the purchase link
        paid = find_attachments(sel, response.url, CREDITS)
        found += [a for a in paid if a.id not in {f.id for f in found}]
        return found + [a for a in self._images(sel, response) if a.id not in {f.id for f in found}]

    @staticmethod
    def _images(sel: Selector, response: TextResponse) -> list[Attachment]:
        """Image attachments shown in place: the file's own path (``data/attachment/forum/``);
        robots get them without the ``aid`` attribute, so the path stands for the id."""
        images = []
        for img in sel.xpath(".//img[contains(@src, '/attachment/forum/') or @zoomfile]"):
            path = img.attrib.get("zoomfile") or img.attrib.get("file") or img.attrib["src"]
            if "/attachment/forum/" not in path:
                continue
            aid = img.attrib.get("aid") or path.rsplit("/attachment/forum/", 1)[1]
            images.append(Attachment(id=aid, url=urljoin(response.url, path),
                                     name=img.attrib.get("alt") or img.attrib.get("title")))
        return images

    def attachment_id(self, raw: str) -> str | None:
        return discuz_id(raw)

    def thread_page_one(self, url: str) -> str:
        url = re.sub(r"&page=\d+", "", self.canonicalize(url))
        # Rewritten form: thread-{tid}-{page}-{board page}.html
        return re.sub(r"/thread-(\d+)-\d+-(\d+)\.html", r"/thread-\1-1-\2.html", url)
