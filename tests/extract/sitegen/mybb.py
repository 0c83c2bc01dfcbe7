"""MyBB 1.8 fixture site (default theme).

Quirks reproduced: template ``<!-- start: … -->`` comments, relative "Today"/"Yesterday" inside
``span[title="MM-DD-YYYY"]`` with the time outside the span, ``#N`` floors, ``mycode_quote``
quotes with ``a.quick_jump`` to the quoted post, code with ``&nbsp;`` indentation, and
"The specified thread does not exist." error pages with HTTP 200.
"""

from __future__ import annotations

from datetime import datetime

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import NOW, SITE_NAME, FBoard, FPost, FThread, build


def my_date(at: datetime) -> str:
    days = (NOW.date() - at.date()).days
    clock = f"{at.hour % 12 or 12:02d}:{at:%M} {'AM' if at.hour < 12 else 'PM'}"
    if days in (0, 1):
        return f'<span title="{at:%m-%d-%Y}">{"Today" if days == 0 else "Yesterday"}</span>, {clock}'
    return f"{at:%m-%d-%Y}, {clock}"


def board_href(b: FBoard, page: int = 1) -> str:
    return f"forumdisplay.php?fid={b.id}" + (f"&amp;page={page}" if page > 1 else "")


def thread_href(t: FThread, page: int = 1) -> str:
    return f"showthread.php?tid={t.id}" + (f"&amp;page={page}" if page > 1 else "")


def head(title: str) -> str:
    return f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><!-- start: index -->
<html xml:lang="en" lang="en" xmlns="http://www.w3.org/1999/xhtml">
<head>
<title>{e(title)}</title>
<!-- start: headerinclude -->
<link rel="alternate" type="application/rss+xml" title="Latest Threads (RSS 2.0)" href="http://fixture.invalid/syndication.php" />
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<script type="text/javascript" src="http://fixture.invalid/jscripts/jquery.js?ver=1823"></script>
<script type="text/javascript" src="http://fixture.invalid/jscripts/general.js?ver=1827"></script>
<link type="text/css" rel="stylesheet" href="http://fixture.invalid/cache/themes/theme1/global.css?t=1709000000" />
<script type="text/javascript">
<!--
	lang.unknown_error = "An unknown error has occurred.";
	var cookieDomain = "";
	var my_post_key = "0a1b2c3d4e5f";
	var rootpath = "http://fixture.invalid";
// -->
</script>
<!-- end: headerinclude -->
</head>
<body>
<div id="container"><a name="top" id="top"></a>
<div id="header"><div id="logo"><div class="wrapper"><a href="http://fixture.invalid/index.php"><img src="http://fixture.invalid/images/logo.png" alt="{SITE_NAME}" title="{SITE_NAME}" /></a></div></div></div>
<div id="content"><div class="wrapper">
"""


def nav(*links: tuple[str, str]) -> str:
    parts = "".join(f'<span class="nav-spacer">&rsaquo;</span>\n<a href="{h}">{e(n)}</a>' for h, n in links)
    return f'<div class="navigation"><a href="http://fixture.invalid/index.php">{SITE_NAME}</a>{parts}</div>\n<br />\n'


FOOT = """</div></div>
<div id="footer"><div class="lower"><div class="wrapper"><span id="copyright">
<!-- MyBB is free software developed and maintained by a volunteer community. -->
Powered By <a href="https://mybb.com" target="_blank" rel="noopener">MyBB</a>, &copy; 2002-2024 <a href="https://mybb.com" target="_blank" rel="noopener">MyBB Group</a>.
</span></div></div></div>
</div>
<!-- end: index -->
</body>
</html>
"""


def pagination(hrefs: list[str], current: int) -> str:
    if len(hrefs) < 2:
        return ""
    parts = [f'<span class="pages">Pages ({len(hrefs)}):</span>']
    for n, h in enumerate(hrefs, 1):
        parts.append(
            f'<span class="pagination_current">{n}</span>'
            if n == current
            else f'<a href="{h}" class="pagination_page">{n}</a>'
        )
    if current < len(hrefs):
        parts.append(f'<a href="{hrefs[current]}" class="pagination_next">Next &raquo;</a>')
    return f'<!-- start: multipage --><div class="pagination">{" ".join(parts)}</div><!-- end: multipage -->'


def index(boards: list[FBoard]) -> str:
    rows = "".join(
        f"""<tr><td class="trow1" align="center" valign="top" width="1"><span class="forum_status forum_on" title="New Posts" id="mark_read_{b.id}"></span></td>
<td class="trow1" valign="top"><strong><a href="{board_href(b)}">{e(b.name)}</a></strong><div class="smalltext">{e(b.description)}</div></td>
<td class="trow1" valign="top" align="center" style="white-space: nowrap">{len(b.threads)}</td></tr>
"""
        for b in boards
    )
    return (
        head(SITE_NAME)
        + nav()
        + f"""<table border="0" cellspacing="0" cellpadding="5" class="tborder">
<thead><tr><td class="thead" colspan="5"><div class="expcolimage"><img src="images/collapse.png" id="cat_1_img" class="expander" alt="[-]" title="[-]" /></div><div><strong><a href="forumdisplay.php?fid=1">My Category</a></strong><br /><div class="smalltext"></div></div></td></tr></thead>
<tbody style="" id="cat_1_e">
{rows}</tbody></table>
"""
        + FOOT
    )


def thread_row(t: FThread, n: int) -> str:
    first, last = t.posts[0], t.posts[-1]
    pages = ""
    if len(t.pages()) > 1:
        pages = (
            ' <span class="smalltext">(Pages: '
            + " ".join(f'<a href="{thread_href(t, p)}">{p}</a>' for p in range(1, len(t.pages()) + 1))
            + ")</span>"
        )
    cls = f"trow{1 + n % 2}"
    return f"""<tr class="inline_row">
<td align="center" class="{cls} forumdisplay_regular" width="2%"><span class="thread_status newfolder" title="New posts.">&nbsp;</span></td>
<td class="{cls} forumdisplay_regular"><div><span> <span class=" subject_new" id="tid_{t.id}"><a href="{thread_href(t)}">{e(t.title)}</a></span>{pages}</span>
<div class="author smalltext"><a href="http://fixture.invalid/member.php?action=profile&amp;uid={first.author.id}">{e(first.author.name)}</a></div></div></td>
<td align="center" class="{cls} forumdisplay_regular"><a href="javascript:MyBB.whoPosted({t.id});">{t.replies}</a></td>
<td align="center" class="{cls} forumdisplay_regular">{t.views:,}</td>
<td class="{cls} forumdisplay_regular" style="white-space: nowrap; text-align: right;"><span class="lastpost smalltext">{my_date(last.at)}<br />
<a href="{thread_href(t)}&amp;action=lastpost">Last Post</a>: <a href="http://fixture.invalid/member.php?action=profile&amp;uid={last.author.id}">{e(last.author.name)}</a></span></td>
</tr>
"""


def board_page(b: FBoard, page: int) -> str:
    hrefs = [board_href(b, n) for n in range(1, len(b.pages()) + 1)]
    rows = "".join(thread_row(t, n) for n, t in enumerate(b.pages()[page - 1]))
    return (
        head(b.name)
        + nav((board_href(b), b.name))
        + f"""{pagination(hrefs, page)}
<table border="0" cellspacing="0" cellpadding="5" class="tborder clear">
<tr><td class="thead" colspan="7"><div><strong>{e(b.name)}</strong></div></td></tr>
<tr><td class="tcat" colspan="2" width="66%"><span class="smalltext"><strong>Thread</strong></span></td><td class="tcat" align="center" width="7%"><span class="smalltext"><strong>Replies</strong></span></td><td class="tcat" align="center" width="7%"><span class="smalltext"><strong>Views</strong></span></td><td class="tcat" align="right" width="20%"><span class="smalltext"><strong>Last Post</strong></span></td></tr>
{rows}</table>
{pagination(hrefs, page)}
"""
        + FOOT
    )


def body(post: FPost, thread: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in thread.posts if p.id == post.quote_of)
        parts.append(
            f'<blockquote class="mycode_quote"><cite><span> ({q.at:%m-%d-%Y}, {q.at.hour % 12 or 12:02d}:{q.at:%M} {"AM" if q.at.hour < 12 else "PM"})</span>{e(q.author.name)} Wrote: <a href="http://fixture.invalid/showthread.php?pid={q.id}#pid{q.id}" class="quick_jump"></a></cite>{e(q.paragraphs[0])}</blockquote>'
        )
    parts.append("<br />\n".join(e(p) for p in post.paragraphs))
    if post.code:
        lines = "<br />\n".join(
            line.replace("    ", "&nbsp;&nbsp;&nbsp;&nbsp;") for line in code_lines(post.code)
        )
        parts.append(
            f'<div class="codeblock"><div class="title">Code:</div><div class="body" dir="ltr"><code>{lines}</code></div></div>'
        )
    return "".join(parts)


def post_div(post: FPost, thread: FThread, position: int) -> str:
    edited = ""
    if post.edited_at:
        edited = f'<span class="post_edit" id="edited_by_{post.id}"><span class="edited_post">(This post was last modified: {post.edited_at:%m-%d-%Y}, {post.edited_at.hour % 12 or 12:02d}:{post.edited_at:%M} PM by <a href="http://fixture.invalid/member.php?action=profile&amp;uid={post.author.id}">{e(post.author.name)}</a>.)</span></span>'
    return f"""<a name="pid{post.id}" id="pid{post.id}"></a>
<div class="post " style="" id="post_{post.id}">
<div class="post_author"><div class="author_avatar"><a href="member.php?action=profile&amp;uid={post.author.id}"><img src="images/default_avatar.png" alt="" width="55" height="55" /></a></div>
<div class="author_information"><strong><span class="largetext"><a href="http://fixture.invalid/member.php?action=profile&amp;uid={post.author.id}">{e(post.author.name)}</a></span></strong><br />
<span class="smalltext">Junior Member<br /></span></div>
<div class="author_statistics">Posts: 12<br />Threads: 3<br />Joined: Jan 2024</div></div>
<div class="post_content">
<div class="post_head"><div class="float_right" style="vertical-align: top"><strong><a href="showthread.php?tid={thread.id}&amp;pid={post.id}#pid{post.id}" title="{e(thread.title)}">#{position}</a></strong></div>
<span class="post_date">{my_date(post.at)} {edited}</span></div>
<div class="post_body scaleimages" id="pid_{post.id}">
{body(post, thread)}
</div>
<div class="signature scaleimages">签名 / signature</div>
<div class="post_meta" id="post_meta_{post.id}"></div></div>
<div class="post_controls"><div class="postbit_buttons author_buttons float_left"><a href="search.php?action=finduser&amp;uid={post.author.id}" title="Find all posts by this user" class="postbit_find"><span>Find</span></a></div></div>
</div>
"""


def thread_page(b: FBoard, t: FThread, page: int) -> str:
    hrefs = [thread_href(t, n) for n in range(1, len(t.pages()) + 1)]
    start = (page - 1) * len(t.pages()[0])
    posts = "".join(post_div(p, t, start + i + 1) for i, p in enumerate(t.pages()[page - 1]))
    return (
        head(t.title)
        + nav((board_href(b), b.name), (thread_href(t), t.title))
        + f"""<div class="float_left">{pagination(hrefs, page)}</div>
<table border="0" cellspacing="0" cellpadding="5" class="tborder tfixed clear"><tr><td class="thead"><div><strong>{e(t.title)}</strong></div></td></tr>
<tr><td id="posts_container"><div id="posts">
{posts}</div></td></tr></table>
<div class="float_left">{pagination(hrefs, page)}</div>
"""
        + FOOT
    )


def error_page() -> str:
    return (
        head(SITE_NAME)
        + nav()
        + """<br />
<table border="0" cellspacing="0" cellpadding="5" class="tborder"><tr><td class="thead"><span class="smalltext"><strong>MyBB Forums</strong></span></td></tr>
<tr><td class="trow1">The specified thread does not exist.</td></tr></table>
"""
        + FOOT
    )


def render() -> Site:
    site = Site("mybb", start="/index.php", timezone="Asia/Shanghai")
    boards = build()
    site.add("/index.php", index(boards), filename="index.html")
    for b in boards:
        for page in range(1, len(b.pages()) + 1):
            site.add(
                "/" + board_href(b, page).replace("&amp;", "&"),
                board_page(b, page),
                filename=f"forumdisplay-{b.id}-{page}.html",
            )
        for t in b.threads:
            if t.denied:
                site.add("/" + thread_href(t), error_page(), filename=f"showthread-{t.id}.html")
                continue
            for page in range(1, len(t.pages()) + 1):
                site.add(
                    "/" + thread_href(t, page).replace("&amp;", "&"),
                    thread_page(b, t, page),
                    filename=f"showthread-{t.id}-{page}.html",
                )
    return site
