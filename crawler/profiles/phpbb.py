"""phpBB 3.x (prosilver and derivatives).

No JSON API. Guests without cookies get ``sid=`` on every link: it is dropped. Pagination is a
``start=`` offset; the thread list and thread pages have ``li.arrow.next a[rel=next]``. Dates
come from ``time@datetime`` (RFC 3339, 3.2+) before the display text (3.1 and older).
"""

from __future__ import annotations

import re

from crawler.attachments.links import ENGINE_PATTERNS
from crawler.login.forms import LoginForm
from crawler.profiles.html import HtmlForumProfile


class PhpBB(HtmlForumProfile):
    name = "phpbb"
    detect_order = 30
    languages = ("en",)

    markers = (
        "body#phpbb",
        "body.section-viewtopic, body.section-viewforum, body.section-index",
        'a[href*="phpbb.com"]',
    )
    min_markers = 2

    index_url = re.compile(r"/(?:index\.php)?(?:\?[^/]*)?$")
    board_url = re.compile(r"viewforum\.php\?(?=(?:.*&)?f=(?P<bid>\d+))")
    thread_url = re.compile(r"viewtopic\.php\?(?=(?:.*&)?t=(?P<tid>\d+))")
    drop_params = ("sid", "hilit", "view", "sd", "sk", "st")
    post_permalink = "viewtopic.php?p={post_id}#p{post_id}"
    post_offset_param = re.compile(r"[?&]start=(\d+)")

    soft_404_texts = (
        "The requested topic does not exist.",
        "The board requires you to be registered and logged in to view this forum.",
        "You are not authorised to read this forum.",
    )
    soft_404_selectors = ("form#login h2.login-title",)
    login = LoginForm(
        url="ucp.php?mode=login", form="//form[@id='login']", extra={"autologin": "on"},
        error=("form#login div.error", "div.error"), logged_in='a[href*="mode=logout"]',
        # its login page's form, or its information page (message_body.html)
        denial_at="//form[@id='login']//text() | //*[@id='message']//text()",
        denied=("The board requires you to be registered and logged in to view this forum.",
                "You are not authorised to read this forum.",
                "You are not authorised to read this topic."),
        token="form_token", delay=1.1,  # check_form_key(): not within the form's second
    )

    _board_link = "ul.forums a.forumtitle, ul.topiclist.forums a.subforum"
    _thread_row = "ul.topiclist.topics > li.row"
    _thread_row_link = "a.topictitle"
    _thread_row_author = "div.topic-poster a.username, div.topic-poster a.username-coloured"
    _thread_row_replies = "dd.posts::text"
    _thread_row_views = "dd.views::text"
    _thread_row_created = ("div.topic-poster time::attr(datetime)",)
    _thread_row_last_post = ("dd.lastpost time::attr(datetime)", "dd.lastpost span::text")
    _board_name = "h2.forum-title a::text"
    _next_page = "div.action-bar.bar-top li.arrow.next a::attr(href)"

    _thread_title = "h2.topic-title a::text"
    _breadcrumbs = "ul#nav-breadcrumbs span.crumb a[itemprop=item]"
    _post = "div.post[id^=p]"
    _post_id = "::attr(id)"
    _post_author = "dl.postprofile a.username, dl.postprofile a.username-coloured"
    _post_author_id = (
        "dl.postprofile a.username::attr(href),"
        " dl.postprofile a.username-coloured::attr(href)"
    )
    _author_id_regex = re.compile(r"[?&;]u=(\d+)")
    _post_time = ("p.author time::attr(datetime)", "p.author::text")
    _post_body = "div.postbody div.content"
    attachment_url = ENGINE_PATTERNS["phpbb"]
    _post_quote_ids = "blockquote cite a[data-post-id]::attr(data-post-id), blockquote::attr(cite)"
    _quote_id_regex = re.compile(r"(?:^|p=)(\d+)")
    _post_edited = "div.notice"
    text_strip = ("div.codebox > p",)
