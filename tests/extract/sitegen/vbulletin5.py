"""vBulletin 5 "Connect" fixture site.

Verified hooks (engines.md): generator "vBulletin 5…", ``<base href>``, ``/forum/{channel}/{nodeid}-{slug}``
URLs, ``tr.forum-item#forum{id}`` / ``a.forum-title``, ``tr.topic-item[data-node-id]`` /
``a.topic-title``, ``div.js-post__content-text``, ``h2.b-post__title``, ``input[name=nodeid]``,
``a.right-arrow`` pagination, ``a.crumb-link`` breadcrumbs. Post, author, floor, quote and topic-row
markup follows the vBulletin 6.0.6 master style's templates (``li.b-post[data-node-id]``,
``a.b-post__count``, ``div.b-post__timestamp time``, ``a[data-vbnamecard] > span[itemprop=name]``,
"Started by <a data-vbnamecard>", ``bbcode_postedby`` links with ``?p=``/``#post``), simplified.
"""

from __future__ import annotations

from datetime import datetime

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import SITE_NAME, FBoard, FPost, FThread, build

ORIGIN = "http://fixture.invalid"


def board_href(b: FBoard, page: int = 1) -> str:
    return f"{ORIGIN}/forum/{b.slug}" + (f"/page{page}" if page > 1 else "")


def thread_href(b: FBoard, t: FThread, page: int = 1) -> str:
    return f"{ORIGIN}/forum/{b.slug}/{t.id}-{t.slug}" + (f"/page{page}" if page > 1 else "")


def vb_time(at: datetime) -> str:
    return f'<time itemprop="dateCreated" datetime="{at:%Y-%m-%dT%H:%M:%S}">{at:%m-%d-%Y}, {at:%I:%M %p}</time>'


def head(title: str, nodeid: int | None = None) -> str:
    node = f'<input type="hidden" name="nodeid" value="{nodeid}" />' if nodeid else ""
    return f"""<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" dir="ltr" lang="zh-CN">
<head>
<base href="{ORIGIN}/" />
<meta charset="utf-8" />
<meta name="generator" content="vBulletin 5.7.5" />
<title>{e(title)} - {SITE_NAME}</title>
<link rel="stylesheet" type="text/css" href="{ORIGIN}/css.php?styleid=1&amp;td=ltr&amp;sheet=css_reset.css" />
</head>
<body id="vb-page-body" class="l-desktop page60 vb-page view-mode logged-out" itemscope itemtype="http://schema.org/WebPage" data-usergroupid="1" data-styleid="1">
<div id="outer-wrapper"><div id="wrapper">
<div id="header" class="noselect"><div class="header-edit-box axdnum_1 h-clearfix"><div id="logo-image" class="h-left"><a href="{ORIGIN}/"><img src="images/misc/vbulletin5_logo.png" alt="{SITE_NAME}" /></a></div></div></div>
{node}
"""


def crumbs(*links: tuple[str, str]) -> str:
    items = "".join(f'<li class="crumb ellipsis"><span class="b-icon b-icon__chevron-right--gray separator"></span><a class="crumb-link h-left" href="{h}">{e(n)}</a></li>' for h, n in [(f"{ORIGIN}/forum", "论坛"), *links])
    return f'<ul id="breadcrumbs" class="h-clearfix" itemprop="breadcrumb"><li class="crumb ellipsis"><a class="crumb-link h-left" href="{ORIGIN}/">首页</a></li>{items}</ul>\n'


FOOT = """<div id="footer"><div id="footer-copyright">Powered by <a href="https://www.vbulletin.com" id="vbulletinlink">vBulletin&reg;</a> Version 5.7.5 <br />Copyright &copy; 2024 MH Sub I, LLC dba vBulletin. All rights reserved.</div></div>
</div></div>
</body>
</html>
"""


def pagenav(hrefs: list[str], current: int) -> str:
    if len(hrefs) < 2:
        return ""
    nxt = f'<a class="right-arrow h-left js-pagenav-button js-pagenav-next-button b-button b-button--secondary" href="{hrefs[current]}" data-page="{current + 1}" title="Next Page"><span class="vb-icon vb-icon-arrow-right"></span></a>' if current < len(hrefs) else ""
    prev = f'<a class="left-arrow h-left js-pagenav-button js-pagenav-prev-button b-button b-button--secondary" href="{hrefs[current - 2]}" data-page="{current - 1}" title="Previous Page"><span class="vb-icon vb-icon-arrow-left"></span></a>' if current > 1 else ""
    return f'<div class="pagenav-container h-clearfix noselect"><div class="js-pagenav pagenav h-right js-shrink-event-parent"><span class="pagenav-controls">{prev}<input type="text" name="page" class="textbox pagenav-field" value="{current}" /> of <span class="pagetotal">{len(hrefs)}</span>{nxt}</span></div></div>'


def index(boards: list[FBoard]) -> str:
    rows = "".join(f"""<tr class="forum-item main-forum-item" id="forum{b.id}" data-channel-id="{b.id}">
<td class="cell-forum"><div class="forum-wrapper"><div class="forum-info"><a href="{board_href(b)}" class="forum-title">{e(b.name)}</a><div class="forum-desc">{e(b.description)}</div></div></div></td>
<td class="topics-count">{len(b.threads)}</td><td class="posts-count">{sum(len(t.posts) for t in b.threads)}</td></tr>
""" for b in boards)
    return head("论坛") + crumbs() + f'<div class="canvas-layout-container js-canvas-layout-container"><table class="forum-list-container"><tbody>{rows}</tbody></table></div>\n' + FOOT


def board_page(b: FBoard, page: int) -> str:
    hrefs = [board_href(b, n) for n in range(1, len(b.pages()) + 1)]
    rows = "".join(f"""<tr class="topic-item" id="topic-{t.id}" data-node-id="{t.id}">
<td class="cell-topic"><div class="topic-wrapper"><a href="{thread_href(b, t)}" class="topic-title js-topic-title">{e(t.title)}</a>
<div class="topic-info h-clear-left">Started by <a href="{ORIGIN}/member/{t.posts[0].author.id}-u" data-vbnamecard="{t.posts[0].author.id}">{e(t.posts[0].author.name)}</a></div></div></td>
<td class="cell-count"><div class="posts-count">{t.replies}</div><div class="views-count">{t.views:,}</div></td>
<td class="cell-lastpost"><div class="lastpost-by">by <a href="{ORIGIN}/member/{t.posts[-1].author.id}-u">{e(t.posts[-1].author.name)}</a></div>{vb_time(t.posts[-1].at)}</td></tr>
""" for t in b.pages()[page - 1])
    return head(b.name, nodeid=b.id) + crumbs((board_href(b), b.name)) + f"""<h1 class="main-title js-main-title hide-on-editmode">{e(b.name)}</h1>
{pagenav(hrefs, page)}
<div class="conversation-list-container"><table class="topic-list-container"><tbody>{rows}</tbody></table></div>
{pagenav(hrefs, page)}
""" + FOOT


def body(p: FPost, b: FBoard, t: FThread) -> str:
    parts = []
    if p.quote_of:
        q = next(x for x in t.posts if x.id == p.quote_of)
        parts.append(f'<div class="bbcode_container"><div class="bbcode_quote"><div class="quote_container"><div class="bbcode_quote_container b-icon b-icon__ldquo-l--gray"></div><div class="bbcode_postedby">Originally posted by <strong>{e(q.author.name)}</strong> <a href="{thread_href(b, t)}?p={q.id}#post{q.id}" rel="nofollow" title="View Post" class="animate-scroll"><span class="b-icon-fa b-icon-fa--16 fa-solid fa-angles-right" aria-hidden="true"></span></a></div><div class="message">{e(q.paragraphs[0])}</div></div></div></div>')
    parts.append("<br />\n".join(e(x) for x in p.paragraphs))
    if p.code:
        parts.append('<div class="bbcode_container"><div class="bbcode_description">Code:</div><pre class="bbcode_code">' + "\n".join(code_lines(p.code)) + "</pre></div>")
    return "".join(parts)


def post_li(p: FPost, b: FBoard, t: FThread, n: int) -> str:
    edited = f'<div class="b-post__edit h-margin-top-xl"><div class="b-post__edit__title">Last edited by {e(p.author.name)}; {vb_time(p.edited_at)}.</div></div>' if p.edited_at else ""
    return f"""<li class="b-post js-post js-comment-entry__parent h-restore--on-preview{' b-post--first' if n == 1 else ''} b-post--text" data-node-id="{p.id}" itemscope itemtype="http://schema.org/Comment" itemprop="comment">
<a id="post{p.id}" class="anchor"></a>
<div class="b-post__grid"><div class="b-post__arrow"></div>
<div class="b-userinfo b-post__hide-when-deleted" itemprop="author" itemscope itemtype="http://schema.org/Person"><div class="author h-text-size--14"><strong><a href="{ORIGIN}/member/{p.author.id}-u" data-vbnamecard="{p.author.id}" itemprop="url"><span itemprop="name">{e(p.author.name)}</span></a></strong></div><div class="usertitle">Junior Member</div></div>
<div class="b-post__content js-post__content"><hr class="b-divider--section" />
<div class="b-media__body"><div class="b-post__timestamp">{vb_time(p.at)}</div><a class="b-post__count js-show-post-link" href="{thread_href(b, t)}#post{p.id}">#{n}</a>
{f'<h2 class="b-post__title js-post-title OLD__post-title" itemprop="name">{e(t.title)}</h2>' if n == 1 else ''}
<div class="js-post__content-wrapper h-clearfix"><div class="js-post__content-text restore h-wordwrap" itemprop="text">{body(p, b, t)}</div></div>
{edited}<div class="post-signature restore">签名 signature</div></div></div></div></li>
"""


def thread_page(b: FBoard, t: FThread, page: int) -> str:
    hrefs = [thread_href(b, t, n) for n in range(1, len(t.pages()) + 1)]
    start = (page - 1) * len(t.pages()[0])
    posts = "".join(post_li(p, b, t, start + i + 1) for i, p in enumerate(t.pages()[page - 1]))
    return head(t.title, nodeid=t.id) + crumbs((board_href(b), b.name), (thread_href(b, t), t.title)) + f"""<h1 class="main-title js-main-title hide-on-editmode">{e(t.title)}</h1>
{pagenav(hrefs, page)}
<div class="conversation-content-widget forum-conversation-content-widget widget"><ul class="conversation-list list-container h-clearfix thread-view">{posts}</ul></div>
{pagenav(hrefs, page)}
""" + FOOT


def no_permission() -> str:
    return head("提示") + '<div class="error-page"><div class="error-message">You do not have permission to view this page.</div></div>' + FOOT


def render() -> Site:
    site = Site("vbulletin5", start="/forum", timezone="Asia/Shanghai")
    boards = build()
    site.add("/forum", index(boards), filename="forum.html")
    for b in boards:
        for n in range(1, len(b.pages()) + 1):
            site.add(board_href(b, n)[len(ORIGIN):], board_page(b, n), filename=f"channel-{b.id}-{n}.html")
        for t in b.threads:
            if t.denied:
                site.add(thread_href(b, t)[len(ORIGIN):], no_permission(), filename=f"topic-{t.id}.html")
                continue
            for n in range(1, len(t.pages()) + 1):
                site.add(thread_href(b, t, n)[len(ORIGIN):], thread_page(b, t, n), filename=f"topic-{t.id}-{n}.html")
    return site
