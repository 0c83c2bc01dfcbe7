"""FluxBB 1.5 fixture site: an engine with no profile and no schema.org markup.

Crawled by the ``forum`` spider's generic fallback (repeated post-block detection).
Markup follows FluxBB's default style: ``div.blockpost#p{pid}`` with ``span.conr`` floors,
``dl > dt > strong > a`` authors, ``div.postmsg`` bodies, ``viewtopic.php?id={tid}&p={page}``.
"""

from __future__ import annotations

from datetime import datetime

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import NOW, SITE_NAME, FBoard, FPost, FThread, build


def flux_date(at: datetime) -> str:
    days = (NOW.date() - at.date()).days
    day = "Today" if days == 0 else "Yesterday" if days == 1 else f"{at:%Y-%m-%d}"
    return f"{day} {at:%H:%M:%S}"


def head(title: str, page: str) -> str:
    return f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en" dir="ltr">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
<title>{e(title)} / {SITE_NAME}</title>
<link rel="stylesheet" type="text/css" href="style/Air.css" />
</head>
<body>
<div id="pun{page}" class="pun">
<div class="top-box"></div>
<div class="punwrap">
<div id="brdheader" class="block"><div class="box"><div id="brdtitle" class="inbox"><h1><a href="index.php">{SITE_NAME}</a></h1></div>
<div id="brdmenu" class="inbox"><ul><li id="navindex" class="isactive"><a href="index.php">Index</a></li><li id="navuserlist"><a href="userlist.php">User list</a></li><li id="navsearch"><a href="search.php">Search</a></li><li id="navregister"><a href="register.php">Register</a></li><li id="navlogin"><a href="login.php">Login</a></li></ul></div></div></div>
<div id="brdmain">
"""


FOOT = """</div>
<div id="brdfooter" class="block"><div class="box"><div class="inbox"><p id="poweredby">Powered by <a href="http://fluxbb.org/">FluxBB</a></p></div></div></div>
</div><div class="end-box"></div></div>
</body>
</html>
"""


def board_href(b: FBoard, page: int = 1) -> str:
    return f"viewforum.php?id={b.id}" + (f"&amp;p={page}" if page > 1 else "")


def thread_href(t: FThread, page: int = 1) -> str:
    return f"viewtopic.php?id={t.id}" + (f"&amp;p={page}" if page > 1 else "")


def pages(hrefs: list[str], current: int) -> str:
    links = " ".join(
        f'<strong class="item1">{n}</strong>' if n == current else f'<a href="{h}">{n}</a>'
        for n, h in enumerate(hrefs, 1)
    )
    nxt = f' <a rel="next" href="{hrefs[current]}">Next</a>' if current < len(hrefs) else ""
    return f'<p class="pagelink conl"><span class="pages-label">Pages: </span>{links}{nxt}</p>'


def index(boards: list[FBoard]) -> str:
    rows = "".join(
        f"""<tr class="rowodd"><td class="tcl"><div class="icon"><div class="nosize">1</div></div><div class="tclcon"><div><h3><a href="{board_href(b)}">{e(b.name)}</a></h3><div class="forumdesc">{e(b.description)}</div></div></div></td>
<td class="tc2">{len(b.threads)}</td><td class="tc3">{sum(len(t.posts) for t in b.threads)}</td><td class="tcr">Never</td></tr>
"""
        for b in boards
    )
    return (
        head(SITE_NAME, "index")
        + f"""<div id="idx1" class="blocktable"><h2><span>Test category</span></h2><div class="box"><div class="inbox"><table><thead><tr><th class="tcl" scope="col">Forum</th><th class="tc2" scope="col">Topics</th><th class="tc3" scope="col">Posts</th><th class="tcr" scope="col">Last post</th></tr></thead><tbody>
{rows}</tbody></table></div></div></div>
"""
        + FOOT
    )


def board_page(b: FBoard, page: int) -> str:
    hrefs = [board_href(b, n) for n in range(1, len(b.pages()) + 1)]
    rows = "".join(
        f"""<tr class="rowodd"><td class="tcl"><div class="icon"><div class="nosize">1</div></div><div class="tclcon"><div><a href="{thread_href(t)}">{e(t.title)}</a> <span class="byuser">by {e(t.posts[0].author.name)}</span></div></div></td>
<td class="tc2">{t.replies}</td><td class="tc3">{t.views}</td><td class="tcr"><a href="viewtopic.php?pid={t.posts[-1].id}#p{t.posts[-1].id}">{flux_date(t.posts[-1].at)}</a> <span class="byuser">by {e(t.posts[-1].author.name)}</span></td></tr>
"""
        for t in b.pages()[page - 1]
    )
    return (
        head(b.name, "viewforum")
        + f"""<div class="linkst"><div class="inbox crumbsplus"><ul class="crumbs"><li><a href="index.php">Index</a></li><li><span>»&#160;</span><strong><a href="{board_href(b)}">{e(b.name)}</a></strong></li></ul><div class="pagepost">{pages(hrefs, page)}</div></div></div>
<div id="vf" class="blocktable"><h2><span>{e(b.name)}</span></h2><div class="box"><div class="inbox"><table><thead><tr><th class="tcl" scope="col">Topic</th><th class="tc2" scope="col">Replies</th><th class="tc3" scope="col">Views</th><th class="tcr" scope="col">Last post</th></tr></thead><tbody>
{rows}</tbody></table></div></div></div>
"""
        + FOOT
    )


def body(post: FPost, t: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in t.posts if p.id == post.quote_of)
        parts.append(
            f'<div class="quotebox"><cite>{e(q.author.name)} wrote:</cite><blockquote><div><p>{e(q.paragraphs[0])}</p></div></blockquote></div>'
        )
    parts.extend(f"<p>{e(p)}</p>" for p in post.paragraphs)
    if post.code:
        parts.append(
            '<div class="codebox"><pre><code>' + "\n".join(code_lines(post.code)) + "</code></pre></div>"
        )
    if post.edited_at:
        parts.append(
            f'<p class="postedit"><em>Last edited by {e(post.author.name)} ({flux_date(post.edited_at)})</em></p>'
        )
    return "".join(parts)


def blockpost(post: FPost, t: FThread, n: int) -> str:
    return f"""<div id="p{post.id}" class="blockpost {"rowodd" if n % 2 else "roweven"}{" firstpost" if n == 1 else ""}">
<h2><span><span class="conr">#{n}</span> <a href="viewtopic.php?pid={post.id}#p{post.id}">{flux_date(post.at)}</a></span></h2>
<div class="box"><div class="inbox"><div class="postbody">
<div class="postleft"><dl><dt><strong><a href="profile.php?id={post.author.id}">{e(post.author.name)}</a></strong></dt><dd class="usertitle"><strong>Member</strong></dd><dd><span>Registered: 2024-01-01</span></dd><dd><span>Posts: 12</span></dd></dl></div>
<div class="postright"><h3>{"Re: " if n > 1 else ""}{e(t.title)}</h3><div class="postmsg">{body(post, t)}</div>
<div class="postsignature postmsg"><hr />签名 signature</div></div>
</div></div>
<div class="inbox"><div class="postfoot clearb"><div class="postfootleft"><p><span>Offline</span></p></div></div></div></div>
</div>
"""


def thread_page(b: FBoard, t: FThread, page: int) -> str:
    hrefs = [thread_href(t, n) for n in range(1, len(t.pages()) + 1)]
    start = (page - 1) * len(t.pages()[0])
    posts = "".join(blockpost(p, t, start + i + 1) for i, p in enumerate(t.pages()[page - 1]))
    return (
        head(t.title, "viewtopic")
        + f"""<div class="linkst"><div class="inbox crumbsplus"><ul class="crumbs"><li><a href="index.php">Index</a></li><li><span>»&#160;</span><a href="{board_href(b)}">{e(b.name)}</a></li><li><span>»&#160;</span><strong><a href="{thread_href(t)}">{e(t.title)}</a></strong></li></ul><div class="pagepost">{pages(hrefs, page)}</div></div></div>
{posts}<div class="postlinksb"><div class="inbox crumbsplus"><div class="pagepost">{pages(hrefs, page)}</div></div></div>
"""
        + FOOT
    )


def denied() -> str:
    return (
        head("Info", "misc")
        + '<div id="msg" class="block"><h2><span>Info</span></h2><div class="box"><div class="inbox"><p>Bad request. The link you followed is incorrect or outdated.</p></div></div></div>'
        + FOOT
    )


def render() -> Site:
    site = Site("generic_fluxbb", start="/index.php", kind="generic", spider="forum", timezone="Asia/Shanghai")
    boards = build()
    site.add("/index.php", index(boards), filename="index.html")
    for b in boards:
        for page in range(1, len(b.pages()) + 1):
            site.add(
                "/" + board_href(b, page).replace("&amp;", "&"),
                board_page(b, page),
                filename=f"viewforum-{b.id}-{page}.html",
            )
        for t in b.threads:
            if t.denied:
                site.add("/" + thread_href(t), denied(), filename=f"viewtopic-{t.id}.html")
                continue
            for page in range(1, len(t.pages()) + 1):
                site.add(
                    "/" + thread_href(t, page).replace("&amp;", "&"),
                    thread_page(b, t, page),
                    filename=f"viewtopic-{t.id}-{page}.html",
                )
    return site
