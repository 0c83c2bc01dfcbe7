"""Small forum pages for the learner's unit tests, rendered from a few parameters.

Each style mirrors a family of real templates: ``div`` posts with an id per post (phpBB, MyBB),
two table rows per post (phpBB 2 subSilver, vBulletin 3), schema.org microdata (NodeBB,
Invision), a header line holding position, author and date (the project's demo forum).
"""

from __future__ import annotations

from html import escape

BODIES = [
    "Pagination links are the hardest part of forum extraction, said everyone who tried it.",
    "Timestamps may be relative, absolute, or hidden in a title attribute of the date.",
    "A good extractor ignores signatures, ads and navigation chrome around the posts.",
    "今天我们讨论如何抓取论坛的帖子和回复，中文文本需要正确的编码处理。",
    "Quoted replies often repeat text from earlier posts in the same thread, sadly.",
    "Scrapy spiders should respect robots.txt and crawl politely, with a delay.",
]
USERS = [("alice", 2), ("bob", 3), ("carol", 4)]


def page(title: str, body: str, site: str = "Example Forum") -> str:
    return (
        f"<html><head><title>{escape(title)} - {site}</title></head><body>"
        f"<div id='header'><h1>{site}</h1><a href='/login.php'>Login</a></div>"
        f"<div class='breadcrumb'><a href='/index.php'>{site}</a> » <a href='/board.php?b=2'>General</a></div>"
        f"{body}<div id='footer'>Powered by nothing, 2024</div></body></html>"
    )


def div_posts(tid: int, page_no: int, count: int = 4, per_page: int = 4, date_in_title: bool = False) -> str:
    posts = []
    for i in range(count):
        n = (page_no - 1) * per_page + i
        name, uid = USERS[n % 3]
        day = 1 + n
        date = (
            f"<span class='date' title='2024-03-{day:02d} 10:{n:02d}'>{day} Mar '24</span>"
            if date_in_title
            else f"<span class='date'>2024-03-{day:02d} 10:{n:02d}</span>"
        )
        posts.append(
            f"<div class='post' id='post_{tid * 100 + n}'>"
            f"<div class='author'><a href='/member.php?uid={uid}'>{name}</a><br>Posts: {10 + n}</div>"
            f"<div class='head'>{date} <a href='#post_{tid * 100 + n}'>#{n + 1}</a></div>"
            f"<div class='message'>{escape(BODIES[n % len(BODIES)])} [{tid}/{n + 1}]</div>"
            f"<div class='signature'>-- my signature</div></div>"
        )
    pager = "".join(f"<a href='/thread.php?t={tid}&page={p}'>{p}</a> " for p in (1, 2, 3) if p != page_no)
    return page(
        f"Thread number {tid}",
        f"<h2 class='topic'>Thread number {tid}</h2><div id='posts'>{''.join(posts)}</div>"
        f"<div class='pages'>{pager}</div>",
    )


def table_posts(tid: int, start: int, count: int = 3, per_page: int = 3) -> str:
    rows = []
    for i in range(count):
        n = start + i
        name, uid = USERS[n % 3]
        rows.append(
            f"<tr><td class='row1'><b><a href='profile.php?mode=viewprofile&u={uid}'>{name}</a></b></td>"
            f"<td class='row1'>Posted: Mon Mar {4 + n:02d}, 2024 10:{n:02d} am</td></tr>"
            f"<tr><td class='row1'>Joined: 01 Jan 2024</td><td class='row1'>"
            f"<span class='postbody'>{escape(BODIES[n % len(BODIES)])} [{tid}/{n + 1}]</span></td></tr>"
        )
    pager = "".join(
        f"<a href='viewtopic.php?t={tid}&start={s}'>{s // per_page + 1}</a> " for s in (0, 3, 6) if s != start
    )
    return page(
        f"Topic {tid} title",
        f"<table class='forumline'><tr><th>Author</th><th>Message</th></tr>{''.join(rows)}</table>{pager}",
    )


def microdata_posts(tid: int, count: int = 3) -> str:
    posts = []
    for n in range(count):
        name, uid = USERS[n % 3]
        posts.append(
            f"<li itemscope itemtype='https://schema.org/Comment' data-index='{n}' data-pid='{tid * 10 + n}'>"
            f"<a itemprop='author' href='/user/{name}'>{name}</a>"
            f"<meta itemprop='datePublished' content='2024-03-0{n + 1}T10:00:00Z'>"
            f"<div itemprop='text'>{escape(BODIES[n])}</div></li>"
        )
    return page(f"Microdata thread {tid}", f"<h1 itemprop='name'>Microdata thread {tid}</h1><ul>{''.join(posts)}</ul>")


def nested_microdata_posts(tid: int, count: int = 4) -> str:
    """One thread item: the opening post's properties, then the replies nested in it."""

    def item(n: int, prop: str = "") -> str:
        name, _ = USERS[n % 3]
        return (
            f"<div {prop} itemscope itemtype='http://schema.org/DiscussionForumPosting' id='post_{tid * 10 + n}'>"
            f"<span itemprop='author' itemscope itemtype='http://schema.org/Person'>"
            f"<a itemprop='url' href='/u/{name}'><span itemprop='name'>{name}</span></a></span>"
            f"<time itemprop='datePublished' datetime='2024-03-0{n + 1}T10:00:00Z'>Mar {n + 1}</time>"
            f"<span itemprop='position'>{n + 1}</span>"
            f"<div class='post' itemprop='articleBody'>{escape(BODIES[n])} [{tid}/{n + 1}]</div>"
        )

    replies = "".join(item(n, "itemprop='comment'") + "</div>" for n in range(1, count))
    return page(f"Nested {tid}", f"<h1>Nested {tid}</h1>{item(0)}<meta itemprop='headline' content='Nested'>{replies}</div>")


def data_posts(tid: int, style: str, count: int = 3) -> str:
    """A thread page whose posts are only data: JSON-LD (``jsonld``), a JSON script
    (``json``) or a ``window.__STATE__`` assignment (``assign``); the markup is an empty app root."""
    import json

    people = [USERS[n % 3] for n in range(count)]
    if style == "jsonld":
        def item(n: int, kind: str) -> dict[str, object]:
            return {"@type": kind, "url": f"/t/{tid}#post-{tid * 10 + n}", "position": n + 1,
                    "author": {"@type": "Person", "name": people[n][0], "url": f"/u/{people[n][0]}"},
                    "datePublished": f"2024-03-0{n + 1}T10:00:00+00:00", ("articleBody" if n == 0 else "text"): BODIES[n]}
        data = {"@context": "https://schema.org", **item(0, "DiscussionForumPosting"), "headline": f"Data thread {tid}",
                "comment": [item(n, "Comment") for n in range(1, count)]}
        script = f"<script type='application/ld+json'>{json.dumps(data)}</script>"
    else:
        posts = [{"pid": tid * 10 + n, "post_number": n + 1, "created_at": f"2024-03-0{n + 1}T10:00:00Z",
                  "user": {"username": people[n][0], "uid": people[n][1]}, "content": f"<p>{escape(BODIES[n])}</p>"}
                 for n in range(count)]
        blob = json.dumps({"topic": {"tid": tid, "title": f"Data thread {tid}", "posts": posts}, "config": {"a": 1}})
        script = (f"<script type='application/json' id='__DATA__'>{blob}</script>" if style == "json"
                  else f"<script>window.__STATE__ = {blob};</script>")
    return page(f"Data thread {tid}", f"<h1>Data thread {tid}</h1><div id='app'></div>{script}")


def thread_list(board: int, tids: list[int]) -> str:
    rows = "".join(
        f"<tr><td><a href='/thread.php?t={t}'>Thread number {t} about crawling</a></td>"
        f"<td><a href='/member.php?uid=2'>alice</a></td><td>12</td><td>2024-03-0{1 + i}</td></tr>"
        for i, t in enumerate(tids)
    )
    return page(f"Board {board}", f"<table class='threads'>{rows}</table>")
