"""SMF 2.1 fixture site (Curve2 theme).

Quirks reproduced: ``index.php?board=2.0`` / ``index.php?topic=101.3`` offsets counting topics or
posts, ``;`` separated parameters in profile links, ``PHPSESSID`` on every link (no cookies),
"Today at 11:30:00 AM" relative dates in the forum's zone, ``#N`` reply numbers in
``span.page_number`` (SMF 2.1's counter: the opening post is #0 and shows none), ``bbc_standard_quote`` quotes linking ``topic=101.msg1001#msg1001``, and a
"missing or off limits" fatal error page with HTTP 200.
"""

from __future__ import annotations

from datetime import datetime

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import (
    NOW,
    POSTS_PER_PAGE,
    SITE_NAME,
    THREADS_PER_PAGE,
    FBoard,
    FPost,
    FThread,
    build,
)

SESSION = "PHPSESSID=9b1c5e7f3a2d4c6e8f0a1b2c3d4e5f6a"


def smf_date(at: datetime) -> str:
    days = (NOW.date() - at.date()).days
    clock = f"{at.hour % 12 or 12:02d}:{at:%M}:{at:%S} {'AM' if at.hour < 12 else 'PM'}"
    if days == 0:
        return f"<strong>Today</strong> at {clock}"
    if days == 1:
        return f"<strong>Yesterday</strong> at {clock}"
    return f"{at:%B} {at.day:02d}, {at.year}, {clock}"


def url(query: str) -> str:
    return f"http://fixture.invalid/index.php?{SESSION}&amp;{query}"


def board_q(b: FBoard, page: int = 1) -> str:
    return f"board={b.id}.{(page - 1) * THREADS_PER_PAGE}"


def topic_q(t: FThread, page: int = 1) -> str:
    return f"topic={t.id}.{(page - 1) * POSTS_PER_PAGE}"


def head(title: str, page_id: str) -> str:
    return f"""<!DOCTYPE html>
<html lang="en-US">
<head>
<meta charset="UTF-8">
<link rel="stylesheet" href="http://fixture.invalid/Themes/default/css/index.css?smf214_1709000000">
<script>
	var smf_theme_url = "http://fixture.invalid/Themes/default";
	var smf_scripturl = "http://fixture.invalid/index.php?{SESSION}&amp;";
	var smf_session_id = "a1b2c3d4";
</script>
<title>{e(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="help" href="http://fixture.invalid/index.php?{SESSION}&amp;action=help">
<link rel="contents" href="http://fixture.invalid/index.php?{SESSION}&amp;">
<link rel="search" href="http://fixture.invalid/index.php?{SESSION}&amp;action=search">
</head>
<body id="{page_id}" class="action_messageindex">
<div id="footerfix"><div id="header"><h1 class="forumtitle"><a id="top" href="http://fixture.invalid/index.php?{SESSION}&amp;">{SITE_NAME}</a></h1></div>
<div id="wrapper"><div id="upper_section"></div>
<div id="content_section"><div id="main_content_section">
"""


def linktree(*links: tuple[str, str]) -> str:
    items = [f'<li><a href="{url("")}"><span>{SITE_NAME}</span></a></li>'] + [
        f'<li><span class="dividers"> &#9658; </span><a href="{h}"><span>{e(n)}</span></a></li>'
        for h, n in links
    ]
    return f'<div class="navigate_section"><ul>{"".join(items)}</ul></div>\n'


FOOT = f"""</div></div></div></div>
<div id="footer"><div class="inner_wrap"><ul>
<li class="floatright"><a href="{url("action=help")}">Help</a> | <a href="{url("action=agreement")}">Terms and Rules</a></li>
<li class="copyright"><a href="http://fixture.invalid/index.php?action=credits" title="License" target="_blank" rel="noopener">SMF 2.1.4 &copy; 2023</a>, <a href="https://www.simplemachines.org" title="Simple Machines" target="_blank" rel="noopener">Simple Machines</a></li>
</ul></div></div>
</body>
</html>
"""


def pagelinks(queries: list[str], current: int) -> str:
    if len(queries) < 2:
        return '<div class="pagelinks floatleft"><span class="pages">Pages</span><span class="current_page">1</span> </div>'
    parts = ['<a href="#bot" class="button">Go Down</a>', '<span class="pages">Pages</span>']
    if current > 1:
        parts.append(
            f'<a class="nav_page" href="{url(queries[current - 2])}"><span class="main_icons previous_page"></span></a>'
        )
    for n, q in enumerate(queries, 1):
        parts.append(
            f'<span class="current_page">{n}</span>'
            if n == current
            else f'<a class="nav_page" href="{url(q)}">{n}</a>'
        )
    if current < len(queries):
        parts.append(
            f'<a class="nav_page" href="{url(queries[current])}"><span class="main_icons next_page"></span></a>'
        )
    return f'<div class="pagelinks floatleft">{" ".join(parts)}</div>'


def index(boards: list[FBoard]) -> str:
    rows = "".join(
        f"""<div id="board_{b.id}" class="up_contain ">
<div class="board_icon"><a href="{url(board_q(b))}" class="board_on" title="New Posts"></a></div>
<div class="info"><a class="subject mobile_subject" href="{url(board_q(b))}" id="b{b.id}">{e(b.name)}</a>
<div class="board_description">{e(b.description)}</div></div>
<div class="board_stats"><p>{sum(len(t.posts) for t in b.threads)} Posts<br>{len(b.threads)} Topics</p></div></div>
"""
        for b in boards
    )
    return (
        head(SITE_NAME, "chrome")
        + linktree()
        + f"""<div id="boardindex_table" class="boardindex_table">
<div class="main_container"><div class="cat_bar " id="category_1"><h3 class="catbg"><a id="c1"></a>General Category</h3></div>
<div id="category_1_boards" >
{rows}</div></div></div>
"""
        + FOOT
    )


def topic_row(t: FThread) -> str:
    first, last = t.posts[0], t.posts[-1]
    pages = ""
    if len(t.pages()) > 1:
        pages = (
            f'<span id="pages{first.id}" class="topic_pages">'
            + " ".join(
                f'<a class="nav_page" href="{url(topic_q(t, p))}">{p}</a>'
                for p in range(1, len(t.pages()) + 1)
            )
            + "</span>"
        )
    return f"""<div class="windowbg">
<div class="board_icon"><img src="http://fixture.invalid/Themes/default/images/post/xx.png" alt=""></div>
<div class="info info_block"><div>
<div class="message_index_title"><span class="preview" title=""><span id="msg_{first.id}"><a href="{url(topic_q(t))}">{e(t.title)}</a></span></span></div>
<p class="floatleft">Started by <a href="{url(f"action=profile;u={first.author.id}")}" title="View the profile of {e(first.author.name)}" class="preview">{e(first.author.name)}</a></p>
{pages}</div></div>
<div class="board_stats centertext"><p>Replies: {t.replies}<br>Views: {t.views:,}</p></div>
<div class="lastpost"><p><a href="{url(f"topic={t.id}.{(len(t.pages()) - 1) * POSTS_PER_PAGE}")}#msg{last.id}">{smf_date(last.at)}</a><br>by <a href="{url(f"action=profile;u={last.author.id}")}">{e(last.author.name)}</a></p></div>
</div>
"""


def board_page(b: FBoard, page: int) -> str:
    queries = [board_q(b, n) for n in range(1, len(b.pages()) + 1)]
    rows = "".join(topic_row(t) for t in b.pages()[page - 1])
    return (
        head(b.name, "chrome")
        + linktree((url(board_q(b)), b.name))
        + f"""<div id="display_head" class="information"><h2 class="display_title">{e(b.name)}</h2><p>{e(b.description)}</p></div>
<div class="pagesection">{pagelinks(queries, page)}</div>
<div id="messageindex"><div class="title_bar" id="topic_header"><div class="board_icon"></div><div class="info">Subject / Started by</div></div>
<div id="topic_container">
{rows}</div></div>
<div class="pagesection">{pagelinks(queries, page)}</div>
"""
        + FOOT
    )


def body(post: FPost, thread: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in thread.posts if p.id == post.quote_of)
        parts.append(
            f'<blockquote class="bbc_standard_quote"><cite><a href="{url(f"topic={thread.id}.msg{q.id}")}#msg{q.id}">Quote from: {e(q.author.name)} on {q.at:%B} {q.at.day:02d}, {q.at.year}, {q.at:%I:%M:%S %p}</a></cite>{e(q.paragraphs[0])}</blockquote>'
        )
    parts.append("<br>".join(e(p) for p in post.paragraphs))
    if post.code:
        lines = "<br>".join(line.replace("    ", "&nbsp; &nbsp; ") for line in code_lines(post.code))
        parts.append(
            f'<div class="codeheader"><span class="code floatleft">Code</span> <a class="codeoperation smf_select_text">Select</a> <a class="codeoperation smf_expand_code hidden" data-shrink-txt="Shrink" data-expand-txt="Expand">Expand</a></div><code class="bbc_code">{lines}</code>'
        )
    return "".join(parts)


def message(post: FPost, thread: FThread, position: int) -> str:
    modified = (
        f'<span class="smalltext modified floatright mvisible" id="modified_{post.id}"><span class="lastedit">Last Edit</span>: {smf_date(post.edited_at)} by {e(post.author.name)}</span>'
        if post.edited_at
        else f'<span class="smalltext modified floatright" id="modified_{post.id}"></span>'
    )
    return f"""<div class="windowbg" id="msg{post.id}">
<div class="post_wrapper">
<div class="poster"><h4><span class="off" title="Offline"></span><a href="{url(f"action=profile;u={post.author.id}")}" title="View the profile of {e(post.author.name)}">{e(post.author.name)}</a></h4>
<ul class="user_info"><li class="membergroup">Newbie</li><li class="postcount">Posts: 12</li></ul></div>
<div class="postarea"><div class="keyinfo">
<div id="subject_{post.id}" class="subject_title subject_hidden"><a href="{url(f"msg={post.id}")}" rel="nofollow">{"Re: " if position > 1 else ""}{e(thread.title)}</a></div>
{f'<span class="page_number floatright">#{position - 1}</span>' if position > 1 else ""}
<div class="postinfo"><span class="messageicon" ><img src="http://fixture.invalid/Themes/default/images/post/xx.png" alt=""></span>
<a href="{url(f"msg={post.id}")}" rel="nofollow" title="{"Reply #" + str(position - 1) + " - " if position > 1 else ""}{e(thread.title)}" class="smalltext">{smf_date(post.at)}</a>
<span class="spacer"></span>{modified}</div>
<div id="msg_{post.id}_quick_mod"></div></div>
<div class="post"><div class="inner" data-msgid="{post.id}" id="msg_{post.id}">{body(post, thread)}</div></div>
</div>
<div class="moderatorbar"><div class="signature" id="msg_{post.id}_signature">签名 signature</div></div>
</div></div>
<hr class="post_separator">
"""


def thread_page(b: FBoard, t: FThread, page: int) -> str:
    queries = [topic_q(t, n) for n in range(1, len(t.pages()) + 1)]
    start = (page - 1) * POSTS_PER_PAGE
    posts = "".join(message(p, t, start + i + 1) for i, p in enumerate(t.pages()[page - 1]))
    return (
        head(t.title, "chrome")
        + linktree((url(board_q(b)), b.name), (url(topic_q(t)), t.title))
        + f"""<div id="display_head" class="information"><h2 class="display_title"><span id="top_subject">{e(t.title)}</span></h2><p>Started by {e(t.posts[0].author.name)}, {smf_date(t.posts[0].at)}</p></div>
<div class="pagesection top">{pagelinks(queries, page)}</div>
<div id="forumposts"><form action="{url("action=quickmod2;topic=" + str(t.id) + "." + str(start))}" method="post" accept-charset="UTF-8" name="quickModForm" id="quickModForm">
{posts}</form></div>
<div class="pagesection">{pagelinks(queries, page)}</div>
<input type="hidden" name="topic" value="{t.id}">
"""
        + FOOT
    )


def fatal() -> str:
    return (
        head("An error has occurred", "chrome")
        + linktree()
        + """<div id="fatal_error"><div class="cat_bar"><h3 class="catbg">An error has occurred</h3></div>
<div class="windowbg"><div class="padding">The topic or board you are looking for appears to be either missing or off limits to you.</div></div></div>
"""
        + FOOT
    )


def render() -> Site:
    site = Site("smf", start="/index.php", timezone="Asia/Shanghai")
    boards = build()
    site.add("/index.php", index(boards), filename="index.html")
    for b in boards:
        for page in range(1, len(b.pages()) + 1):
            site.add(
                f"/index.php?{board_q(b, page)}", board_page(b, page), filename=f"board-{b.id}-{page}.html"
            )
        for t in b.threads:
            if t.denied:
                site.add(f"/index.php?{topic_q(t)}", fatal(), filename=f"topic-{t.id}.html")
                continue
            for page in range(1, len(t.pages()) + 1):
                site.add(
                    f"/index.php?{topic_q(t, page)}",
                    thread_page(b, t, page),
                    filename=f"topic-{t.id}-{page}.html",
                )
    return site
