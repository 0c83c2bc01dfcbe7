"""phpBB 3.3 (prosilver) fixture site.

Quirks reproduced: every link carries ``sid=`` (guest without cookies), ``start=`` offsets for
pagination, RFC 3339 ``time@datetime`` next to the display date, signatures in ``div.signature``,
``Last edited by`` notices, and a login box (HTTP 200) for a forum the guest may not read.
"""

from __future__ import annotations

from datetime import UTC, datetime

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import (
    POSTS_PER_PAGE,
    SITE_NAME,
    THREADS_PER_PAGE,
    FBoard,
    FPost,
    FThread,
    build,
)

SID = "3f9c2a7d1b6e4c8a9d0e1f2a3b4c5d6e"


def sid(href: str) -> str:
    return f"{href}&amp;sid={SID}" if "?" in href else f"{href}?sid={SID}"


def display(at: datetime) -> str:
    u = at.astimezone(UTC)
    return f"{u:%a %b} {u.day:02d}, {u.year} {u.hour % 12 or 12}:{u:%M} {'am' if u.hour < 12 else 'pm'}"


def stamp(at: datetime) -> str:
    return f'<time datetime="{at.astimezone(UTC).isoformat()}">{display(at)}</time>'


def head(title: str, section: str) -> str:
    return f"""<!DOCTYPE html>
<html dir="ltr" lang="en-gb">
<head>
<meta charset="utf-8" />
<meta http-equiv="X-UA-Compatible" content="IE=edge">
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>{e(title)} - {SITE_NAME}</title>
<link href="./assets/css/font-awesome.min.css?assets_version=4" rel="stylesheet">
<link href="./styles/prosilver/theme/stylesheet.css?assets_version=4" rel="stylesheet">
</head>
<body id="phpbb" class="nojs notouch {section} ltr ">
<div id="wrap" class="wrap">
<a id="top" class="top-anchor" accesskey="t"></a>
<div id="page-header"><div class="headerbar" role="banner"><div class="inner"><div id="site-description" class="site-description"><h1>{SITE_NAME}</h1></div></div></div>
<div class="navbar" role="navigation"><div class="inner">
<ul id="nav-breadcrumbs" class="nav-breadcrumbs linklist navlinks" role="menubar">
"""


def breadcrumbs(*links: tuple[str, str, int]) -> str:
    items = [
        f'<span class="crumb" itemtype="https://schema.org/ListItem" itemprop="itemListElement" itemscope><a itemprop="item" href="{sid("./index.php")}" accesskey="h" data-navbar-reference="index"><i class="icon fa-home fa-fw"></i><span itemprop="name">Board index</span></a><meta itemprop="position" content="1" /></span>'
    ]
    for n, (href, name, fid) in enumerate(links, 2):
        items.append(
            f'<span class="crumb" itemtype="https://schema.org/ListItem" itemprop="itemListElement" itemscope data-forum-id="{fid}"><a itemprop="item" href="{sid(href)}"><span itemprop="name">{e(name)}</span></a><meta itemprop="position" content="{n}" /></span>'
        )
    return f'<li class="breadcrumbs" itemscope itemtype="https://schema.org/BreadcrumbList">{"".join(items)}</li>\n</ul></div></div></div>\n<div id="page-body" class="page-body" role="main">\n'


FOOT = """</div>
<div id="page-footer" class="page-footer" role="contentinfo"><div class="copyright">
<p class="footer-row"><span class="footer-copyright">Powered by <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software &copy; phpBB Limited</span></p>
</div></div></div>
<script src="./assets/javascript/jquery-3.6.0.min.js?assets_version=4"></script>
<script src="./styles/prosilver/template/forum_fn.js?assets_version=4"></script>
</body>
</html>
"""


def board_href(board: FBoard, page: int = 1) -> str:
    return f"./viewforum.php?f={board.id}" + (
        f"&amp;start={(page - 1) * THREADS_PER_PAGE}" if page > 1 else ""
    )


def thread_href(thread: FThread, page: int = 1) -> str:
    return f"./viewtopic.php?t={thread.id}" + (
        f"&amp;start={(page - 1) * POSTS_PER_PAGE}" if page > 1 else ""
    )


def pagination(hrefs: list[str], current: int, total_label: str) -> str:
    if len(hrefs) < 2:
        return f'<div class="pagination">{total_label} &bull; Page <strong>1</strong> of <strong>1</strong></div>'
    items = []
    if current > 1:
        items.append(
            f'<li class="arrow previous"><a class="button button-icon-only" href="{sid(hrefs[current - 2])}" rel="prev" role="button"><i class="icon fa-chevron-left fa-fw" aria-hidden="true"></i><span class="sr-only">Previous</span></a></li>'
        )
    for n, href in enumerate(hrefs, 1):
        items.append(
            f'<li class="active"><span>{n}</span></li>'
            if n == current
            else f'<li><a class="button" href="{sid(href)}" role="button">{n}</a></li>'
        )
    if current < len(hrefs):
        items.append(
            f'<li class="arrow next"><a class="button button-icon-only" href="{sid(hrefs[current])}" rel="next" role="button"><i class="icon fa-chevron-right fa-fw" aria-hidden="true"></i><span class="sr-only">Next</span></a></li>'
        )
    return f'<div class="pagination">{total_label} &bull; <ul>{"".join(items)}</ul></div>'


def index(boards: list[FBoard]) -> str:
    rows = "".join(
        f"""<li class="row"><dl class="row-item forum_read"><dt title="No unread posts"><div class="list-inner">
<a href="{sid(board_href(b))}" class="forumtitle">{e(b.name)}</a><br />{e(b.description)}</div></dt>
<dd class="topics">{len(b.threads)} <dfn>Topics</dfn></dd><dd class="posts">{sum(len(t.posts) for t in b.threads)} <dfn>Posts</dfn></dd>
<dd class="lastpost"><span><dfn>Last post</dfn> by <a href="{sid("./memberlist.php?mode=viewprofile&amp;u=12")}" class="username">李四</a></span></dd></dl></li>
"""
        for b in boards
    )
    return (
        head("Index page", "section-index")
        + breadcrumbs()
        + f"""<div class="forabg"><div class="inner">
<ul class="topiclist"><li class="header"><dl class="row-item"><dt><div class="list-inner"><a href="{sid("./viewforum.php?f=1")}">Your first category</a></div></dt></dl></li></ul>
<ul class="topiclist forums">
{rows}</ul></div></div>
"""
        + FOOT
    )


def topic_row(thread: FThread, n: int) -> str:
    first, last = thread.posts[0], thread.posts[-1]
    pages = thread.pages()
    pager = ""
    if len(pages) > 1:
        pager = (
            '<div class="pagination"><i class="icon fa-clone fa-fw" aria-hidden="true"></i><ul>'
            + "".join(
                f'<li><a class="button" href="{sid(thread_href(thread, p))}">{p}</a></li>'
                for p in range(1, len(pages) + 1)
            )
            + "</ul></div>"
        )
    return f"""<li class="row bg{1 + n % 2}"><dl class="row-item topic_read"><dt title="No unread posts"><div class="list-inner">
<a href="{sid(thread_href(thread))}" class="topictitle">{e(thread.title)}</a><br />
<div class="responsive-show" style="display: none;">Last post by <a href="{sid(f"./memberlist.php?mode=viewprofile&amp;u={last.author.id}")}" class="username">{e(last.author.name)}</a></div>
{pager}<div class="topic-poster responsive-hide left-box">by <a href="{sid(f"./memberlist.php?mode=viewprofile&amp;u={first.author.id}")}" class="username">{e(first.author.name)}</a> &raquo; {stamp(first.at)}</div>
</div></dt>
<dd class="posts">{thread.replies} <dfn>Replies</dfn></dd>
<dd class="views">{thread.views} <dfn>Views</dfn></dd>
<dd class="lastpost"><span><dfn>Last post </dfn>by <a href="{sid(f"./memberlist.php?mode=viewprofile&amp;u={last.author.id}")}" class="username">{e(last.author.name)}</a>
<a href="{sid(f"./viewtopic.php?p={last.id}")}#p{last.id}" title="Go to last post"><i class="icon fa-external-link-square fa-fw icon-lightgray icon-md" aria-hidden="true"></i></a><br />{stamp(last.at)}</span></dd>
</dl></li>
"""


def board_page(board: FBoard, page: int) -> str:
    hrefs = [board_href(board, n) for n in range(1, len(board.pages()) + 1)]
    rows = "".join(topic_row(t, n) for n, t in enumerate(board.pages()[page - 1]))
    pag = pagination(hrefs, page, f"{len(board.threads)} topics")
    return (
        head(board.name, "section-viewforum")
        + breadcrumbs((board_href(board), board.name, board.id))
        + f"""<h2 class="forum-title"><a href="{sid(board_href(board))}">{e(board.name)}</a></h2>
<div><div style="display: none !important;">{e(board.description)}<br /></div></div>
<div class="action-bar bar-top">{pag}</div>
<div class="forumbg"><div class="inner">
<ul class="topiclist"><li class="header"><dl class="row-item"><dt><div class="list-inner">Topics</div></dt><dd class="posts">Replies</dd><dd class="views">Views</dd><dd class="lastpost"><span>Last post</span></dd></dl></li></ul>
<ul class="topiclist topics">
{rows}</ul></div></div>
<div class="action-bar bar-bottom">{pag}</div>
"""
        + FOOT
    )


def body(post: FPost, thread: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in thread.posts if p.id == post.quote_of)
        parts.append(
            f'<blockquote cite="./viewtopic.php?p={q.id}#p{q.id}"><div><cite><a href="./memberlist.php?mode=viewprofile&amp;u={q.author.id}">{e(q.author.name)}</a> wrote: <a href="./viewtopic.php?p={q.id}#p{q.id}" data-post-id="{q.id}" onclick="if(document.getElementById(hash.substr(1)))href=hash">↑</a><span class="responsive-hide">{display(q.at)}</span></cite>{e(q.paragraphs[0])}</div></blockquote>'
        )
    parts.append("<br>".join(e(p) for p in post.paragraphs))
    if post.code:
        parts.append(
            '<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); return false;">Select all</a></p><pre><code>'
            + "\n".join(code_lines(post.code))
            + "</code></pre></div>"
        )
    return "".join(parts)


def post_block(post: FPost, thread: FThread, n: int) -> str:
    notice = ""
    if post.edited_at:
        notice = f'<div class="notice">Last edited by <a href="{sid(f"./memberlist.php?mode=viewprofile&amp;u={post.author.id}")}" class="username">{e(post.author.name)}</a> on {display(post.edited_at)}, edited 1 time in total.</div>'
    return f"""<div id="p{post.id}" class="post has-profile bg{2 - n % 2}">
<div class="inner">
<dl class="postprofile" id="profile{post.id}">
<dt class="has-profile-rank no-avatar"><div class="avatar-container"></div><a href="{sid(f"./memberlist.php?mode=viewprofile&amp;u={post.author.id}")}" class="username">{e(post.author.name)}</a></dt>
<dd class="profile-rank">Registered User</dd>
<dd class="profile-posts"><strong>Posts:</strong> <a href="{sid(f"./search.php?author_id={post.author.id}&amp;sr=posts")}">12</a></dd>
</dl>
<div class="postbody">
<div id="post_content{post.id}">
<h3 {'class="first"' if n == 0 else ""}><a href="{sid(f"./viewtopic.php?p={post.id}")}#p{post.id}">{"Re: " if n else ""}{e(thread.title)}</a></h3>
<p class="author"><a class="unread" href="{sid(f"./viewtopic.php?p={post.id}")}#p{post.id}" title="Post"><i class="icon fa-file fa-fw icon-lightgray icon-md" aria-hidden="true"></i><span class="sr-only">Post</span></a>
<span class="responsive-hide">by <strong><a href="{sid(f"./memberlist.php?mode=viewprofile&amp;u={post.author.id}")}" class="username">{e(post.author.name)}</a></strong> &raquo; </span>{stamp(post.at)}</p>
<div class="content">{body(post, thread)}</div>
{notice}
<div id="sig{post.id}" class="signature">Sent from my crawler · 签名档</div>
</div></div>
<div class="back2top"><a href="#top" class="top" title="Top"><i class="icon fa-chevron-circle-up fa-fw icon-gray" aria-hidden="true"></i><span class="sr-only">Top</span></a></div>
</div></div>
<hr class="divider" />
"""


def thread_page(board: FBoard, thread: FThread, page: int) -> str:
    hrefs = [thread_href(thread, n) for n in range(1, len(thread.pages()) + 1)]
    posts = "".join(
        post_block(p, thread, (page - 1) * POSTS_PER_PAGE + i) for i, p in enumerate(thread.pages()[page - 1])
    )
    pag = pagination(hrefs, page, f"{len(thread.posts)} posts")
    return (
        head(thread.title, "section-viewtopic")
        + breadcrumbs((board_href(board), board.name, board.id))
        + f"""<h2 class="topic-title"><a href="{sid(thread_href(thread))}">{e(thread.title)}</a></h2>
<div class="action-bar bar-top">{pag}</div>
{posts}<div class="action-bar bar-bottom">{pag}</div>
"""
        + FOOT
    )


def login_box(board: FBoard) -> str:
    return (
        head("Login", "section-viewtopic")
        + breadcrumbs((board_href(board), board.name, board.id))
        + f"""<form action="{sid("./ucp.php?mode=login")}" method="post" id="login" data-focus="username">
<div class="panel"><div class="inner"><div class="content">
<h2 class="login-title">Login</h2>
<p>The board requires you to be registered and logged in to view this forum.</p>
<fieldset class="fields1"><dl><dt><label for="username">Username:</label></dt><dd><input type="text" tabindex="1" name="username" id="username" size="25" value="" class="inputbox autowidth" /></dd></dl></fieldset>
</div></div></div></form>
"""
        + FOOT
    )


def render() -> Site:
    site = Site("phpbb", start="/index.php")
    boards = build()
    site.add("/index.php", index(boards), filename="index.html")
    for board in boards:
        for page in range(1, len(board.pages()) + 1):
            site.add(
                board_href(board, page)[1:].replace("&amp;", "&"),
                board_page(board, page),
                filename=f"viewforum-{board.id}-{page}.html",
            )
        for thread in board.threads:
            if thread.denied:
                site.add(thread_href(thread)[1:], login_box(board), filename=f"viewtopic-{thread.id}.html")
                continue
            for page in range(1, len(thread.pages()) + 1):
                site.add(
                    thread_href(thread, page)[1:].replace("&amp;", "&"),
                    thread_page(board, thread, page),
                    filename=f"viewtopic-{thread.id}-{page}.html",
                )
    return site
