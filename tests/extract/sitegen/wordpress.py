"""WordPress 6.1 fixture blogs (theme Twenty Twenty-One), modelled on the saved reference pages.

``wordpress``: the REST API answers (``X-WP-Total``/``X-WP-TotalPages`` headers, ``_embed`` of
author and terms, comments with ``parent``). ``wordpress_html``: the same blog with the API
closed to guests (401 ``rest_not_logged_in``), so the spider must fall back to HTML: index
pages, article pages, ``/comment-page-N/`` and ``<!--nextpage-->`` parts.
The site runs in Asia/Shanghai: HTML ``datetime`` values carry +08:00, the API ``date_gmt`` is UTC.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from tests.extract.sitegen.blog import (
    COMMENTS_PER_PAGE,
    POSTS_PER_PAGE,
    BComment,
    BPost,
    build_blog,
)
from tests.extract.sitegen.common import Site, code_lines, e

ORIGIN = "http://fixture.invalid"
BLOG = "Acceptance Blog 验收博客"
JSON = "application/json; charset=UTF-8"


def local(at: datetime) -> str:
    return at.isoformat()


def gmt(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


def body(post: BPost, part: int) -> str:
    html = "".join(f"<p>{e(p)}</p>\n" for p in post.parts[part])
    if post.code and part == 0:
        html += '<pre><code class="language-python">' + "\n".join(code_lines(post.code)) + "\n</code></pre>\n"
    return html


def head(title: str, extra: str = "") -> str:
    return f"""<!doctype html>
<html lang="en-US" >
<head>
	<meta charset="UTF-8" />
	<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>{e(title)}</title>
<meta name='robots' content='max-image-preview:large' />
<link rel="alternate" type="application/rss+xml" title="{BLOG} &raquo; Feed" href="{ORIGIN}/feed/" />
<link rel="alternate" type="application/rss+xml" title="{BLOG} &raquo; Comments Feed" href="{ORIGIN}/comments/feed/" />
<link rel='stylesheet' id='twenty-twenty-one-style-css' href='{ORIGIN}/wp-content/themes/twentytwentyone/style.css?ver=1.7' media='all' />
<link rel="https://api.w.org/" href="{ORIGIN}/wp-json/" />
<link rel="EditURI" type="application/rsd+xml" title="RSD" href="{ORIGIN}/xmlrpc.php?rsd" />
{extra}<meta name="generator" content="WordPress 6.1.9" />
</head>
<body class="home blog wp-embed-responsive is-light-theme no-js hfeed has-main-navigation">
<div id="page" class="site">
	<a class="skip-link screen-reader-text" href="#content">Skip to content</a>
<header id="masthead" class="site-header has-title-and-tagline has-menu" role="banner"><div class="site-branding"><p class="site-title"><a href="{ORIGIN}/">{BLOG}</a></p></div></header>
	<div id="content" class="site-content"><div id="primary" class="content-area"><main id="main" class="site-main">
"""


FOOT = f"""</main><!-- #main --></div><!-- #primary --></div><!-- #content -->
<aside class="widget-area"><section id="block-4" class="widget widget_block"><div class="wp-block-group__inner-container"><h2>Recent Comments</h2><ol class="wp-block-latest-comments"><li class="wp-block-latest-comments__comment"><article><footer class="wp-block-latest-comments__comment-meta"><a class="wp-block-latest-comments__comment-author" href="{ORIGIN}/author/bob/">Bob Li</a> on <a class="wp-block-latest-comments__comment-link" href="{ORIGIN}/2024/01/post-03/#comment-504">Post 03</a></footer></article></li></ol></div></section></aside>
<footer id="colophon" class="site-footer" role="contentinfo"><div class="powered-by">Proudly powered by <a href="https://wordpress.org/">WordPress</a>.</div></footer>
</div><!-- #page -->
</body>
</html>
"""


def taxonomies(post: BPost) -> str:
    cats = ", ".join(
        f'<a href="{ORIGIN}/category/c{i}/" rel="category tag">{e(c)}</a>'
        for i, c in enumerate(post.categories)
    )
    tags = ", ".join(f'<a href="{ORIGIN}/tag/t{i}/" rel="tag">{e(t)}</a>' for i, t in enumerate(post.tags))
    return f'<div class="post-taxonomies"><span class="cat-links">Categorized as {cats} </span><span class="tags-links">Tagged {tags}</span></div>'


def index_page(posts: list[BPost], page: int, pages: int) -> str:
    items = "".join(
        f"""<article id="post-{p.id}" class="post-{p.id} post type-post status-publish format-standard hentry entry">
	<header class="entry-header">
	<h2 class="entry-title default-max-width"><a href="{ORIGIN}{p.path}">{e(p.title)}</a></h2></header><!-- .entry-header -->
	<div class="entry-content"><p>{e(p.parts[0][0])} <a href="{ORIGIN}{p.path}#more-{p.id}" class="more-link">Continue reading</a></p></div>
	<footer class="entry-footer default-max-width"><span class="posted-on">Published <time class="entry-date published updated" datetime="{local(p.at)}">{p.at:%B} {p.at.day}, {p.at.year}</time></span>{taxonomies(p)}</footer>
</article><!-- #post-{p.id} -->
"""
        for p in posts
    )
    nav = ""
    if pages > 1:
        links = "".join(
            f'<span aria-current="page" class="page-numbers current">Page {n}</span>'
            if n == page
            else f'<a class="page-numbers" href="{ORIGIN}/{"" if n == 1 else f"page/{n}/"}">Page {n}</a>'
            for n in range(1, pages + 1)
        )
        if page < pages:
            links += f'<a class="next page-numbers" href="{ORIGIN}/page/{page + 1}/"><span class="nav-next-text">Older <span class="nav-short">posts</span></span></a>'
        nav = f'<nav class="navigation pagination" aria-label="Posts"><h2 class="screen-reader-text">Posts navigation</h2><div class="nav-links">{links}</div></nav>'
    return head(BLOG) + items + nav + FOOT


def comment_li(c: BComment, post: BPost, depth: int, children: list[BComment]) -> str:
    kids = ""
    if children:
        kids = (
            '<ol class="children">'
            + "".join(comment_li(k, post, depth + 1, []) for k in children)
            + "</ol><!-- .children -->"
        )
    return f"""<li id="comment-{c.id}" class="comment even thread-even depth-{depth}{" parent" if children else ""}">
			<article id="div-comment-{c.id}" class="comment-body">
				<footer class="comment-meta">
					<div class="comment-author vcard"><b class="fn">{e(c.author)}</b> <span class="says">says:</span></div><!-- .comment-author -->
					<div class="comment-metadata"><a href="{ORIGIN}{post.path}#comment-{c.id}"><time datetime="{local(c.at)}">{c.at:%B} {c.at.day}, {c.at.year} at {c.at.hour % 12 or 12}:{c.at:%M} {"am" if c.at.hour < 12 else "pm"}</time></a></div><!-- .comment-metadata -->
				</footer><!-- .comment-meta -->
				<div class="comment-content"><p>{e(c.text)}</p></div><!-- .comment-content -->
				<div class="reply"><a rel='nofollow' class='comment-reply-link' href='{ORIGIN}{post.path}?replytocom={c.id}#respond' data-commentid="{c.id}" data-postid="{post.id}">Reply</a></div>			</article><!-- .comment-body -->
		{kids}</li><!-- #comment-## -->
"""


def comments_block(post: BPost, cpage: int) -> str:
    pages = post.comment_pages()
    if not post.comments:
        return ""
    threads = "".join(comment_li(t[0], post, 1, t[1:]) for t in pages[cpage - 1])
    nav = ""
    if len(pages) > 1:
        links = "".join(
            f'<span aria-current="page" class="page-numbers current">Page {n}</span>'
            if n == cpage
            else f'<a class="page-numbers" href="{ORIGIN}{post.path}{"" if n == 1 else f"comment-page-{n}/"}#comments">Page {n}</a>'
            for n in range(1, len(pages) + 1)
        )
        if cpage < len(pages):
            links += f'<a class="next page-numbers" href="{ORIGIN}{post.path}comment-page-{cpage + 1}/#comments"><span class="nav-next-text">Newer comments</span></a>'
        nav = f'<nav class="navigation comments-pagination" aria-label="Comments"><h2 class="screen-reader-text">Comments navigation</h2><div class="nav-links">{links}</div></nav>'
    count = len(post.comments)
    return f"""<div id="comments" class="comments-area default-max-width show-avatars">
			<h2 class="comments-title">
							{count} comment{"s" if count != 1 else ""}					</h2><!-- .comments-title -->
		<ol class="comment-list">
{threads}		</ol><!-- .comment-list -->
		{nav}
</div><!-- #comments -->
"""


def article_page(post: BPost, part: int = 0, cpage: int = 1) -> str:
    page_links = ""
    if len(post.parts) > 1:
        page_links = (
            '<nav class="page-links" aria-label="Page">'
            + "".join(
                f' <span class="post-page-numbers current" aria-current="page">Page {n + 1}</span>'
                if n == part
                else f' <a href="{ORIGIN}{post.path}{"" if n == 0 else f"{n + 1}/"}" class="post-page-numbers">Page {n + 1}</a>'
                for n in range(len(post.parts))
            )
            + "</nav>"
        )
    canonical = f'<link rel="canonical" href="{ORIGIN}{post.path}{"" if part == 0 else f"{part + 1}/"}" />\n'
    return (
        head(f"{post.title} – {BLOG}", canonical)
        + f"""<article id="post-{post.id}" class="post-{post.id} post type-post status-publish format-standard hentry entry">
	<header class="entry-header alignwide">
		<h1 class="entry-title">{e(post.title)}</h1>			</header><!-- .entry-header -->
	<div class="entry-content">
		{body(post, part)}{page_links}	</div><!-- .entry-content -->
	<footer class="entry-footer default-max-width">
		<div class="posted-by"><span class="posted-on">Published <time class="entry-date published updated" datetime="{local(post.at)}">{post.at:%B} {post.at.day}, {post.at.year}</time></span><span class="byline">By <a href="{ORIGIN}/author/{post.author.slug}/" rel="author">{e(post.author.name)}</a></span></div>{taxonomies(post)}	</footer><!-- .entry-footer -->
</article><!-- #post-{post.id} -->
{comments_block(post, cpage) if part == 0 or cpage > 1 else ""}"""
        + FOOT
    )


def term(name: str, taxonomy: str, n: int) -> dict[str, Any]:
    return {
        "id": n,
        "link": f"{ORIGIN}/{'category' if taxonomy == 'category' else 'tag'}/x{n}/",
        "name": name,
        "slug": f"x{n}",
        "taxonomy": taxonomy,
    }


def post_json(post: BPost) -> dict[str, Any]:
    content = "\n<!--nextpage-->\n".join(body(post, n) for n in range(len(post.parts)))
    return {
        "id": post.id,
        "date": post.at.replace(tzinfo=None).isoformat(),
        "date_gmt": gmt(post.at),
        "guid": {"rendered": f"{ORIGIN}/?p={post.id}"},
        "modified": post.at.replace(tzinfo=None).isoformat(),
        "modified_gmt": gmt(post.at),
        "slug": post.slug,
        "status": "publish",
        "type": "post",
        "link": f"{ORIGIN}{post.path}",
        "title": {"rendered": e(post.title)},
        "content": {"rendered": content, "protected": False},
        "excerpt": {"rendered": f"<p>{e(post.parts[0][0])}</p>\n", "protected": False},
        "author": post.author.id,
        "comment_status": "open",
        "categories": [],
        "tags": [],
        "_embedded": {
            "author": [{"id": post.author.id, "name": post.author.name, "slug": post.author.slug}],
            "wp:term": [
                [term(c, "category", i) for i, c in enumerate(post.categories)],
                [term(t, "post_tag", 10 + i) for i, t in enumerate(post.tags)],
            ],
        },
    }


def comment_json(c: BComment, post: BPost) -> dict[str, Any]:
    return {
        "id": c.id,
        "post": post.id,
        "parent": c.parent or 0,
        "author": 0,
        "author_name": c.author,
        "author_url": "",
        "date": c.at.replace(tzinfo=None).isoformat(),
        "date_gmt": gmt(c.at),
        "content": {"rendered": f"<p>{e(c.text)}</p>\n"},
        "link": f"{ORIGIN}{post.path}#comment-{c.id}",
        "status": "approved",
        "type": "comment",
    }


def wp_headers(total: int, per_page: int) -> dict[str, str]:
    return {"X-WP-Total": str(total), "X-WP-TotalPages": str((total + per_page - 1) // per_page)}


def render_site(name: str, api: bool) -> Site:
    site = Site(name, start="/", kind="blog", spider="wordpress", args={"per_page": str(POSTS_PER_PAGE)})
    posts = build_blog()
    pages = [posts[i : i + POSTS_PER_PAGE] for i in range(0, len(posts), POSTS_PER_PAGE)]
    for n, chunk in enumerate(pages, 1):
        site.add(
            "/" if n == 1 else f"/page/{n}/", index_page(chunk, n, len(pages)), filename=f"index-{n}.html"
        )
    for post in posts:
        site.add(post.path, article_page(post), filename=f"{post.slug}.html")
        for part in range(1, len(post.parts)):
            site.add(
                f"{post.path}{part + 1}/",
                article_page(post, part),
                filename=f"{post.slug}-part{part + 1}.html",
            )
        for cpage in range(2, len(post.comment_pages()) + 1):
            site.add(
                f"{post.path}comment-page-{cpage}/",
                article_page(post, 0, cpage),
                filename=f"{post.slug}-comment-page-{cpage}.html",
            )
    posts_route = "/wp-json/wp/v2/posts?per_page={pp}&page={n}&_embed=author,wp:term"
    if not api:
        refused = json.dumps(
            {
                "code": "rest_not_logged_in",
                "message": "You are not currently logged in.",
                "data": {"status": 401},
            }
        )
        site.add(
            posts_route.format(pp=POSTS_PER_PAGE, n=1),
            refused,
            filename="wp-json-refused.json",
            content_type=JSON,
            status=401,
        )
        return site
    for n, chunk in enumerate(pages, 1):
        site.add(
            posts_route.format(pp=POSTS_PER_PAGE, n=n),
            json.dumps([post_json(p) for p in chunk], ensure_ascii=False),
            filename=f"wp-json-posts-{n}.json",
            content_type=JSON,
            headers=wp_headers(len(posts), POSTS_PER_PAGE),
        )
    for post in posts:
        ordered = sorted(post.comments, key=lambda c: c.at, reverse=True)  # the API's default order
        chunks = [ordered[i : i + COMMENTS_PER_PAGE] for i in range(0, len(ordered), COMMENTS_PER_PAGE)] or [
            []
        ]
        for n, chunk in enumerate(chunks, 1):
            site.add(
                f"/wp-json/wp/v2/comments?post={post.id}&per_page={COMMENTS_PER_PAGE}&page={n}",
                json.dumps([comment_json(c, post) for c in chunk], ensure_ascii=False),
                filename=f"wp-json-comments-{post.id}-{n}.json",
                content_type=JSON,
                headers=wp_headers(len(post.comments), COMMENTS_PER_PAGE),
            )
    return site


def render() -> Site:
    return render_site("wordpress", api=True)


def render_html_only() -> Site:
    return render_site("wordpress_html", api=False)
