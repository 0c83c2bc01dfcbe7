"""Discuz! X3.4 fixture site: GBK pages, dynamic URLs, floors hidden from robots.

Quirks reproduced: the HTTP header claims UTF-8 while the pages are GBK (the meta says gbk);
``extra=page%3D1`` on thread links; ``发表于 <span title=…>昨天&nbsp;12:30</span>`` dates;
no ``a#postnum`` floor for robot user agents; ``抱歉，指定的主题不存在…`` soft 404.
"""

from __future__ import annotations

from datetime import datetime

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import NOW, SITE_NAME, FBoard, FPost, FThread, build

LYING_HEADER = "text/html; charset=utf-8"


def dz_date(at: datetime) -> str:
    return f"{at.year}-{at.month}-{at.day} {at:%H:%M}"


def dz_time(at: datetime) -> str:
    """Discuz's dgmdate(…, 'u'): relative text in a span whose title has the full date."""
    delta = NOW - at
    days = (NOW.date() - at.date()).days
    if delta.days >= 7 or delta.total_seconds() < 0:
        return f"发表于 {dz_date(at)}"
    if days == 0:
        minutes = int(delta.total_seconds() // 60)
        text = (
            "半小时前"
            if 30 <= minutes < 60
            else f"{minutes // 60}&nbsp;小时前"
            if minutes >= 60
            else f"{minutes}&nbsp;分钟前"
        )
    elif days == 1:
        text = f"昨天&nbsp;{at:%H:%M}"
    elif days == 2:
        text = f"前天&nbsp;{at:%H:%M}"
    else:
        text = f"{days}&nbsp;天前"
    return f'发表于 <span title="{dz_date(at)}:{at:%S}">{text}</span>'


def head(title: str, page_class: str) -> str:
    return f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=gbk" />
<title>{e(title)} -  {SITE_NAME} -  Powered by Discuz!</title>
<meta name="keywords" content="{e(title)}" />
<meta name="generator" content="Discuz! X3.4" />
<meta name="author" content="Discuz! Team and Comsenz UI Team" />
<link rel="stylesheet" type="text/css" href="data/cache/style_1_common.css?abc" />
<script type="text/javascript">var STYLEID = '1', STATICURL = 'static/', IMGDIR = 'static/image/common', VERHASH = 'Xa1', charset = 'gbk', discuz_uid = '0', cookiepre = 'q7Rz_2132_', cookiedomain = '', cookiepath = '/', showusercard = '1', attackevasive = '0', disallowfloat = 'newthread', creditnotice = '1|威望|,2|金钱|', defaultstyle = '', REPORTURL = 'aHR0cDovLzEyNy4wLjAuMS8=', SITEURL = 'http://127.0.0.1/', JSPATH = 'static/js/';</script>
<script src="static/js/common.js?Xa1" type="text/javascript"></script>
</head>
<body id="nv_forum" class="{page_class}" onkeydown="if(event.keyCode==27) return false;">
<div id="append_parent"></div><div id="ajaxwaitid"></div>
<div id="hd"><div class="wp"><div class="hdc cl"><h2><a href="./" title="{SITE_NAME}"><img src="static/image/common/logo.png" alt="{SITE_NAME}" border="0" /></a></h2></div>
<div id="nv"><ul><li class="a" id="mn_forum"><a href="forum.php" hidefocus="true" title="BBS">论坛<span>BBS</span></a></li></ul></div></div></div>
"""


FOOT = """<div id="ft" class="wp cl"><div id="flk" class="y"><p><a href="archiver/">Archiver</a></p></div>
<div id="frt"><p>Powered by <strong><a href="http://www.discuz.net" target="_blank">Discuz!</a></strong> <em>X3.4</em></p></div></div>
<script src="home.php?mod=misc&amp;ac=sendmail&amp;rand=1709352000" type="text/javascript"></script>
</body>
</html>
"""


def crumbs(*links: tuple[str, str]) -> str:
    parts = "".join(f' <em>&rsaquo;</em> <a href="{e(href)}">{e(text)}</a>' for href, text in links)
    return f'<div id="pt" class="bm cl"><div class="z"><a href="./" class="nvhm" title="首页">{SITE_NAME}</a> <em>&raquo;</em><a href="forum.php">论坛</a>{parts}</div></div>\n'


def board_href(board: FBoard, page: int = 1) -> str:
    return f"forum.php?mod=forumdisplay&fid={board.id}" + (f"&page={page}" if page > 1 else "")


def thread_href(thread: FThread, page: int = 1) -> str:
    return f"forum.php?mod=viewthread&tid={thread.id}&extra=page%3D1" + (f"&page={page}" if page > 1 else "")


def pager(hrefs: list[str], current: int) -> str:
    if len(hrefs) < 2:
        return ""
    links = []
    for number, href in enumerate(hrefs, 1):
        links.append(
            f"<strong>{number}</strong>" if number == current else f'<a href="{e(href)}">{number}</a>'
        )
    if current < len(hrefs):
        links.append(f'<a href="{e(hrefs[current])}" class="nxt">下一页</a>')
    return f'<div class="pg">{"".join(links)}<label><input type="text" name="custompage" class="px" size="2" value="{current}" /><span title="共 {len(hrefs)} 页"> / {len(hrefs)} 页</span></label></div>'


def index(boards: list[FBoard]) -> str:
    rows = "".join(
        f"""<tr><td class="fl_icn"><a href="{e(board_href(b))}"><img src="static/image/common/forum_new.gif" alt="{e(b.name)}" /></a></td>
<td><h2><a href="{e(board_href(b))}">{e(b.name)}</a><em class="xw0 xi1" title="今日"> (2)</em></h2><p class="xg2">{e(b.description)}</p></td>
<td class="fl_i"><span class="xi2">{len(b.threads)}</span><span class="xg1"> / {sum(len(t.posts) for t in b.threads)}</span></td></tr>
"""
        for b in boards
    )
    return (
        head("论坛", "pg_index")
        + f"""<div id="wp" class="wp">{crumbs()}
<div id="ct" class="wp cl"><div class="mn">
<div class="fl bm"><div class="bm bmw cl"><div class="bm_h cl"><h2><a href="forum.php?gid=1" style="">默认分区</a></h2></div>
<div id="category_1" class="bm_c" style=""><table cellspacing="0" cellpadding="0" class="fl_tb">
{rows}</table></div></div></div></div></div></div>
"""
        + FOOT
    )


def thread_row(board: FBoard, thread: FThread) -> str:
    first, last = thread.posts[0], thread.posts[-1]
    more = thread.pages()
    tps = ""
    if len(more) > 1:
        tps = (
            '<span class="tps">&nbsp;...'
            + "".join(f'<a href="{e(thread_href(thread, n))}">{n}</a>' for n in range(2, len(more) + 1))
            + "</span>"
        )
    return f"""<tbody id="normalthread_{thread.id}">
<tr>
<td class="icn"><a href="{e(thread_href(thread))}" title="有新回复 - 新窗口打开" target="_blank"><img src="static/image/common/folder_new.gif" /></a></td>
<th class="new"><a href="javascript:;" id="content_{thread.id}" class="showcontent y" title="更多操作" onclick="CONTENT_TID='{thread.id}';CONTENT_ID='normalthread_{thread.id}';showMenu({{'ctrlid':this.id,'menuid':'content_menu'}})"></a>
<a class="tdpre y" href="javascript:void(0);" onclick="previewThread('{thread.id}', 'normalthread_{thread.id}');">预览</a>
 <a href="{e(thread_href(thread))}" onclick="atarget(this)" class="s xst">{e(thread.title)}</a>
{tps}</th>
<td class="by"><cite><a href="home.php?mod=space&amp;uid={first.author.id}" c="1">{e(first.author.name)}</a></cite><em><span>{first.at.year}-{first.at.month}-{first.at.day}</span></em></td>
<td class="num"><a href="{e(thread_href(thread))}" class="xi2">{thread.replies}</a><em>{thread.views}</em></td>
<td class="by"><cite><a href="home.php?mod=space&amp;username={e(last.author.name)}" c="1">{e(last.author.name)}</a></cite><em><a href="forum.php?mod=redirect&amp;tid={thread.id}&amp;goto=lastpost#lastpost">{dz_time(last.at).replace("发表于 ", "")}</a></em></td>
</tr>
</tbody>
"""


def board_page(board: FBoard, page: int) -> str:
    threads = board.pages()[page - 1]
    hrefs = [board_href(board, n) for n in range(1, len(board.pages()) + 1)]
    rows = "".join(thread_row(board, t) for t in threads)
    return (
        head(board.name, "pg_forumdisplay")
        + f"""<div id="wp" class="wp">{crumbs((board_href(board), board.name))}
<div class="boardnav"><div id="ct" class="wp cl"><div class="mn">
<div class="bm bml pbn"><div class="bm_h cl"><h1 class="xs2"><a href="{e(board_href(board))}">{e(board.name)}</a> <span class="xs1 xw0 i">今日: <strong class="xi1">2</strong><span class="pipe">|</span>主题: <strong class="xi1">{len(board.threads)}</strong></span></h1></div>
<div class="bm_c cl pbn"><div>{e(board.description)}</div></div></div>
<div id="pgt" class="bm bw0 pgs cl"><span id="fd_page_top">{pager(hrefs, page)}</span></div>
<div id="threadlist" class="tl bm bmw"><div class="bm_c"><form method="post" autocomplete="off" name="moderate" id="moderate" action="forum.php?mod=topicadmin&amp;action=moderate&amp;fid={board.id}&amp;infloat=yes&amp;nopost=yes">
<table summary="forum_{board.id}" cellspacing="0" cellpadding="0" id="threadlisttableid">
<tbody id="separatorline" class="emptb"><tr class="ts"><td>&nbsp;</td><th>&nbsp;</th><td>&nbsp;</td><td>&nbsp;</td><td>&nbsp;</td></tr></tbody>
{rows}</table></form></div></div>
<div class="bm bw0 pgs cl"><span id="fd_page_bottom">{pager(hrefs, page)}</span></div>
</div></div></div></div>
"""
        + FOOT
    )


def post_body(post: FPost, thread: FThread) -> str:
    parts = []
    if post.edited_at:
        parts.append(
            f'<i class="pstatus"> 本帖最后由 {e(post.author.name)} 于 {post.edited_at.year}-{post.edited_at.month}-{post.edited_at.day} {post.edited_at:%H:%M} 编辑 </i><br />\n<br />\n'
        )
    if post.quote_of:
        quoted = next(p for p in thread.posts if p.id == post.quote_of)
        parts.append(
            f'<div class="quote"><blockquote><font size="2"><a href="forum.php?mod=redirect&amp;goto=findpost&amp;pid={quoted.id}&amp;ptid={thread.id}" target="_blank">'
            f'<font color="#999999">{e(quoted.author.name)} 发表于 {quoted.at.year}-{quoted.at.month}-{quoted.at.day} {quoted.at:%H:%M}</font></a></font><br />\n{e(quoted.paragraphs[0])}</blockquote></div><br />\n'
        )
    parts.extend(f"{e(p)}<br />\n" for p in post.paragraphs)
    if post.code:
        lines = "".join(f"<li>{line}<br /></li>" for line in code_lines(post.code))
        parts.append(
            f'<div class="blockcode"><div id="code_x{post.id}"><ol>{lines}</ol></div><em onclick="copycode($(\'code_x{post.id}\'));">复制代码</em></div>'
        )
    return "".join(parts)


def post_block(post: FPost, thread: FThread) -> str:
    # No <strong><a id="postnum…"> floor: Discuz! renders it only when !IS_ROBOT.
    return f"""<div id="post_{post.id}">
<table id="pid{post.id}" class="plhin" summary="pid{post.id}" cellspacing="0" cellpadding="0">
<tr>
<td class="pls" rowspan="2">
<div id="favatar{post.id}" class="pls favatar"><div class="pi"><div class="authi"><a href="home.php?mod=space&amp;uid={post.author.id}" target="_blank" class="xw1">{e(post.author.name)}</a></div></div>
<div><div class="avatar"><a href="home.php?mod=space&amp;uid={post.author.id}" class="avtm" target="_blank"><img src="uc_server/avatar.php?uid={post.author.id}&amp;size=middle" /></a></div></div></div>
</td>
<td class="plc">
<div class="pi">
<div class="pti"><div class="pdbt"></div>
<div class="authi"><img class="authicn vm" id="authicon{post.id}" src="static/image/common/online_member.gif" />
<em id="authorposton{post.id}">{dz_time(post.at)}</em>
<span class="pipe">|</span><a href="forum.php?mod=viewthread&amp;tid={thread.id}&amp;page=1&amp;authorid={post.author.id}" rel="nofollow">只看该作者</a>
</div></div></div>
<div class="pct"><div class="pcb">
<div class="t_fsz">
<table cellspacing="0" cellpadding="0"><tr><td class="t_f" id="postmessage_{post.id}">
{post_body(post, thread)}</td></tr></table>
</div>
</div></div>
</td></tr>
<tr><td class="plc plm"><div class="sign" style="max-height:100px;maxHeightIE:100px;">签名：好好学习，天天向上</div></td></tr>
</table>
</div>
"""


def thread_page(board: FBoard, thread: FThread, page: int) -> str:
    pages = thread.pages()
    hrefs = [thread_href(thread, n) for n in range(1, len(pages) + 1)]
    posts = "".join(post_block(p, thread) for p in pages[page - 1])
    return (
        head(thread.title, "pg_viewthread")
        + f"""<div id="wp" class="wp">{crumbs((board_href(board), board.name), (thread_href(thread), thread.title))}
<div id="ct" class="wp cl">
<div id="pgt" class="pgs mbm cl "><div class="pgt">{pager(hrefs, page)}</div></div>
<div id="postlist" class="pl bm">
<table cellspacing="0" cellpadding="0"><tr>
<td class="pls ptn pbn"><div class="hm ptn"><span class="xg1">查看:</span> <span class="xi1">{thread.views}</span><span class="pipe">|</span><span class="xg1">回复:</span> <span class="xi1">{thread.replies}</span></div></td>
<td class="plc ptm pbn vwthd"><h1 class="ts"><span id="thread_subject">{e(thread.title)}</span></h1></td>
</tr></table>
{posts}</div>
<div class="pgs mtm mbm cl">{pager(hrefs, page)}</div>
</div></div>
"""
        + FOOT
    )


def denied() -> str:
    return (
        head("提示信息", "pg_viewthread")
        + """<div id="wp" class="wp"><div id="ct" class="wp cl w">
<div class="nfl"><div class="f_c altw"><div id="messagetext" class="alert_error">
<p>抱歉，指定的主题不存在或已被删除或正在被审核</p>
<script type="text/javascript">if(history.length > (BROWSER.ie ? 0 : 1)) {document.write('<p class="alert_btnleft"><a href="javascript:history.back()">[ 点击这里返回上一页 ]</a></p>');}</script>
</div></div></div></div></div>
"""
        + FOOT
    )


def render() -> Site:
    site = Site("discuz", start="/forum.php")
    boards = build()
    add = site.add
    add("/forum.php", index(boards), filename="forum.html", encoding="gbk", content_type=LYING_HEADER)
    for board in boards:
        for page in range(1, len(board.pages()) + 1):
            add(
                "/" + board_href(board, page),
                board_page(board, page),
                filename=f"forumdisplay-{board.id}-{page}.html",
                encoding="gbk",
                content_type="text/html",
            )
        for thread in board.threads:
            if thread.denied:
                add(
                    "/" + thread_href(thread).replace("&extra=page%3D1", ""),
                    denied(),
                    filename=f"viewthread-{thread.id}.html",
                    encoding="gbk",
                    content_type=LYING_HEADER,
                )
                continue
            for page in range(1, len(thread.pages()) + 1):
                target = "/" + thread_href(thread, page).replace("&extra=page%3D1", "")
                add(
                    target,
                    thread_page(board, thread, page),
                    filename=f"viewthread-{thread.id}-{page}.html",
                    encoding="gbk",
                    content_type=LYING_HEADER,
                )
    return site
