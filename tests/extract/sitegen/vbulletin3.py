"""vBulletin 3.8 fixture site: the same engine as ``vbulletin`` (4.2), in its 3.x table markup.

Crawled with ``scrapy crawl vbulletin`` (the manifest's spider); its pages must be detected as
engine ``vbulletin`` and read by the nested version :class:`crawler.profiles.vbulletin.VBulletin3`.

Quirks reproduced from the 3.8 templates (headinclude, navbar, FORUMHOME, FORUMDISPLAY,
threadbit, SHOWTHREAD, postbit_legacy, bbcode_quote/code, pagenav, STANDARD_ERROR):

* ``<meta name="generator" content="vBulletin 3.8.11">``, ``clientscript/vbulletin_global.js``;
* an ISO-8859-1 board: every non-Latin character is a numeric character reference (``&#24352;``);
* ``s=<32 hex>`` session ids on every link, ``index.php`` as the forum home;
* breadcrumbs in ``span.navbar``, the page's own name in ``td.navbar > strong``;
* thread rows ``tbody#threadbits_forum_{f} > tr`` with ``a#thread_title_{t}``, the starter as a
  ``<span onclick="window.open('member.php?u=…')">``, the last post as ``02-28-2013 <span
  class="time">10:33 PM</span><br />by …`` (no comma), replies via ``misc.php?do=whoposted``;
* posts ``table#post{id}``: ``td.thead`` with ``<a name="post{id}">`` and ``Today, 10:33 PM`` /
  ``Yesterday, …`` / ``02-28-2013, 10:33 PM``, floor ``a#postcount{id}[name=N]`` linking to
  ``showpost.php?p={id}&postcount=N``, ``a.bigusername``, ``div#post_message_{id}``, edit note
  ``div.smallfont > em``, signature after ``__________________``;
* quotes with no class of their own (``div.smallfont`` "Quote:" + ``td.alt2``), ``pre.alt2`` code;
* ``div.pagenav`` with ``a[rel=next][title^="Next Page"]``;
* the guest "no permission" page (HTTP 200) with a login form.
"""

from __future__ import annotations

from tests.extract.sitegen.common import Site, code_lines, e
from tests.extract.sitegen.content import SITE_NAME, FBoard, FPost, FThread, build
from tests.extract.sitegen.vbulletin import S, vb_date

VERSION = "3.8.11"
CHARSET = "ISO-8859-1"


def board_href(board: FBoard, page: int = 1) -> str:
    return f"forumdisplay.php?{S}&amp;f={board.id}" + (
        f"&amp;page={page}" if page > 1 else ""
    )


def thread_href(thread: FThread, page: int = 1) -> str:
    return f"showthread.php?{S}&amp;t={thread.id}" + (
        f"&amp;page={page}" if page > 1 else ""
    )


def member_href(user_id: int) -> str:
    return f"member.php?{S}&amp;u={user_id}"


def head(title: str) -> str:
    return f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" dir="ltr" lang="en">
<head>
<meta http-equiv="Content-Type" content="text/html; charset={CHARSET}" />
<meta name="generator" content="vBulletin {VERSION}" />
<meta name="keywords" content="vbulletin,forum,bbs,discussion,bulletin board" />
<meta name="description" content="This is a discussion forum powered by vBulletin." />
<!-- CSS Stylesheet -->
<style type="text/css" id="vbulletin_css">
/**
* vBulletin {VERSION} CSS
* Style: 'Default Style'; Style ID: 1
*/
@import url("clientscript/vbulletin_css/style-2f4d8a11-00001.css");
</style>
<link rel="stylesheet" type="text/css" href="clientscript/vbulletin_important.css?v=3811" />
<!-- / CSS Stylesheet -->
<script type="text/javascript" src="clientscript/yui/yahoo-dom-event/yahoo-dom-event.js?v=3811"></script>
<script type="text/javascript" src="clientscript/yui/connection/connection-min.js?v=3811"></script>
<script type="text/javascript">
<!--
var SESSIONURL = "{S}&";
var SECURITYTOKEN = "guest";
var IMGDIR_MISC = "images/misc";
var vb_disable_ajax = parseInt("0", 10);
// -->
</script>
<script type="text/javascript" src="clientscript/vbulletin_global.js?v=3811"></script>
<script type="text/javascript" src="clientscript/vbulletin_menu.js?v=3811"></script>
<link rel="alternate" type="application/rss+xml" title="{e(SITE_NAME)} RSS Feed" href="external.php?type=RSS2" />
<title>{e(title)}</title>
</head>
<body>
<!-- logo -->
<a name="top"></a>
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center">
<tr>
	<td class="alt1" width="100%"><a href="index.php?{S}"><img src="images/misc/vbulletin3_logo_white.gif" border="0" alt="{e(SITE_NAME)}" /></a></td>
	<td align="right" id="header_right_cell">&nbsp;</td>
</tr>
</table>
<!-- /logo -->
<!-- content table -->
<!-- open content container -->
<div align="center">
	<div class="page" style="width:100%; text-align:left">
		<div style="padding:0px 25px 0px 25px" align="left">
<br />
"""


def navbar(links: list[tuple[str, str]], current: tuple[str, str] | None) -> str:
    """Breadcrumbs: the forum home, then ``> link`` per level; the page itself in bold below."""
    crumbs = "".join(
        f' <span class="navbar">&gt; <a href="{href}">{e(name)}</a></span>'
        for href, name in links
    )
    if current is None:
        bottom = ""
        first = f'<td width="100%"><strong>{e(SITE_NAME)}</strong></td>'
    else:
        first = f'<td width="100%"><span class="navbar"><a href="index.php?{S}" accesskey="1">{e(SITE_NAME)}</a></span>{crumbs}</td>'
        bottom = f"""
		<tr>
			<td class="navbar" style="font-size:10pt; padding-top:1px" colspan="3"><a href="{current[0]}"><img class="inlineimg" src="images/misc/navbits_finallink_ltr.gif" alt="Reload this Page" border="0" /></a> <strong>
	{e(current[1])}
</strong></td>
		</tr>"""
    return f"""<!-- breadcrumb, login, pm info -->
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center">
<tr>
	<td class="alt1" width="100%">
		<table cellpadding="0" cellspacing="0" border="0">
		<tr valign="bottom">
			<td><a href="#" onclick="history.back(1); return false;"><img src="images/misc/navbits_start.gif" alt="Go Back" border="0" /></a></td>
			<td>&nbsp;</td>
			{first}
		</tr>{bottom}
		</table>
	</td>
	<td class="alt2" nowrap="nowrap" style="padding:0px">
		<!-- login form -->
		<form action="login.php?{S}&amp;do=login" method="post" onsubmit="md5hash(vb_login_password, vb_login_md5password, vb_login_md5password_utf, 0)">
		<script type="text/javascript" src="clientscript/vbulletin_md5.js?v=3811"></script>
		<table cellpadding="0" cellspacing="3" border="0">
		<tr>
			<td class="smallfont" style="white-space: nowrap;"><label for="navbar_username">User Name</label></td>
			<td><input type="text" class="bginput" style="font-size: 11px" name="vb_login_username" id="navbar_username" size="10" accesskey="u" tabindex="101" value="User Name" /></td>
			<td class="smallfont" nowrap="nowrap"><label for="cb_cookieuser_navbar"><input type="checkbox" name="cookieuser" value="1" tabindex="103" id="cb_cookieuser_navbar" accesskey="c" />Remember Me?</label></td>
		</tr>
		<tr>
			<td class="smallfont"><label for="navbar_password">Password</label></td>
			<td><input type="password" class="bginput" style="font-size: 11px" name="vb_login_password" id="navbar_password" size="10" tabindex="102" /></td>
			<td><input type="submit" class="button" value="Log in" tabindex="104" title="Enter your username and password in the boxes provided to login, or click the 'register' button to create a profile for yourself." accesskey="s" /></td>
		</tr>
		</table>
		<input type="hidden" name="s" value="{S[2:]}" />
		<input type="hidden" name="securitytoken" value="guest" />
		<input type="hidden" name="do" value="login" />
		</form>
		<!-- / login form -->
	</td>
</tr>
</table>
<!-- / breadcrumb, login, pm info -->
<!-- nav buttons bar -->
<div class="tborder" style="padding:1px; border-top-width:0px">
	<table cellpadding="0" cellspacing="0" border="0" width="100%" align="center">
	<tr align="center">
		<td class="vbmenu_control"><a href="register.php?{S}" rel="nofollow">Register</a></td>
		<td class="vbmenu_control"><a rel="help" href="faq.php?{S}" accesskey="5">FAQ</a></td>
		<td class="vbmenu_control"><a href="memberlist.php?{S}">Members List</a></td>
		<td class="vbmenu_control"><a href="calendar.php?{S}">Calendar</a></td>
		<td class="vbmenu_control"><a href="search.php?{S}&amp;do=getdaily" accesskey="2">Today's Posts</a></td>
		<td class="vbmenu_control"><a id="navbar_search" href="search.php?{S}" accesskey="4" rel="nofollow">Search</a></td>
	</tr>
	</table>
</div>
<!-- / nav buttons bar -->
<br />
"""


FOOT = f"""<br />
<div class="smallfont" align="center">All times are GMT +8. The time now is <span class="time">12:00 PM</span>.</div>
<br />
		</div>
	</div>
</div>
<!-- / close content container -->
<!-- /content area table -->
<form action="index.php" method="get" style="clear:left">
<table cellpadding="6" cellspacing="0" border="0" width="100%" class="page" align="center">
<tr>
	<td class="tfoot" align="right" width="100%">
		<div class="smallfont">
			<strong>
				<a href="sendmessage.php?{S}" rel="nofollow" accesskey="9">Contact Us</a> -
				<a href="archive/index.php">Archive</a> -
				<a href="#top" onclick="self.scrollTo(0, 0); return false;">Top</a>
			</strong>
		</div>
	</td>
</tr>
</table>
<br />
<div align="center">
	<div class="smallfont" align="center">
	<!-- Do not remove this copyright notice -->
	Powered by vBulletin&reg; Version {VERSION}<br />Copyright &copy;2000 - 2024, vBulletin Solutions, Inc.
	<!-- Do not remove this copyright notice -->
	</div>
	<div class="smallfont" align="center">
	<!-- Do not remove cronimage or your scheduled tasks will cease to function -->
	<img src="cron.php?{S}&amp;rand=1709352000" alt="" width="1" height="1" border="0" />
	<!-- Do not remove cronimage or your scheduled tasks will cease to function -->
	</div>
</div>
</form>
<script type="text/javascript">
<!--
	// Main vBulletin Javascript Initialization
	vBulletin_init();
//-->
</script>
</body>
</html>
"""


def pagenav(hrefs: list[str], current: int, per_page: int, total: int) -> str:
    if len(hrefs) < 2:
        return ""

    def shown(n: int) -> str:
        return f"{(n - 1) * per_page + 1} to {min(n * per_page, total)} of {total}"

    cells = "".join(
        f'<td class="alt2"><span class="smallfont" title="Showing results {shown(n)}"><strong>{n}</strong></span></td>'
        if n == current
        else f'<td class="alt1"><a class="smallfont" href="{h}" title="Show results {shown(n)}">{n}</a></td>'
        for n, h in enumerate(hrefs, 1)
    )
    prev = (
        f'<td class="alt1"><a rel="prev" class="smallfont" href="{hrefs[current - 2]}" title="Prev Page - Results {shown(current - 1)}">&lt;</a></td>'
        if current > 1
        else ""
    )
    nxt = (
        f'<td class="alt1"><a rel="next" class="smallfont" href="{hrefs[current]}" title="Next Page - Results {shown(current + 1)}">&gt;</a></td>'
        if current < len(hrefs)
        else ""
    )
    return f"""<div class="pagenav" align="right">
<table class="tborder" cellpadding="3" cellspacing="1" border="0">
<tr>
	<td class="vbmenu_control" style="font-weight:normal">Page {current} of {len(hrefs)}</td>
	{prev}{cells}{nxt}
	<td class="vbmenu_control" title="{hrefs[0]}"><a name="PageNav"></a></td>
</tr>
</table>
</div>"""


def index(boards: list[FBoard]) -> str:
    rows = ""
    for b in boards:
        last = max((t.posts[-1] for t in b.threads if not t.denied), key=lambda p: p.at)
        thread = next(t for t in b.threads if last in t.posts)
        day, time = vb_date(last.at)
        rows += f"""<tr align="center">
	<td class="alt2"><img src="images/statusicon/forum_old.gif" alt="" border="0" id="forum_statusicon_{b.id}" /></td>
	<td class="alt1Active" align="left" id="f{b.id}">
		<div>
			<a href="{board_href(b)}"><strong>{e(b.name)}</strong></a>
		</div>
		<div class="smallfont">{e(b.description)}</div>
	</td>
	<td class="alt2" nowrap="nowrap">
		<div class="smallfont" align="left">
			<div style="clear:both">
				<a href="showthread.php?{S}&amp;goto=lastpost&amp;t={thread.id}" title="Go to first unread post in thread '{e(thread.title)}'"><strong>{e(thread.title)}</strong></a>
			</div>
			<div>by <a href="member.php?{S}&amp;find=lastposter&amp;f={b.id}" rel="nofollow">{e(last.author.name)}</a></div>
			<div align="right">{day} <span class="time">{time}</span> <a href="showthread.php?{S}&amp;p={last.id}#post{last.id}"><img class="inlineimg" src="images/buttons/lastpost.gif" alt="Go to last post" border="0" /></a></div>
		</div>
	</td>
	<td class="alt1">{len(b.threads)}</td>
	<td class="alt2">{sum(len(t.posts) for t in b.threads)}</td>
</tr>
"""
    return (
        head(f"{SITE_NAME} - Powered by vBulletin")
        + navbar([], None)
        + f"""<!-- main -->
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center">
<thead>
	<tr align="center">
		<td class="thead">&nbsp;</td>
		<td class="thead" width="100%" align="left">Forum</td>
		<td class="thead" width="175">Last Post</td>
		<td class="thead">Threads</td>
		<td class="thead">Posts</td>
	</tr>
</thead>
<!-- level 1 category -->
<tbody>
	<tr>
		<td class="tcat" colspan="5">
			<a style="float:right" href="#top" onclick="return toggle_collapse('forumbit_1')"><img id="collapseimg_forumbit_1" src="images/buttons/collapse_tcat.gif" alt="" border="0" /></a>
			<a href="forumdisplay.php?{S}&amp;f=1">Main Category</a>
		</td>
	</tr>
</tbody>
<tbody id="collapseobj_forumbit_1" style="">
{rows}</tbody>
<!-- / level 1 category -->
</table>
<!-- /main -->
"""
        + FOOT
    )


def threadbit(thread: FThread) -> str:
    first, last = thread.posts[0], thread.posts[-1]
    day, time = vb_date(last.at)
    pages = len(thread.pages())
    multipage = ""
    if pages > 1:
        links = " ".join(
            f'<a href="{thread_href(thread, n)}">{n}</a>' for n in range(1, pages + 1)
        )
        multipage = f'<span class="smallfont" style="white-space:nowrap">(<img class="inlineimg" src="images/misc/multipage.gif" alt="Multi-page thread" border="0" /> {links})</span>'
    preview = e(first.paragraphs[0][:60])
    return f"""<tr>
	<td class="alt1" id="td_threadstatusicon_{thread.id}">
		<img src="images/statusicon/thread{"_hot" if thread.views > 1000 else ""}.gif" id="thread_statusicon_{thread.id}" alt="" border="" />
	</td>
	<td class="alt2"><img src="images/icons/icon1.gif" alt="" border="0" /></td>
	<td class="alt1" id="td_threadtitle_{thread.id}" title="{preview}">
		<div>
			<a href="{thread_href(thread)}" id="thread_title_{thread.id}">{e(thread.title)}</a>
			{multipage}
		</div>
		<div class="smallfont">
			<span style="cursor:pointer" onclick="window.open('{member_href(first.author.id).replace("&amp;", "&")}', '_self')">{e(first.author.name)}</span>
		</div>
	</td>
	<td class="alt2" title="Replies: {thread.replies}, Views: {thread.views:,}">
		<div class="smallfont" style="text-align:right; white-space:nowrap">
			{day} <span class="time">{time}</span><br />
			by <a href="member.php?{S}&amp;find=lastposter&amp;t={thread.id}" rel="nofollow">{e(last.author.name)}</a>  <a href="showthread.php?{S}&amp;goto=lastpost&amp;t={thread.id}"><img class="inlineimg" src="images/buttons/lastpost.gif" alt="Go to last post" border="0" /></a>
		</div>
	</td>
	<td class="alt1" align="center"><a href="misc.php?do=whoposted&amp;t={thread.id}" onclick="who({thread.id}); return false;">{thread.replies}</a></td>
	<td class="alt2" align="center">{thread.views:,}</td>
</tr>
"""


def board_page(board: FBoard, page: int) -> str:
    pages = board.pages()
    hrefs = [board_href(board, n) for n in range(1, len(pages) + 1)]
    nav = pagenav(hrefs, page, len(pages[0]), len(board.threads))
    rows = "".join(threadbit(t) for t in pages[page - 1])
    sort = f"forumdisplay.php?{S}&amp;f={board.id}&amp;daysprune=-1&amp;order=desc"
    return (
        head(f"{board.name} - {SITE_NAME}")
        + navbar([], (board_href(board), board.name))
        + f"""<!-- controls above thread list -->
<table cellpadding="0" cellspacing="0" border="0" width="100%" style="margin-bottom:3px">
<tr valign="bottom">
	<td class="smallfont"><a href="newthread.php?{S}&amp;do=newthread&amp;f={board.id}" rel="nofollow"><img src="images/buttons/newthread.gif" alt="Post New Thread" border="0" /></a></td>
	<td align="right">{nav}</td>
</tr>
</table>
<!-- / controls above thread list -->
<form action="inlinemod.php?forumid={board.id}" method="post" id="inlinemodform">
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center" id="threadslist">
<tr>
	<td class="tcat" colspan="6">Threads in Forum<span class="normal"> : {e(board.name)}</span></td>
</tr>
<tr>
	<td class="thead" colspan="2">&nbsp;</td>
	<td class="thead" width="100%"><a href="{sort}&amp;sort=title" rel="nofollow">Thread</a> / <a href="{sort}&amp;sort=postusername" rel="nofollow">Thread Starter</a></td>
	<td class="thead" width="150" align="center" nowrap="nowrap"><span style="white-space:nowrap"><a href="{sort}&amp;sort=lastpost" rel="nofollow">Last Post</a></span></td>
	<td class="thead" align="center" nowrap="nowrap"><span style="white-space:nowrap"><a href="{sort}&amp;sort=replycount" rel="nofollow">Replies</a></span></td>
	<td class="thead" align="center" nowrap="nowrap"><span style="white-space:nowrap"><a href="{sort}&amp;sort=views" rel="nofollow">Views</a></span></td>
</tr>
<!-- show threads -->
<tbody id="threadbits_forum_{board.id}">
{rows}</tbody>
<!-- end show threads -->
</table>
</form>
<!-- controls below thread list -->
<table cellpadding="0" cellspacing="0" border="0" width="100%" style="margin-top:3px">
<tr valign="top">
	<td class="smallfont"><a href="newthread.php?{S}&amp;do=newthread&amp;f={board.id}" rel="nofollow"><img src="images/buttons/newthread.gif" alt="Post New Thread" border="0" /></a></td>
	<td align="right">{nav}</td>
</tr>
</table>
<!-- / controls below thread list -->
"""
        + FOOT
    )


def post_body(post: FPost, thread: FThread) -> str:
    parts = []
    if post.quote_of:
        q = next(p for p in thread.posts if p.id == post.quote_of)
        parts.append(f"""<div style="margin:20px; margin-top:5px; ">
	<div class="smallfont" style="margin-bottom:2px">Quote:</div>
	<table cellpadding="6" cellspacing="0" border="0" width="100%">
	<tr>
		<td class="alt2" style="border:1px inset">
			<div>
				Originally Posted by <strong>{e(q.author.name)}</strong>
				<a href="showthread.php?{S}&amp;p={q.id}#post{q.id}" rel="nofollow"><img class="inlineimg" src="images/buttons/viewpost.gif" border="0" alt="View Post" /></a>
			</div>
			<div style="font-style:italic">{e(q.paragraphs[0])}</div>
		</td>
	</tr>
	</table>
</div>""")
    parts.append("<br />\n".join(e(p) for p in post.paragraphs))
    if post.code:
        lines = code_lines(post.code)
        parts.append(
            f"""<div style="margin:20px; margin-top:5px">
	<div class="smallfont" style="margin-bottom:2px">Code:</div>
	<pre class="alt2" dir="ltr" style="
		margin: 0px;
		padding: 6px;
		border: 1px inset;
		width: 640px;
		height: {len(lines) * 12 + 34}px;
		text-align: left;
		overflow: auto">"""
            + "\n".join(lines)
            + "</pre>\n</div>"
        )
    return "\n".join(parts)


def postbit(post: FPost, thread: FThread, position: int, last: bool) -> str:
    day, time = vb_date(post.at)
    edited = ""
    if post.edited_at:
        eday, etime = vb_date(post.edited_at)
        edited = f"""
		<!-- edit note -->
			<div class="smallfont">
				<hr size="1" style="color:#D1D1E1; background-color:#D1D1E1" />
				<em>
					Last edited by {e(post.author.name)}; {eday} at <span class="time">{etime}</span>.
				</em>
			</div>
		<!-- / edit note -->"""
    title = (
        f"""
		<!-- icon and title -->
		<div class="smallfont">
			<strong>{e(thread.title)}</strong>
		</div>
		<hr size="1" style="color:#D1D1E1; background-color:#D1D1E1" />
		<!-- / icon and title -->"""
        if position == 1
        else ""
    )
    name = e(post.author.name)
    return f"""<!-- post #{post.id} -->
	<!-- open content container -->
<div align="center">
	<div class="page" style="width:100%; text-align:left">
		<div style="padding:0px 25px 0px 25px" align="left">
	<div id="edit{post.id}" style="padding:0px 0px 6px 0px">
	<!-- this is {"" if last else "not "}the last post shown on the page -->
<table id="post{post.id}" class="tborder" cellpadding="6" cellspacing="0" border="0" width="100%" align="center">
<tr>
	<td class="thead" style="font-weight:normal; border: 1px solid #D1D1E1; border-right: 0px" >
		<!-- status icon and date -->
		<a name="post{post.id}"><img class="inlineimg" src="images/statusicon/post_old.gif" alt="Old" border="0" /></a>
		{day}, {time}
		<!-- / status icon and date -->
	</td>
	<td class="thead" style="font-weight:normal; border: 1px solid #D1D1E1; border-left: 0px" align="right">
		&nbsp;
		<a href="showpost.php?{S}&amp;p={post.id}&amp;postcount={position}" target="new" rel="nofollow" id="postcount{post.id}" name="{position}"><strong>#{position}</strong></a>
	</td>
</tr>
<tr valign="top">
	<td class="alt2" width="175" style="border: 1px solid #D1D1E1; border-top: 0px; border-bottom: 0px">
			<div id="postmenu_{post.id}">
				<a class="bigusername" href="{member_href(post.author.id)}">{name}</a>
				<script type="text/javascript"> vbmenu_register("postmenu_{post.id}", true); </script>
			</div>
			<div class="smallfont">Junior Member</div>
			<div class="smallfont">
				&nbsp;<br />
				<div>Join Date: Jan 2024</div>
				<div>Posts: {post.author.id * 3}</div>
			</div>
	</td>
	<td class="alt1" id="td_post_{post.id}" style="border-right: 1px solid #D1D1E1">{title}
		<!-- message -->
		<div id="post_message_{post.id}">
			{post_body(post, thread)}
		</div>
		<!-- / message -->{edited}
		<!-- sig -->
			<div>
				__________________<br />
				签名 signature
			</div>
		<!-- / sig -->
	</td>
</tr>
<tr>
	<td class="alt2" style="border: 1px solid #D1D1E1; border-top: 0px">
		<img class="inlineimg" src="images/statusicon/user_offline.gif" alt="{name} is offline" border="0" />
	</td>
	<td class="alt1" align="right" style="border: 1px solid #D1D1E1; border-left: 0px; border-top: 0px">
		<!-- controls -->
		<a href="newreply.php?{S}&amp;do=newreply&amp;p={post.id}" rel="nofollow"><img src="images/buttons/quote.gif" alt="Reply With Quote" border="0" /></a>
		<!-- / controls -->
	</td>
</tr>
</table>
<!-- post {post.id} popup menu -->
<div class="vbmenu_popup" id="postmenu_{post.id}_menu" style="display:none">
	<table cellpadding="4" cellspacing="1" border="0">
	<tr>
		<td class="thead">{name}</td>
	</tr>
	<tr><td class="vbmenu_option"><a href="{member_href(post.author.id)}">View Public Profile</a></td></tr>
	<tr><td class="vbmenu_option"><a href="search.php?{S}&amp;do=finduser&amp;u={post.author.id}" rel="nofollow">Find More Posts by {name}</a></td></tr>
	</table>
</div>
<!-- / post {post.id} popup menu -->
	</div>
		</div>
	</div>
</div>
<!-- / close content container -->
<!-- / post #{post.id} -->"""


def thread_page(board: FBoard, thread: FThread, page: int) -> str:
    pages = thread.pages()
    hrefs = [thread_href(thread, n) for n in range(1, len(pages) + 1)]
    nav = pagenav(hrefs, page, len(pages[0]), len(thread.posts))
    start = (page - 1) * len(pages[0])
    chunk = pages[page - 1]
    posts = "".join(
        postbit(p, thread, start + i + 1, last=i == len(chunk) - 1)
        for i, p in enumerate(chunk)
    )
    return (
        head(f"{thread.title} - {SITE_NAME}")
        + navbar(
            [(board_href(board), board.name)], (thread_href(thread, page), thread.title)
        )
        + f"""<a name="poststop" id="poststop"></a>
<!-- controls above postbits -->
<table cellpadding="0" cellspacing="0" border="0" width="100%" style="margin-bottom:3px">
<tr valign="bottom">
	<td class="smallfont"><a href="newreply.php?{S}&amp;do=newreply&amp;noquote=1&amp;p={chunk[-1].id}" rel="nofollow"><img src="images/buttons/reply.gif" alt="Reply" border="0" /></a></td>
	<td align="right">{nav}</td>
</tr>
</table>
<!-- / controls above postbits -->
<!-- toolbar -->
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center" style="border-bottom-width:0px">
<tr>
	<td class="tcat" width="100%">
		<div class="smallfont">&nbsp;</div>
	</td>
	<td class="vbmenu_control" id="threadtools" nowrap="nowrap">
		<a href="showthread.php?{S}&amp;t={thread.id}&amp;nojs=1#goto_threadtools">Thread Tools</a>
		<script type="text/javascript"> vbmenu_register("threadtools"); </script>
	</td>
</tr>
</table>
<!-- / toolbar -->
<!-- end content table -->
		</div>
	</div>
</div>
<!-- / close content container -->
<!-- / end content table -->
<div id="posts">{posts}<div id="lastpost"></div></div>
<!-- start content table -->
<!-- open content container -->
<div align="center">
	<div class="page" style="width:100%; text-align:left">
		<div style="padding:0px 25px 0px 25px" align="left">
<!-- / start content table -->
<!-- controls below postbits -->
<table cellpadding="0" cellspacing="0" border="0" width="100%" style="margin-top:-3px">
<tr valign="top">
	<td class="smallfont"><a href="newreply.php?{S}&amp;do=newreply&amp;noquote=1&amp;p={chunk[-1].id}" rel="nofollow"><img src="images/buttons/reply.gif" alt="Reply" border="0" /></a></td>
	<td align="right">{nav}</td>
</tr>
</table>
<!-- / controls below postbits -->
"""
        + FOOT
    )


def no_permission() -> str:
    return (
        head(f"{SITE_NAME}")
        + navbar([], ("#", "vBulletin Message"))
        + f"""<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="70%" align="center">
<tr>
	<td class="tcat">vBulletin Message</td>
</tr>
<tr>
	<td class="panelsurround" align="center">
	<div class="panel">
		<div align="left">
			<!-- main error message -->
			<div style="margin: 10px">You are not logged in or you do not have permission to access this page. This could be due to one of several reasons:</div>
			<ol>
				<li>You are not logged in. Fill in the form at the bottom of this page and try again.</li>
				<li>You may not have sufficient privileges to access this page. Are you trying to edit someone else's post, access administrative features or some other privileged system?</li>
				<li>If you are trying to post, the administrator may have disabled your account, or it may be awaiting activation.</li>
			</ol>
			<!-- / main error message -->
		</div>
	</div>
	<form action="login.php?{S}&amp;do=login" method="post">
	<fieldset class="fieldset">
		<legend>Log in</legend>
		<table cellpadding="0" cellspacing="3" border="0" align="center">
		<tr><td>User Name:<br /><input type="text" class="bginput" name="vb_login_username" size="50" /></td></tr>
		<tr><td>Password:<br /><input type="password" class="bginput" name="vb_login_password" size="50" /></td></tr>
		</table>
	</fieldset>
	</form>
	</td>
</tr>
</table>
"""
        + FOOT
    )


def latin1(html: str) -> str:
    """What an ISO-8859-1 vBulletin 3 board sends: everything outside Latin-1 as ``&#NNNN;``."""
    return html.encode(CHARSET, "xmlcharrefreplace").decode(CHARSET)


def route(href: str) -> str:
    return "/" + href.replace(S + "&amp;", "").replace("&amp;", "&")


def render() -> Site:
    site = Site(
        "vbulletin3",
        start="/index.php",
        timezone="Asia/Shanghai",
        spider="vbulletin",
        profile="vbulletin",
    )
    content_type = f"text/html; charset={CHARSET}"

    def add(target: str, html: str, filename: str) -> None:
        site.add(
            target,
            latin1(html),
            filename=filename,
            encoding=CHARSET,
            content_type=content_type,
        )

    boards = build()
    add("/index.php", index(boards), "index.html")
    for board in boards:
        for page in range(1, len(board.pages()) + 1):
            add(
                route(board_href(board, page)),
                board_page(board, page),
                f"forumdisplay-{board.id}-{page}.html",
            )
        for thread in board.threads:
            if thread.denied:
                add(
                    route(thread_href(thread)),
                    no_permission(),
                    f"showthread-{thread.id}.html",
                )
                continue
            for page in range(1, len(thread.pages()) + 1):
                add(
                    route(thread_href(thread, page)),
                    thread_page(board, thread, page),
                    f"showthread-{thread.id}-{page}.html",
                )
    return site
