"""A Hugo blog (PaperMod-like theme): the generic ``blog`` spider's fixture.

Discovery needs all three sources: the RSS feed (``/index.xml``) lists only the 5 newest posts
(Hugo's ``rssLimit``), the home pagination shows 6, and only ``sitemap.xml`` (named in
``robots.txt``) has all 7. Article pages declare ``og:type=article``,
``article:published_time``/``article:tag`` and a ``BlogPosting`` JSON-LD; tag pages in the
sitemap are listings, not articles. Comments are a JavaScript widget (giscus) and absent.
"""

from __future__ import annotations

import json
from datetime import datetime
from email.utils import format_datetime

from tests.extract.sitegen.blog import BPost, build_blog
from tests.extract.sitegen.common import Site, code_lines, e

ORIGIN = "http://fixture.invalid"
BLOG = "Hugo 测试博客"
PER_PAGE = 3
HOME_PAGES = 2
RSS_LIMIT = 5


def path(p: BPost) -> str:
    return f"/posts/{p.slug}/"


def head(title: str, extra: str = "") -> str:
    return f"""<!DOCTYPE html>
<html lang="zh" dir="auto">
<head><meta charset="utf-8">
<meta http-equiv="X-UA-Compatible" content="IE=edge">
<meta name="viewport" content="width=device-width, initial-scale=1, shrink-to-fit=no">
<meta name="robots" content="index, follow">
<title>{e(title)}</title>
<meta name="generator" content="Hugo 0.121.1">
<link rel="stylesheet" href="/assets/css/stylesheet.min.css">
<link rel="alternate" type="application/rss+xml" href="{ORIGIN}/index.xml">
{extra}</head>
<body class="list" id="top">
<header class="header"><nav class="nav"><div class="logo"><a href="{ORIGIN}/" accesskey="h" title="{BLOG} (Alt + H)">{BLOG}</a></div>
<ul id="menu"><li><a href="{ORIGIN}/posts/" title="Posts"><span>Posts</span></a></li><li><a href="{ORIGIN}/tags/" title="Tags"><span>Tags</span></a></li></ul></nav></header>
<main class="main">
"""


FOOT = f"""</main>
<footer class="footer"><span>&copy; 2024 <a href="{ORIGIN}/">{BLOG}</a></span> · <span>Powered by <a href="https://gohugo.io/" rel="noopener noreferrer" target="_blank">Hugo</a> &amp; <a href="https://github.com/adityatelange/hugo-PaperMod/" rel="noopener" target="_blank">PaperMod</a></span></footer>
<script src="/assets/js/highlight.min.js"></script>
</body>
</html>
"""


def entry(p: BPost) -> str:
    return f"""<article class="post-entry">
<header class="entry-header"><h2 class="entry-hint-parent">{e(p.title)}</h2></header>
<div class="entry-content"><p>{e(p.parts[0][0])}</p></div>
<footer class="entry-footer"><span title="{p.at.isoformat()}">{p.at:%B %d, %Y}</span>&nbsp;·&nbsp;{e(p.author.name)}</footer>
<a class="entry-link" aria-label="post link to {e(p.title)}" href="{ORIGIN}{path(p)}"></a>
</article>
"""


def home(posts: list[BPost], page: int) -> str:
    chunk = posts[(page - 1) * PER_PAGE : page * PER_PAGE]
    nav = '<footer class="page-footer"><nav class="pagination">'
    if page > 1:
        nav += f'<a class="prev" href="{ORIGIN}/{"" if page == 2 else f"page/{page - 1}/"}">« Prev</a>'
    if page < HOME_PAGES:
        nav += f'<a class="next" href="{ORIGIN}/page/{page + 1}/">Next »</a>'
    nav += "</nav></footer>"
    nxt = f'<link rel="next" href="{ORIGIN}/page/{page + 1}/">\n' if page < HOME_PAGES else ""
    return head(BLOG, nxt) + "".join(entry(p) for p in chunk) + nav + FOOT


def body(p: BPost) -> str:
    html = "".join(f"<p>{e(x)}</p>\n" for part in p.parts for x in part)
    if p.code:
        html += (
            '<div class="highlight"><pre tabindex="0" class="chroma"><code class="language-python" data-lang="python">'
            + "\n".join(code_lines(p.code))
            + "</code></pre></div>\n"
        )
    return html


def article(p: BPost) -> str:
    ld = {
        "@context": "https://schema.org",
        "@type": "BlogPosting",
        "headline": p.title,
        "name": p.title,
        "datePublished": p.at.isoformat(),
        "dateModified": p.at.isoformat(),
        "author": [{"@type": "Person", "name": p.author.name}],
        "mainEntityOfPage": {"@type": "WebPage", "@id": f"{ORIGIN}{path(p)}"},
        "keywords": p.tags,
    }
    meta = (
        f'<link rel="canonical" href="{ORIGIN}{path(p)}">\n<meta name="author" content="{e(p.author.name)}">\n'
        f'<meta property="og:title" content="{e(p.title)}">\n<meta property="og:type" content="article">\n'
        f'<meta property="og:url" content="{ORIGIN}{path(p)}">\n<meta property="article:section" content="posts">\n'
        f'<meta property="article:published_time" content="{p.at.isoformat()}">\n<meta property="article:modified_time" content="{p.at.isoformat()}">\n'
        + "".join(f'<meta property="article:tag" content="{e(t)}">\n' for t in p.tags)
        + f'<script type="application/ld+json">{json.dumps(ld, ensure_ascii=False)}</script>\n'
    )
    tags = "".join(f'<li><a href="{ORIGIN}/tags/{t}/">{e(t)}</a></li>' for t in p.tags)
    return (
        head(f"{p.title} | {BLOG}", meta)
        + f"""<article class="post-single">
<header class="post-header"><div class="breadcrumbs"><a href="{ORIGIN}/">Home</a>&nbsp;»&nbsp;<a href="{ORIGIN}/posts/">Posts</a></div>
<h1 class="post-title entry-hint-parent">{e(p.title)}</h1>
<div class="post-meta"><span title="{p.at.isoformat()}">{p.at:%B %d, %Y}</span>&nbsp;·&nbsp;{e(p.author.name)}</div></header>
<div class="post-content">{body(p)}</div>
<footer class="post-footer"><ul class="post-tags">{tags}</ul>
<nav class="paginav"><a class="prev" href="{ORIGIN}/"><span class="title">« Prev</span></a></nav></footer>
<div class="giscus"></div><script src="https://giscus.app/client.js" data-repo="x/y" async></script>
</article>
"""
        + FOOT
    )


def rss(posts: list[BPost]) -> str:
    items = "".join(
        f"""<item><title>{e(p.title)}</title><link>{ORIGIN}{path(p)}</link><pubDate>{format_datetime(p.at)}</pubDate><guid>{ORIGIN}{path(p)}</guid><description>{e(p.parts[0][0])}</description></item>
"""
        for p in posts[:RSS_LIMIT]
    )
    return f"""<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>{BLOG}</title><link>{ORIGIN}/</link><description>Recent content</description><generator>Hugo</generator><language>zh</language>
<atom:link href="{ORIGIN}/index.xml" rel="self" type="application/rss+xml" />
{items}</channel></rss>
"""


def tag_page(tag: str, posts: list[BPost]) -> str:
    return (
        head(f"{tag} | {BLOG}")
        + f'<header class="page-header"><h1>{e(tag)}</h1></header>'
        + "".join(entry(p) for p in posts if tag in p.tags)
        + FOOT
    )


def sitemap(posts: list[BPost], tags: list[str], last: datetime) -> str:
    urls = [
        f"{ORIGIN}/",
        f"{ORIGIN}/posts/",
        *(f"{ORIGIN}{path(p)}" for p in posts),
        *(f"{ORIGIN}/tags/{t}/" for t in tags),
    ]
    entries = "".join(f"<url><loc>{u}</loc><lastmod>{last.isoformat()}</lastmod></url>" for u in urls)
    return f'<?xml version="1.0" encoding="utf-8" standalone="yes"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">{entries}</urlset>\n'


def render() -> Site:
    site = Site("hugo", start="/", kind="blog", spider="blog")
    posts = build_blog()
    tags = sorted({t for p in posts for t in p.tags})
    for page in range(1, HOME_PAGES + 1):
        site.add("/" if page == 1 else f"/page/{page}/", home(posts, page), filename=f"index-{page}.html")
    site.add("/posts/", home(posts, 1), filename="posts.html")
    for p in posts:
        site.add(path(p), article(p), filename=f"{p.slug}.html")
    for t in tags:
        site.add(
            f"/tags/{t}/",
            tag_page(t, posts),
            filename=f"tag-{len(t)}-{abs(hash(t)) % 1000}.html" if not t.isascii() else f"tag-{t}.html",
        )
    site.add("/index.xml", rss(posts), filename="index.xml", content_type="application/rss+xml")
    site.add(
        "/robots.txt",
        f"User-agent: *\nDisallow:\nSitemap: {ORIGIN}/sitemap.xml\n",
        filename="robots.txt",
        content_type="text/plain",
    )
    site.add(
        "/sitemap.xml",
        sitemap(posts, tags, posts[0].at),
        filename="sitemap.xml",
        content_type="application/xml",
    )
    return site
