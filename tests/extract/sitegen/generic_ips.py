"""Invision Community 4.7 fixture site: an engine with no profile but schema.org JSON-LD.

Crawled by the ``forum`` spider's generic fallback (extruct). Every topic page carries a
``DiscussionForumPosting`` (the opening post's text) with a ``comment`` list holding the replies
shown on that page; the HTML follows IPS (``article#elComment_{id}.cPost``,
``div[data-role=commentContent]``, ``?do=findComment&comment={id}`` permalinks, friendly URLs
``/topic/{id}-{slug}/page/{n}/``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import SITE_NAME, FBoard, FPost, FThread, build

ORIGIN = "http://fixture.invalid"


def iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def board_href(b: FBoard, page: int = 1) -> str:
    return f"{ORIGIN}/forum/{b.id}-{b.slug}/" + (f"page/{page}/" if page > 1 else "")


def thread_href(t: FThread, page: int = 1) -> str:
    return f"{ORIGIN}/topic/{t.id}-{t.slug}/" + (f"page/{page}/" if page > 1 else "")


def text_of(post: FPost) -> str:
    lines = list(post.paragraphs)
    if post.code:
        lines.append(post.code)
    return "\n".join(lines)


def head(title: str, ld: dict[str, Any] | None, page_id: str) -> str:
    script = (
        f'<script type="application/ld+json">\n{json.dumps(ld, ensure_ascii=False, indent=4)}\n</script>\n'
        if ld
        else ""
    )
    return f"""<!DOCTYPE html>
<html lang="zh-CN" dir="ltr">
<head>
<meta charset="utf-8">
<title>{e(title)} - {SITE_NAME}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="og:site_name" content="{SITE_NAME}">
<link rel="stylesheet" href="{ORIGIN}/uploads/css_built_1/framework.css?v=abc" media="all">
{script}</head>
<body class="ipsApp ipsApp_front ipsJS_none ipsClearfix" data-controller="core.front.core.app" data-pageApp="forums" data-pageLocation="front" data-pageModule="forums" data-pageController="{page_id}">
<div id="ipsLayout_header" class="ipsClearfix"><header><div class="ipsLayout_container ipsFlex ipsFlex-jc:between ipsFlex-ai:center"><a href="{ORIGIN}/" id="elSiteTitle" accesskey="1">{SITE_NAME}</a></div></header>
<nav data-controller="core.front.core.navBar" class="ipsNavBar_noSubBars"><ul data-role="primaryNavBar"><li id="elNavSecondary_1" data-role="navBarItem"><a href="{ORIGIN}/">Browse</a></li></ul></nav></div>
<main id="ipsLayout_body" class="ipsLayout_container"><div id="ipsLayout_contentArea"><div id="ipsLayout_contentWrapper"><div id="ipsLayout_mainArea">
"""


FOOT = f"""</div></div></div></main>
<footer id="ipsLayout_footer" class="ipsClearfix"><div class="ipsLayout_container"><ul class="ipsList_inline ipsType_center ipsSpacer_top" id="elFooterLinks"><li><a href="{ORIGIN}/privacy/">Privacy Policy</a></li></ul>
<p id="elCopyright"><span id="elCopyright_userLine">{SITE_NAME}</span> <a rel="nofollow" title="Invision Community" href="https://www.invisioncommunity.com/">Powered by Invision Community</a></p></div></footer>
</body>
</html>
"""


def crumbs(*links: tuple[str, str]) -> str:
    items = "".join(
        f'<li itemprop="itemListElement"><a href="{h}"><span>{e(n)}</span></a></li>'
        for h, n in [(ORIGIN + "/", "Home"), *links]
    )
    return f'<nav class="ipsBreadcrumb ipsBreadcrumb_top ipsFaded_withHover"><ul data-role="breadcrumbList">{items}</ul></nav>\n'


def pagination(hrefs: list[str], current: int) -> str:
    if len(hrefs) < 2:
        return ""
    items = "".join(
        f'<li class="ipsPagination_page {"ipsPagination_active" if n == current else ""}"><a href="{h}" data-page="{n}">{n}</a></li>'
        for n, h in enumerate(hrefs, 1)
    )
    nxt = (
        f'<li class="ipsPagination_next"><a href="{hrefs[current]}" rel="next" data-page="{current + 1}">Next</a></li>'
        if current < len(hrefs)
        else ""
    )
    return f'<ul class="ipsPagination" data-pages="{len(hrefs)}">{items}{nxt}</ul>'


def index(boards: list[FBoard]) -> str:
    rows = "".join(
        f'<li class="cForumRow ipsDataItem ipsDataItem_responsivePhoto ipsClearfix" data-forumID="{b.id}"><div class="ipsDataItem_main"><h4 class="ipsDataItem_title ipsType_large ipsType_break"><a href="{board_href(b)}">{e(b.name)}</a></h4><div class="ipsDataItem_meta ipsType_richText">{e(b.description)}</div></div><dl class="ipsDataItem_stats"><dt class="ipsDataItem_stats_number">{len(b.threads)}</dt><dd class="ipsDataItem_stats_type ipsType_light">topics</dd></dl></li>'
        for b in boards
    )
    return (
        head("Forums", None, "index")
        + crumbs()
        + f'<section class="cForumList ipsBox"><h2 class="ipsType_sectionTitle">Main</h2><ol class="ipsDataList ipsDataList_large ipsDataList_zebra" data-role="forums">{rows}</ol></section>\n'
        + FOOT
    )


def board_page(b: FBoard, page: int) -> str:
    hrefs = [board_href(b, n) for n in range(1, len(b.pages()) + 1)]
    rows = "".join(
        f"""<li class="ipsDataItem ipsDataItem_responsivePhoto" data-rowID="{t.id}" data-controller="forums.front.forum.topicRow"><div class="ipsDataItem_main">
<h4 class="ipsDataItem_title ipsContained_container"><span class="ipsType_break ipsContained"><a href="{thread_href(t)}" class="" title="{e(t.title)}" data-ipsHover-target="{thread_href(t)}?preview=1"><span>{e(t.title)}</span></a></span></h4>
<div class="ipsDataItem_meta ipsType_reset ipsType_light ipsType_blendLinks"><span>By <a href="{ORIGIN}/profile/{t.posts[0].author.id}-u/">{e(t.posts[0].author.name)}</a>, </span><time datetime="{iso(t.posts[0].at)}" title="{t.posts[0].at:%m/%d/%Y %I:%M %p}" data-short="1 mo">{t.posts[0].at:%B %d, %Y}</time></div></div>
<ul class="ipsDataItem_stats"><li><span class="ipsDataItem_stats_number">{t.replies}</span> <span class="ipsDataItem_stats_type">replies</span></li><li><span class="ipsDataItem_stats_number">{t.views}</span> <span class="ipsDataItem_stats_type">views</span></li></ul></li>
"""
        for t in b.pages()[page - 1]
    )
    return (
        head(b.name, None, "forums")
        + crumbs((board_href(b), b.name))
        + f"""<div class="ipsPageHeader"><h1 class="ipsType_pageTitle">{e(b.name)}</h1></div>
<div class="ipsBox"><div class="ipsButtonBar ipsPad_half ipsClearfix">{pagination(hrefs, page)}</div>
<ol class="ipsClear ipsDataList cForumTopicTable cTopicList" data-role="tableRows">{rows}</ol></div>
"""
        + FOOT
    )


def comment_html(post: FPost, t: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in t.posts if p.id == post.quote_of)
        parts.append(
            f'<blockquote class="ipsQuote" data-ipsquote="" data-ipsquote-contentapp="forums" data-ipsquote-contentcommentid="{q.id}" data-ipsquote-contentid="{t.id}" data-ipsquote-username="{e(q.author.name)}"><div class="ipsQuote_citation">{e(q.author.name)} said:</div><div class="ipsQuote_contents"><p>{e(q.paragraphs[0])}</p></div></blockquote>'
        )
    parts.extend(f"<p>{e(p)}</p>" for p in post.paragraphs)
    if post.code:
        parts.append(
            '<pre class="ipsCode prettyprint lang-python">' + "\n".join(code_lines(post.code)) + "</pre>"
        )
    return "\n".join(parts)


def article(post: FPost, t: FThread) -> str:
    edited = (
        f'<p class="ipsType_reset ipsType_medium ipsType_light" data-excludequote><strong>Edited <time datetime="{iso(post.edited_at)}">{post.edited_at:%B %d, %Y}</time> by {e(post.author.name)}</strong></p>'
        if post.edited_at
        else ""
    )
    return f"""<a id="comment-{post.id}"></a>
<article id="elComment_{post.id}" class="cPost ipsBox ipsResponsive_pull ipsComment ipsComment_parent ipsClearfix ipsClear ipsColumns ipsColumns_noSpacing ipsColumns_collapsePhone">
<aside class="ipsComment_author cAuthorPane ipsColumn ipsColumn_medium ipsResponsive_hidePhone"><h3 class="ipsType_sectionHead cAuthorPane_author ipsType_blendLinks ipsType_break"><strong><a href="{ORIGIN}/profile/{post.author.id}-u/" title="Go to {e(post.author.name)}'s profile">{e(post.author.name)}</a></strong></h3>
<ul class="cAuthorPane_info ipsList_reset"><li data-role="group">Members</li><li data-role="stats" class="ipsType_light">12 posts</li></ul></aside>
<div class="ipsColumn ipsColumn_fluid ipsMargin:none"><div id="comment-{post.id}_wrap" data-controller="core.front.core.comment" data-commentApp="forums" data-commentType="forums" data-commentID="{post.id}" class="ipsComment_content ipsType_medium">
<div class="ipsComment_meta ipsType_light ipsFlex ipsFlex-ai:center ipsFlex-jc:between ipsFlex-fd:row-reverse"><div class="ipsType_reset ipsResponsive_hidePhone"><a href="{thread_href(t)}?do=findComment&amp;comment={post.id}" rel="nofollow" class="ipsType_blendLinks">Posted <time datetime="{iso(post.at)}" title="{post.at:%m/%d/%Y %I:%M %p}" data-short="1 mo">{post.at:%B %d, %Y}</time></a></div></div>
<div class="cPost_contentWrap"><div data-role="commentContent" class="ipsType_normal ipsType_richText ipsPadding_bottom ipsContained" data-controller="core.front.core.lightboxedImages">
{comment_html(post, t)}
{edited}</div></div>
</div></div></article>
"""


def ld_person(post: FPost) -> dict[str, Any]:
    return {"@type": "Person", "name": post.author.name, "url": f"{ORIGIN}/profile/{post.author.id}-u/"}


def topic_ld(b: FBoard, t: FThread, page: int) -> dict[str, Any]:
    first = t.posts[0]
    shown = [p for p in t.pages()[page - 1] if p is not first]
    return {
        "@context": "http://schema.org",
        "@type": "DiscussionForumPosting",
        "@id": thread_href(t),
        "url": thread_href(t),
        "discussionUrl": thread_href(t),
        "mainEntityOfPage": {"@type": "WebPage", "@id": thread_href(t)},
        "pageStart": 1,
        "pageEnd": len(t.pages()),
        "name": t.title,
        "headline": t.title,
        "text": text_of(first),
        "dateCreated": iso(first.at),
        "datePublished": iso(first.at),
        "author": ld_person(first),
        "interactionStatistic": [
            {
                "@type": "InteractionCounter",
                "interactionType": "http://schema.org/ViewAction",
                "userInteractionCount": t.views,
            },
            {
                "@type": "InteractionCounter",
                "interactionType": "http://schema.org/CommentAction",
                "userInteractionCount": t.replies,
            },
        ],
        "comment": [
            {
                "@type": "Comment",
                "@id": f"{thread_href(t)}?do=findComment&comment={p.id}",
                "url": f"{thread_href(t)}?do=findComment&comment={p.id}",
                "author": ld_person(p),
                "dateCreated": iso(p.at),
                "text": text_of(p),
                "upvoteCount": 0,
            }
            for p in shown
        ],
    }


def thread_page(b: FBoard, t: FThread, page: int) -> str:
    hrefs = [thread_href(t, n) for n in range(1, len(t.pages()) + 1)]
    posts = "".join(article(p, t) for p in t.pages()[page - 1])
    return (
        head(t.title, topic_ld(b, t, page), "topic")
        + crumbs((board_href(b), b.name), (thread_href(t), t.title))
        + f"""<div class="ipsPageHeader ipsResponsive_pull ipsBox ipsPadding sm:ipsPadding:half ipsMargin_bottom"><h1 class="ipsType_pageTitle ipsContained_container"><span class="ipsType_break ipsContained"><span>{e(t.title)}</span></span></h1></div>
<div class="ipsClearfix">{pagination(hrefs, page)}</div>
<div id="comments" data-controller="core.front.core.commentFeed,forums.front.topic.view" data-feedID="topic-{t.id}" class="cTopic ipsClear ipsSpacer_top"><div data-role="commentFeed" data-controller="core.front.core.moderation">
{posts}</div></div>
<div class="ipsClearfix">{pagination(hrefs, page)}</div>
"""
        + FOOT
    )


def no_permission() -> str:
    return (
        head("Sorry, there is a problem", None, "error")
        + '<div class="ipsBox ipsPad"><h1 class="ipsType_pageTitle">Sorry, there is a problem</h1><p class="ipsType_normal">Sorry, you do not have permission for that!</p><p class="ipsType_light">Error code: 2F173/H</p></div>'
        + FOOT
    )


def render() -> Site:
    site = Site("generic_ips", start="/", kind="generic", spider="forum")
    boards = build()
    site.add("/", index(boards), filename="index.html")
    for b in boards:
        for page in range(1, len(b.pages()) + 1):
            site.add(
                board_href(b, page)[len(ORIGIN) :], board_page(b, page), filename=f"forum-{b.id}-{page}.html"
            )
        for t in b.threads:
            if t.denied:
                site.add(thread_href(t)[len(ORIGIN) :], no_permission(), filename=f"topic-{t.id}.html")
                continue
            for page in range(1, len(t.pages()) + 1):
                site.add(
                    thread_href(t, page)[len(ORIGIN) :],
                    thread_page(b, t, page),
                    filename=f"topic-{t.id}-{page}.html",
                )
    return site
