"""vBulletin 4.2 fixture site: ``showthread.php?t=`` URLs with ``s=`` session ids.

Quirks reproduced: a ``SECURITYTOKEN`` script, every link carrying ``s=<32 hex>``, display-only
dates in the forum's zone ("Today, 10:33 PM", "Yesterday, 03:10 PM", ``02-28-2013, 10:33 PM``),
``a.postcounter`` floors, ``div.quote_container`` quotes, ``blockquote.postcontent`` bodies,
and a "no permission" page (HTTP 200) for a protected thread.
"""

from __future__ import annotations

from datetime import datetime

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import NOW, SITE_NAME, FBoard, FPost, FThread, build

S = "s=8a1f0c3b9d2e4f5a6b7c8d9e0f1a2b3c"


def vb_date(at: datetime) -> tuple[str, str]:
    days = (NOW.date() - at.date()).days
    day = "Today" if days == 0 else "Yesterday" if days == 1 else f"{at:%m-%d-%Y}"
    return day, f"{at.hour % 12 or 12:02d}:{at:%M} {'AM' if at.hour < 12 else 'PM'}"


def board_href(board: FBoard, page: int = 1) -> str:
    return f"forumdisplay.php?{S}&amp;f={board.id}" + (f"&amp;page={page}" if page > 1 else "")


def thread_href(thread: FThread, page: int = 1) -> str:
    return f"showthread.php?{S}&amp;t={thread.id}" + (f"&amp;page={page}" if page > 1 else "")


def head(title: str, body_attrs: str = "") -> str:
    return f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" dir="ltr" lang="en" id="vbulletin_html">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
<meta name="generator" content="vBulletin 4.2.5" />
<script type="text/javascript">
<!--
	var SESSIONURL = "{S}&";
	var SECURITYTOKEN = "guest";
	var IMGDIR_MISC = "images/misc";
	var vb_disable_ajax = parseInt("0", 10);
// -->
</script>
<title>{e(title)} - {SITE_NAME}</title>
<link rel="stylesheet" type="text/css" href="clientscript/vbulletin_css/style00001l/main-rollup.css?d=1709000000" />
</head>
<body{body_attrs}>
<div class="above_body"><div id="header" class="floatcontainer doc_header"><div><a name="top" href="forum.php?{S}" class="logo-image"><img src="images/misc/vbulletin4_logo.png" alt="{SITE_NAME}" /></a></div></div></div>
<div class="body_wrapper">
"""


def breadcrumbs(*links: tuple[str, str]) -> str:
    crumbs = (
        "".join(f'<li class="navbit"><a href="{href}">{e(name)}</a></li>' for href, name in links[:-1])
        if links
        else ""
    )
    last = f'<li class="navbit lastnavbit"><span>{e(links[-1][1])}</span></li>' if links else ""
    return f'<div id="breadcrumb" class="breadcrumb"><ul class="floatcontainer"><li class="navbithome"><a href="forum.php?{S}" accesskey="1"><img src="images/misc/navbit-home.png" alt="Home" /></a></li>{crumbs}{last}</ul><hr /></div>\n'


FOOT = """</div>
<div id="footer" class="floatcontainer footer"><p id="copyright">Powered by <a href="https://www.vbulletin.com" id="vbulletinlink">vBulletin&reg;</a> Version 4.2.5 <br />Copyright &copy; 2024 vBulletin Solutions, Inc. All rights reserved.</p></div>
</body>
</html>
"""


def pagenav(hrefs: list[str], current: int) -> str:
    if len(hrefs) < 2:
        return ""
    links = "".join(
        f'<span class="selected"><a href="javascript://" title="Results">{n}</a></span>'
        if n == current
        else f'<span><a href="{h}" title="Show results">{n}</a></span>'
        for n, h in enumerate(hrefs, 1)
    )
    nxt = (
        f'<span class="prev_next"><a rel="next" href="{hrefs[current]}" title="Next Page - Results"><img src="images/pagination/next-right.png" alt="Next" /></a></span>'
        if current < len(hrefs)
        else ""
    )
    return f'<div class="pagination_top"><form action="showthread.php" method="get" class="pagination popupmenu nohovermenu"><span><a href="javascript://" class="popupctrl">Page {current} of {len(hrefs)}</a></span>{links}{nxt}</form></div>'


def index(boards: list[FBoard]) -> str:
    rows = "".join(
        f"""<li id="forum{b.id}" class="forumbit_post old L2"><div class="forumrow table"><div class="foruminfo td"><div class="forumdata"><div class="datacontainer"><div class="titleline">
<h2 class="forumtitle"><a href="{board_href(b)}">{e(b.name)}</a></h2></div><p class="forumdescription">{e(b.description)}</p></div></div></div>
<h4 class="nocss_label">Forum Actions:</h4><ul class="forumstats_2 td"><li>Threads: {len(b.threads)}</li></ul></div></li>
"""
        for b in boards
    )
    return (
        head("Forum", ' class="vbulletin"')
        + breadcrumbs()
        + f"""<div id="pagetitle"><h1>{SITE_NAME}</h1></div>
<ol id="forums" class="floatcontainer"><li id="cat1" class="forumbit_nopost new L1"><div class="forumhead foruminfo L1 collapse"><h2><span class="forumtitle"><a href="forumdisplay.php?{S}&amp;f=1">Main Category</a></span></h2></div>
<ol id="c_cat1" class="childforum">{rows}</ol></li></ol>
"""
        + FOOT
    )


def thread_li(thread: FThread) -> str:
    first, last = thread.posts[0], thread.posts[-1]
    day, time = vb_date(last.at)
    fday, ftime = vb_date(first.at)
    return f"""<li class="threadbit hot" id="thread_{thread.id}"><div class="rating0 nonsticky"><div class="threadinfo" title="">
<div class="inner"><h3 class="threadtitle"><a class="title" href="{thread_href(thread)}" id="thread_title_{thread.id}">{e(thread.title)}</a></h3>
<div class="threadmeta"><div class="author"><span class="label">Started by&nbsp;<a href="member.php?{S}&amp;u={first.author.id}" class="username understate" title="Started by {e(first.author.name)} on {fday} {ftime}">{e(first.author.name)}</a>,&nbsp;{fday}&nbsp;{ftime}</span></div></div></div></div>
<ul class="threadstats td alt" title=""><li>Replies: <a href="misc.php?do=whoposted&amp;t={thread.id}" onclick="who({thread.id}); return false;" class="understate">{thread.replies}</a></li><li>Views: {thread.views:,}</li></ul>
<dl class="threadlastpost td"><dt class="lastpostby hidden">Last Post By:</dt><dd><div class="popupmenu memberaction"><a class="username offline popupctrl" href="member.php?{S}&amp;u={last.author.id}"><strong>{e(last.author.name)}</strong></a></div></dd>
<dd>{day}, <span class="time">{time}</span><a href="showthread.php?{S}&amp;p={last.id}#post{last.id}" class="lastpostdate understate" title="Go to last post"><img src="images/buttons/lastpost-right.png" alt="Go to last post" /></a></dd></dl>
</div></li>
"""


def board_page(board: FBoard, page: int) -> str:
    hrefs = [board_href(board, n) for n in range(1, len(board.pages()) + 1)]
    items = "".join(thread_li(t) for t in board.pages()[page - 1])
    return (
        head(board.name)
        + breadcrumbs(("forum.php", "Forum"), (board_href(board), board.name))
        + f"""<div id="pagetitle"><h1>Forum: <span class="forumtitle">{e(board.name)}</span></h1><p class="description">{e(board.description)}</p></div>
<div id="above_threadlist" class="above_threadlist">{pagenav(hrefs, page)}</div>
<div id="threadlist" class="threadlist"><form id="thread_inlinemod_form" action="inlinemod.php?forumid={board.id}" method="post"><div>
<ol id="stickies" class="stickies"></ol>
<ol id="threads" class="threads">{items}</ol></div></form></div>
<div id="below_threadlist" class="noinlinemod below_threadlist">{pagenav(hrefs, page)}</div>
"""
        + FOOT
    )


def post_body(post: FPost, thread: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in thread.posts if p.id == post.quote_of)
        parts.append(f"""<div class="bbcode_container"><div class="bbcode_quote"><div class="quote_container"><div class="bbcode_quote_container"></div>
<div class="bbcode_postedby"><img src="images/misc/quote_icon.png" alt="Quote" /> Originally Posted by <strong>{e(q.author.name)}</strong><a href="showthread.php?{S}&amp;p={q.id}#post{q.id}" rel="nofollow"><img class="inlineimg" src="images/buttons/viewpost-right.png" alt="View Post" /></a></div>
<div class="message">{e(q.paragraphs[0])}</div></div></div></div>""")
    parts.append("<br />\n".join(e(p) for p in post.paragraphs))
    if post.code:
        parts.append(
            '<div class="bbcode_container"><div class="bbcode_description">Code:</div><pre class="bbcode_code" style="height:84px;">'
            + "\n".join(code_lines(post.code))
            + "</pre></div>"
        )
    return "".join(parts)


def post_li(post: FPost, thread: FThread, position: int) -> str:
    day, time = vb_date(post.at)
    edited = ""
    if post.edited_at:
        eday, etime = vb_date(post.edited_at)
        edited = f'<blockquote class="postcontent lastedited">Last edited by {e(post.author.name)}; {eday} at <span class="time">{etime}</span>.</blockquote>'
    return f"""<li class="postbitlegacy postbitim postcontainer old" id="post_{post.id}">
<div class="posthead"><span class="postdate old"><span class="date">{day},&nbsp;<span class="time">{time}</span></span></span>
<span class="nodecontrols"><a name="post{post.id}" href="showthread.php?{S}&amp;p={post.id}#post{post.id}" class="postcounter">#{position}</a><a id="postcount{post.id}" name="{position}"></a></span></div>
<div class="postdetails"><div class="userinfo"><div class="username_container"><div class="popupmenu memberaction">
<a class="username offline popupctrl" href="member.php?{S}&amp;u={post.author.id}" title="{e(post.author.name)} is offline"><strong>{e(post.author.name)}</strong></a></div></div>
<span class="usertitle">Junior Member</span></div>
<div class="postbody"><div class="postrow"><h2 class="title icon">{e(thread.title) if position == 1 else ""}</h2>
<div class="content"><div id="post_message_{post.id}"><blockquote class="postcontent restore ">{post_body(post, thread)}</blockquote></div></div></div>
<div class="after_content">{edited}<blockquote class="signature restore"><div class="signaturecontainer">签名 signature</div></blockquote></div>
<div class="cleardiv"></div></div></div>
<div class="postfoot"><div class="textcontrols floatcontainer"></div></div><hr />
</li>
"""


def thread_page(board: FBoard, thread: FThread, page: int) -> str:
    hrefs = [thread_href(thread, n) for n in range(1, len(thread.pages()) + 1)]
    start = (page - 1) * len(thread.pages()[0])
    posts = "".join(post_li(p, thread, start + i + 1) for i, p in enumerate(thread.pages()[page - 1]))
    return (
        head(thread.title)
        + breadcrumbs(
            ("forum.php", "Forum"), (board_href(board), board.name), (thread_href(thread), thread.title)
        )
        + f"""<div id="pagetitle" class="pagetitle"><h1>Thread: <span class="threadtitle"><a href="{thread_href(thread)}" title="Reload this Page">{e(thread.title)}</a></span></h1></div>
<div id="above_postlist" class="above_postlist">{pagenav(hrefs, page)}</div>
<div id="postlist" class="postlist restrain"><ol id="posts" class="posts" start="1">
{posts}</ol></div>
<div id="below_postlist" class="noinlinemod below_postlist">{pagenav(hrefs, page)}</div>
"""
        + FOOT
    )


def no_permission() -> str:
    return (
        head("No Permission")
        + breadcrumbs()
        + """<div class="standard_error"><h2 class="blockhead">vBulletin Message</h2><div class="blockbody formcontrols"><div class="blockrow restore">
You are not logged in or you do not have permission to access this page. This could be due to one of several reasons:</div></div></div>
"""
        + FOOT
    )


def render() -> Site:
    site = Site("vbulletin", start="/forum.php", timezone="Asia/Shanghai")
    boards = build()
    site.add("/forum.php", index(boards), filename="forum.html")
    for board in boards:
        for page in range(1, len(board.pages()) + 1):
            site.add(
                "/" + board_href(board, page).replace(S + "&amp;", "").replace("&amp;", "&"),
                board_page(board, page),
                filename=f"forumdisplay-{board.id}-{page}.html",
            )
        for thread in board.threads:
            if thread.denied:
                site.add(
                    "/" + thread_href(thread).replace(S + "&amp;", ""),
                    no_permission(),
                    filename=f"showthread-{thread.id}.html",
                )
                continue
            for page in range(1, len(thread.pages()) + 1):
                site.add(
                    "/" + thread_href(thread, page).replace(S + "&amp;", "").replace("&amp;", "&"),
                    thread_page(board, thread, page),
                    filename=f"showthread-{thread.id}-{page}.html",
                )
    return site
