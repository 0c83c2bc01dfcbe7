"""XenForo 2.3 fixture site: friendly URLs, ``html#XF`` data attributes, ``time.u-dt``.

Quirks reproduced: ``data-content-key="thread-101"`` and ``data-container-key="node-2"``,
relative display dates ("Yesterday at 12:30 PM") with the real date in ``datetime``, view
counts abbreviated ("1.2K"), ``#N`` floors, quotes in ``blockquote.bbCodeBlock--quote``.
"""

from __future__ import annotations

from datetime import datetime

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import NOW, SITE_NAME, FBoard, FPost, FThread, build


def xf_time(at: datetime, extra_class: str = "") -> str:
    days = (NOW.date() - at.date()).days
    clock = f"{at.hour % 12 or 12}:{at:%M} {'AM' if at.hour < 12 else 'PM'}"
    text = (
        f"Today at {clock}"
        if days == 0
        else f"Yesterday at {clock}"
        if days == 1
        else f"{at:%A} at {clock}"
        if days < 7
        else f"{at:%b} {at.day}, {at.year}"
    )
    return (
        f'<time class="{extra_class}u-dt" dir="auto" datetime="{at:%Y-%m-%dT%H:%M:%S%z}" data-timestamp="{int(at.timestamp())}" '
        f'data-date="{at:%b} {at.day}, {at.year}" data-time="{clock}" title="{at:%b} {at.day}, {at.year} at {clock}">{text}</time>'
    )


def views(n: int) -> str:
    return f"{n / 1000:.1f}K" if n >= 1000 else str(n)


def board_href(board: FBoard, page: int = 1) -> str:
    return f"/forums/{board.slug}.{board.id}/" + (f"page-{page}" if page > 1 else "")


def thread_href(thread: FThread, page: int = 1) -> str:
    return f"/threads/{thread.slug}.{thread.id}/" + (f"page-{page}" if page > 1 else "")


def page_html(
    template: str,
    title: str,
    body: str,
    container: str = "",
    content: str = "",
    crumbs: list[tuple[str, str]] | None = None,
) -> str:
    keys = (f' data-container-key="{container}"' if container else "") + (
        f' data-content-key="{content}"' if content else ""
    )
    trail = "".join(
        f'<li itemprop="itemListElement" itemscope itemtype="https://schema.org/ListItem"><a href="{e(href)}" itemprop="item"><span itemprop="name">{e(name)}</span></a><meta itemprop="position" content="{n}" /></li>'
        for n, (href, name) in enumerate([("/forums/", "Forums"), *(crumbs or [])], 1)
    )
    return f"""<!DOCTYPE html>
<html id="XF" lang="en-US" dir="LTR" data-xf="2.3" data-app="public" data-template="{template}"{keys} data-logged-in="false" data-cookie-prefix="xf_" data-csrf="1709352000,abcdef" class="has-no-js template-{template}">
<head>
<meta charset="utf-8" />
<title>{e(title)} | {SITE_NAME}</title>
<link rel="manifest" href="/webmanifest.php">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<link rel="stylesheet" href="/css.php?css=public%3Anormalize.css%2Cpublic%3Acore.less&amp;s=1&amp;l=1&amp;d=1709000000" />
<script src="/js/xf/preamble.min.js?_v=abc"></script>
</head>
<body data-template="{template}">
<div class="p-pageWrapper" id="top">
<header class="p-header" id="header"><div class="p-header-inner"><div class="p-header-content"><div class="p-header-logo p-header-logo--image"><a href="/"><img src="/styles/default/xenforo/xenforo-logo.png" alt="{SITE_NAME}" /></a></div></div></div></header>
<div class="p-navSticky p-navSticky--primary" data-xf-init="sticky-header"><nav class="p-nav"><div class="p-nav-inner"><div class="p-nav-scroller hScroller"><div class="hScroller-scroll"><ul class="p-nav-list js-offCanvasNavSource">
<li><div class="p-navEl is-selected" data-has-children="true"><a href="/forums/" class="p-navEl-link p-navEl-link--splitMenu " data-xf-key="1" data-nav-id="forums">Forums</a></div></li>
</ul></div></div></div></nav></div>
<div class="p-body"><div class="p-body-inner">
<div class="p-breadcrumbs--parent"><ul class="p-breadcrumbs " itemscope itemtype="https://schema.org/BreadcrumbList">{trail}</ul></div>
<div class="p-body-main"><div class="p-body-content"><div class="p-body-pageContent">
{body}
</div></div></div></div></div>
<footer class="p-footer" id="footer"><div class="p-footer-inner"><div class="p-footer-copyright"><a href="https://xenforo.com" class="u-concealed" dir="ltr" target="_blank" rel="sponsored noopener">Community platform by XenForo<sup>&reg;</sup> <span class="copyright">&copy; 2010-2024 XenForo Ltd.</span></a></div></div></footer>
</div>
<script src="/js/xf/core-compiled.js?_v=abc"></script>
</body>
</html>
"""


def page_nav(hrefs: list[str], current: int) -> str:
    if len(hrefs) < 2:
        return ""
    pages = "".join(
        f'<li class="pageNav-page {"pageNav-page--current " if n == current else ""}"><a href="{e(h)}">{n}</a></li>'
        for n, h in enumerate(hrefs, 1)
    )
    prev = (
        f'<a href="{e(hrefs[current - 2])}" class="pageNav-jump pageNav-jump--prev">Prev</a>'
        if current > 1
        else ""
    )
    nxt = (
        f'<a href="{e(hrefs[current])}" class="pageNav-jump pageNav-jump--next">Next</a>'
        if current < len(hrefs)
        else ""
    )
    return f'<nav class="pageNavWrapper pageNavWrapper--mixed "><div class="pageNav  ">{prev}<ul class="pageNav-main">{pages}</ul>{nxt}</div></nav>'


def index(boards: list[FBoard]) -> str:
    nodes = "".join(
        f"""<div class="node node--id{b.id} node--depth2 node--forum node--unread"><div class="node-body">
<span class="node-icon" aria-hidden="true"><i class="fa--xf far fa-comments" aria-hidden="true"></i></span>
<div class="node-main js-nodeMain"><h3 class="node-title"><a href="{board_href(b)}" data-xf-init="element-tooltip" data-shortcut="node-description">{e(b.name)}</a></h3>
<div class="node-description node-description--tooltip js-nodeDescTooltip">{e(b.description)}</div></div>
<div class="node-stats"><dl class="pairs pairs--rows"><dt>Threads</dt><dd>{len(b.threads)}</dd></dl></div></div></div>
"""
        for b in boards
    )
    body = f"""<div class="block block--category block--category1"><span class="u-anchorTarget" id="main.1"></span><div class="block-container">
<h2 class="block-header"><a href="/categories/main.1/">Main category</a></h2><div class="block-body">
{nodes}</div></div></div>"""
    return page_html("forum_list", "Forums", body)


def thread_item(thread: FThread) -> str:
    first, last = thread.posts[0], thread.posts[-1]
    jump = ""
    if len(thread.pages()) > 1:
        jump = (
            '<span class="structItem-pageJump">'
            + "".join(
                f'<a href="{thread_href(thread, p)}">{p}</a>' for p in range(2, len(thread.pages()) + 1)
            )
            + "</span>"
        )
    return f"""<div class="structItem structItem--thread js-inlineModContainer js-threadListItem-{thread.id}" data-author="{e(first.author.name)}">
<div class="structItem-cell structItem-cell--icon"><div class="structItem-iconContainer"><a href="/members/u.{first.author.id}/" class="avatar avatar--s" data-user-id="{first.author.id}"></a></div></div>
<div class="structItem-cell structItem-cell--main" data-xf-init="touch-proxy">
<div class="structItem-title"><a href="{thread_href(thread)}" class="" data-tp-primary="on" data-xf-init="preview-tooltip" data-preview-url="{thread_href(thread)}preview">{e(thread.title)}</a></div>
<div class="structItem-minor"><ul class="structItem-parts">
<li><a href="/members/u.{first.author.id}/" class="username " dir="auto" data-user-id="{first.author.id}" data-xf-init="member-tooltip">{e(first.author.name)}</a></li>
<li class="structItem-startDate"><a href="{thread_href(thread)}" rel="nofollow">{xf_time(first.at)}</a></li>
</ul>{jump}</div></div>
<div class="structItem-cell structItem-cell--meta" title="First message reaction score: 0">
<dl class="pairs pairs--justified"><dt>Replies</dt><dd>{thread.replies}</dd></dl>
<dl class="pairs pairs--justified structItem-minor"><dt>Views</dt><dd>{views(thread.views)}</dd></dl></div>
<div class="structItem-cell structItem-cell--latest"><a href="{thread_href(thread)}latest" rel="nofollow">{xf_time(last.at, "structItem-latestDate ")}</a>
<div class="structItem-minor"><a href="/members/u.{last.author.id}/" class="username " dir="auto" data-user-id="{last.author.id}" data-xf-init="member-tooltip">{e(last.author.name)}</a></div></div>
</div>
"""


def board_page(board: FBoard, page: int) -> str:
    hrefs = [board_href(board, n) for n in range(1, len(board.pages()) + 1)]
    items = "".join(thread_item(t) for t in board.pages()[page - 1])
    body = f"""<div class="p-title "><h1 class="p-title-value">{e(board.name)}</h1></div>
<div class="block" data-xf-init="" data-type="thread" data-href="/inline-mod/">
<div class="block-outer"><div class="block-outer-main">{page_nav(hrefs, page)}</div></div>
<div class="block-container"><div class="block-body"><div class="structItemContainer">
<div class="structItemContainer-group js-threadList">
{items}</div></div></div></div>
<div class="block-outer block-outer--after">{page_nav(hrefs, page)}</div></div>"""
    return page_html(
        "forum_view",
        board.name,
        body,
        container=f"node-{board.id}",
        crumbs=[("/categories/main.1/", "Main category")],
    )


def post_body(post: FPost, thread: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in thread.posts if p.id == post.quote_of)
        parts.append(f"""<blockquote data-attributes="member: {q.author.id}" data-quote="{e(q.author.name)}" data-source="post: {q.id}" class="bbCodeBlock bbCodeBlock--expandable bbCodeBlock--quote js-expandWatch">
<div class="bbCodeBlock-title"><a href="/goto/post?id={q.id}" class="bbCodeBlock-sourceJump" rel="nofollow" data-xf-click="attribution" data-content-selector="#post-{q.id}">{e(q.author.name)} said:</a></div>
<div class="bbCodeBlock-content"><div class="bbCodeBlock-expandContent js-expandContent ">{e(q.paragraphs[0])}</div><div class="bbCodeBlock-expandLink js-expandLink"><a role="button" tabindex="0">Click to expand...</a></div></div></blockquote>""")
    parts.append("<br />\n".join(e(p) for p in post.paragraphs))
    if post.code:
        parts.append(
            '<div class="bbCodeBlock bbCodeBlock--screenLimited bbCodeBlock--code"><div class="bbCodeBlock-title">Code:</div><div class="bbCodeBlock-content" dir="ltr"><pre class="bbCodeCode" dir="ltr" data-xf-init="code-block" data-lang=""><code>'
            + "\n".join(code_lines(post.code))
            + "</code></pre></div></div>"
        )
    return "".join(parts)


def article(post: FPost, thread: FThread, position: int) -> str:
    edit = (
        f'<div class="message-lastEdit">Last edited: {xf_time(post.edited_at)}</div>'
        if post.edited_at
        else ""
    )
    link = f"/threads/{thread.slug}.{thread.id}/post-{post.id}"
    return f"""<article class="message message--post js-post js-inlineModContainer  " data-author="{e(post.author.name)}" data-content="post-{post.id}" id="js-post-{post.id}" itemscope itemtype="https://schema.org/Comment" itemid="http://127.0.0.1/posts/{post.id}/">
<meta itemprop="parentItem" itemscope itemid="http://127.0.0.1{thread_href(thread)}" />
<span class="u-anchorTarget" id="post-{post.id}"></span>
<div class="message-inner">
<div class="message-cell message-cell--user"><section class="message-user" itemprop="author" itemscope itemtype="https://schema.org/Person" itemid="http://127.0.0.1/members/u.{post.author.id}/">
<div class="message-userDetails"><h4 class="message-name"><a href="/members/u.{post.author.id}/" class="username " dir="auto" data-user-id="{post.author.id}" data-xf-init="member-tooltip"><span itemprop="name">{e(post.author.name)}</span></a></h4>
<h5 class="userTitle message-userTitle" dir="auto" itemprop="jobTitle">Member</h5></div></section></div>
<div class="message-cell message-cell--main"><div class="message-main js-quickEditTarget">
<header class="message-attribution message-attribution--split">
<ul class="message-attribution-main listInline "><li class="u-concealed"><a href="{link}" rel="nofollow" itemprop="url">{xf_time(post.at)}</a></li></ul>
<ul class="message-attribution-opposite message-attribution-opposite--list "><li><a href="{link}" class="message-attribution-gadget" data-xf-init="share-tooltip" data-href="/posts/{post.id}/share" rel="nofollow"><i class="fa--xf far fa-share-alt"></i></a></li><li><a href="{link}" rel="nofollow">#{position}</a></li></ul>
</header>
<div class="message-content js-messageContent"><div class="message-userContent lbContainer js-lbContainer " data-lb-id="post-{post.id}">
<article class="message-body js-selectToQuote"><div itemprop="text"><div class="bbWrapper">{post_body(post, thread)}</div></div><div class="js-selectToQuoteEnd">&nbsp;</div></article></div>
{edit}
<aside class="message-signature"><div class="bbWrapper">Signature: 签名</div></aside>
</div>
<footer class="message-footer"><div class="message-actionBar actionBar"></div></footer>
</div></div></div></article>
"""


def thread_page(board: FBoard, thread: FThread, page: int) -> str:
    hrefs = [thread_href(thread, n) for n in range(1, len(thread.pages()) + 1)]
    start = (page - 1) * len(thread.pages()[0])
    posts = "".join(article(p, thread, start + i + 1) for i, p in enumerate(thread.pages()[page - 1]))
    body = f"""<div class="p-title "><h1 class="p-title-value">{e(thread.title)}</h1></div>
<div class="block block--messages" data-xf-init="" data-type="post" data-href="/inline-mod/" data-search-target="*">
<div class="block-outer"><div class="block-outer-main">{page_nav(hrefs, page)}</div></div>
<div class="block-container lbContainer"><div class="block-body js-replyNewMessageContainer">
{posts}</div></div>
<div class="block-outer block-outer--after">{page_nav(hrefs, page)}</div></div>"""
    return page_html(
        "thread_view",
        thread.title,
        body,
        container=f"node-{board.id}",
        content=f"thread-{thread.id}",
        crumbs=[("/categories/main.1/", "Main category"), (board_href(board), board.name)],
    )


def error_page() -> str:
    body = '<div class="blockMessage">The requested thread could not be found.</div>'
    return page_html("error", "Oops! We ran into some problems.", body)


def render() -> Site:
    site = Site("xenforo", start="/forums/")
    boards = build()
    site.add("/forums/", index(boards), filename="index.html")
    for board in boards:
        for page in range(1, len(board.pages()) + 1):
            site.add(
                board_href(board, page), board_page(board, page), filename=f"forum-{board.id}-{page}.html"
            )
        for thread in board.threads:
            if thread.denied:
                site.add(thread_href(thread), error_page(), filename=f"thread-{thread.id}.html")
                continue
            for page in range(1, len(thread.pages()) + 1):
                site.add(
                    thread_href(thread, page),
                    thread_page(board, thread, page),
                    filename=f"thread-{thread.id}-{page}.html",
                )
    return site
