"""Small forums in the URL, pager, layout and date forms of issue 26, written as fixture sites.

Each form is a function that returns :class:`Forum`: its pages by route and what a reader must
get from it (posts per thread, with author and calendar day). :func:`write_site` writes the
pages and a ``routes.json`` for :class:`crawler.demo.fixture_server.FixtureServer`. The markup
imitates what the engines behind the WEB-FORUM-52 pages and the unprofiled engines of the
issue render; nothing in it is shaped after the learner's rules.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path

from crawler.demo.fixture_server import route_key

__all__ = ["FORMS", "Forum", "Post", "write_site"]

_TEXTS = [
    "I upgraded the firmware last night and the fan noise is finally gone, thanks to everyone here.",
    "Did you also reset the controller afterwards? Mine kept the old curve until I did that twice.",
    "No reset needed here, but I had to clear the cache folder before the new profile showed up.",
    "Same experience on the older model, the only difference is that it takes a minute to settle.",
    "Has anybody measured the temperatures before and after? I would like to see some real numbers.",
    "Forty-two degrees idle before, thirty-eight now, measured with the same probe in the same room.",
    "That matches what the support people told me on the phone, they called it a known issue.",
]
_NAMES = ["alice", "bruno", "chloe", "dieter", "emma", "farid", "greta"]


@dataclass
class Post:
    author: str
    day: str  # YYYY-MM-DD, the calendar day the page shows
    text: str


@dataclass
class Forum:
    pages: dict[str, str] = field(default_factory=dict)
    #: Thread key -> its posts in reading order (all pages).
    threads: dict[str, list[Post]] = field(default_factory=dict)
    #: Routes answered with another status or type: route -> (status, content type, body).
    raw: dict[str, tuple[int, str, bytes]] = field(default_factory=dict)


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)} - Test Forum</title>"
            f"</head><body><div id='header'><a href='/'>Test Forum</a></div>{body}"
            "<div id='footer'>Powered by nothing in particular</div></body></html>")


def _posts(seed: int, count: int, days: list[str]) -> list[Post]:
    return [Post(_NAMES[(seed + i) % len(_NAMES)], days[i % len(days)], f"{_TEXTS[(seed + i) % len(_TEXTS)]} ({seed}-{i})")
            for i in range(count)]


def _listing(links: list[tuple[str, str]], title: str = "Hardware") -> str:
    rows = "".join(f"<li class='thread'><a class='title' href='{h}'>{html.escape(t)}</a> <span>3 replies</span></li>"
                   for h, t in links)
    return _page(title, f"<h1>{title}</h1><ul class='threads'>{rows}</ul>")


# -- forms ---------------------------------------------------------------------------------------
def icon_pager() -> Forum:
    """``/threads/<id>/`` with pages at ``?page=2``, linked only by icons beside "Page 1 of 2"."""
    forum = Forum()
    forum.pages["/"] = _listing([(f"/threads/{t}/", f"Fan noise after update number {t}") for t in (11, 12, 13)])
    for tid in (11, 12, 13):
        pages = 2 if tid == 11 else 1
        posts = _posts(tid, 4 * pages, ["2024-03-0" + str(d) for d in range(1, 9)])
        forum.threads[str(tid)] = posts
        for number in range(1, pages + 1):
            chunk = posts[(number - 1) * 4 : number * 4]
            items = "".join(
                f"<article class='message' id='post-{tid}{number}{i}'><div class='user'><a class='username' "
                f"href='/members/{p.author}/'>{p.author}</a></div><div class='main'><time datetime='{p.day}T10:0{i}:00Z'>"
                f"{p.day}</time><div class='body'>{p.text}</div></div></article>" for i, p in enumerate(chunk))
            back = f"<a href='?page={number - 1}' aria-hidden='true'><i class='icon-left'></i></a>" if number > 1 else ""
            fwd = f"<a href='?page={number + 1}'><i class='icon-right'></i></a>" if number < pages else ""
            pager = f"<div class='pager'>{back}<span>Page {number} of {pages}</span>{fwd}</div>"
            route = f"/threads/{tid}/" + (f"?page={number}" if number > 1 else "")
            forum.pages[route] = _page(f"Fan noise after update number {tid}", f"<h1>Fan noise {tid}</h1>{pager}{items}{pager}")
    return forum


def slug_and_id() -> Forum:
    """``/t/<slug>/<id>/`` and ``/t/<slug>/<id>/<page>/``, posts as schema.org microdata."""
    forum = Forum()
    slugs = {21: "fan-noise", 22: "bios-settings", 23: "cable-question"}
    forum.pages["/"] = _listing([(f"/t/{s}/{t}/", s.replace("-", " ").title()) for t, s in slugs.items()])
    for tid, slug in slugs.items():
        pages = 2 if tid == 22 else 1
        posts = _posts(tid, 3 * pages, ["2024-04-1" + str(d) for d in range(9)])
        forum.threads[str(tid)] = posts
        for number in range(1, pages + 1):
            chunk = posts[(number - 1) * 3 : number * 3]
            items = "".join(
                f"<div class='topic-post' itemscope itemtype='http://schema.org/DiscussionForumPosting'>"
                f"<span itemprop='author' itemscope itemtype='http://schema.org/Person'><span itemprop='name'>{p.author}</span></span>"
                f"<time itemprop='datePublished' datetime='{p.day}T08:00:00Z'>{p.day}</time>"
                f"<div class='cooked' itemprop='text'>{p.text}</div></div>" for p in chunk)
            links = "".join(f"<a href='/t/{slug}/{tid}/{n}/'>{n}</a> " if n > 1 else f"<a href='/t/{slug}/{tid}/'>1</a> "
                            for n in range(1, pages + 1))
            route = f"/t/{slug}/{tid}/" + (f"{number}/" if number > 1 else "")
            forum.pages[route] = _page(slug, f"<h1>{slug}</h1><div class='posts'>{items}</div><nav>{links}</nav>")
    return forum


def query_routes() -> Forum:
    """Routes in the query string: ``/?forum-1.htm``, ``/?thread-<id>.htm``, ``/?thread-<id>-<page>.htm``."""
    forum = Forum()
    forum.pages["/"] = _page("Index", "<a href='?forum-1.htm'>Hardware</a>")
    forum.pages["/?forum-1.htm"] = _listing([(f"?thread-{t}.htm", f"Question number {t} about cables") for t in (31, 32, 33)])
    for tid in (31, 32, 33):
        pages = 2 if tid == 31 else 1
        posts = _posts(tid, 5 * pages, ["2023-11-2" + str(d) for d in range(9)])
        forum.threads[str(tid)] = posts
        for number in range(1, pages + 1):
            chunk = posts[(number - 1) * 5 : number * 5]
            items = "".join(
                f"<li class='media post' data-pid='{tid}{number}{i}'><div class='media-body'><span class='username'>"
                f"<a href='?user-{_NAMES.index(p.author) + 1}.htm'>{p.author}</a></span> <span class='date'>{p.day} 09:1{i}</span>"
                f"<div class='message'>{p.text}</div></div></li>" for i, p in enumerate(chunk))
            links = "".join(f"<a href='?thread-{tid}-{n}.htm'>{n}</a> " for n in range(1, pages + 1)) if pages > 1 else ""
            route = f"/?thread-{tid}.htm" if number == 1 else f"/?thread-{tid}-{number}.htm"
            forum.pages[route] = _page(f"Question {tid}", f"<h1>Question {tid}</h1><ul class='postlist'>{items}</ul>"
                                       f"<div class='pagination'>{links}</div>")
        if pages > 1:
            forum.pages[f"/?thread-{tid}-1.htm"] = forum.pages[f"/?thread-{tid}.htm"]
    return forum


_GERMAN_MONTHS = {"01": "Januar", "03": "März", "06": "Juni", "12": "Dezember"}


def table_rows_german() -> Forum:
    """A table of posts, two rows each (the user cell beside a dated header, then the text
    row), German dates ("14. Juni 2020 10:23"), names without profile links."""
    forum = Forum()
    forum.pages["/"] = _listing([(f"/viewthread-1-{t}.html", f"Verstärker Frage {t}") for t in (41, 42, 43)], "Verstärker")
    for tid in (41, 42, 43):
        posts = _posts(tid, 4, ["2020-06-14", "2020-03-08", "2019-12-24", "2020-01-02"])
        forum.threads[str(tid)] = posts
        rows = []
        for i, p in enumerate(posts):
            year, month, day = p.day.split("-")
            shown = f"{int(day)}. {_GERMAN_MONTHS[month]} {year} 10:2{i}"
            rows.append(f"<tr><td class='profile' rowspan='2'><b>{p.author}</b><br><span>Mitglied seit 2011</span></td>"
                        f"<td class='head'>#{i + 1} erstellt: {shown}</td></tr>"
                        f"<tr><td class='text'><div class='posting'>{p.text}</div></td></tr>")
        forum.pages[f"/viewthread-1-{tid}.html"] = _page(f"Verstärker Frage {tid}",
                                                         f"<h1>Verstärker Frage {tid}</h1><table class='posts'>{''.join(rows)}</table>")
    return forum


_FRENCH_MONTHS = {"01": "Jan", "02": "Fév", "07": "Juil", "10": "Oct"}
_FRENCH_DAYS = ["Lun", "Mar", "Mer", "Jeu", "Ven", "Sam", "Dim"]


def french_bylines() -> Forum:
    """phpBB-like posts with "par NAME » Lun 8 Jan 2018 15:33" bylines and a subject line."""
    forum = Forum()
    forum.pages["/"] = _listing([(f"/sujet-t{t}.html", f"Question de crédit {t}") for t in (51, 52, 53)], "Forum")
    for tid in (51, 52, 53):
        posts = _posts(tid, 4, ["2018-01-08", "2018-02-14", "2018-07-05", "2017-10-29"])
        forum.threads[str(tid)] = posts
        items = []
        for i, p in enumerate(posts):
            year, month, day = p.day.split("-")
            shown = f"{_FRENCH_DAYS[i]} {int(day)} {_FRENCH_MONTHS[month]} {year} 15:3{i}"
            items.append(f"<div id='p{tid}{i}' class='post bg{i % 2 + 1}'><div class='postbody'>"
                         f"<h3><a href='#p{tid}{i}'>Re: Question de crédit {tid}</a></h3>"
                         f"<p class='author'>par <a href='/membre{_NAMES.index(p.author) + 1}/'>{p.author}</a> » {shown}</p>"
                         f"<div class='content'>{p.text}</div></div></div>")
        forum.pages[f"/sujet-t{tid}.html"] = _page(f"Question de crédit {tid}", f"<h2>Question {tid}</h2>{''.join(items)}")
    return forum


def empty_body() -> Forum:
    """The icon-pager forum, with one more thread link whose page is a 200 with no body."""
    forum = icon_pager()
    forum.pages["/"] = forum.pages["/"].replace("</ul>", "<li class='thread'><a class='title' href='/threads/14/'>"
                                                "An empty page here</a> <span>0 replies</span></li></ul>")
    forum.raw["/threads/14/"] = (200, "text/html; charset=utf-8", b"")
    return forum


def next_cycle() -> Forum:
    """Thread pages linked by rel=next only, the last page's "next" pointing back to the first."""
    forum = Forum()
    forum.pages["/"] = _listing([(f"/topic/{t}", f"Long discussion number {t}") for t in (61, 62, 63)])
    for tid in (61, 62, 63):
        pages = 3 if tid == 61 else 1
        posts = _posts(tid, 3 * pages, ["2022-05-1" + str(d) for d in range(9)])
        forum.threads[str(tid)] = posts
        for number in range(1, pages + 1):
            chunk = posts[(number - 1) * 3 : number * 3]
            items = "".join(
                f"<div class='entry' id='msg{tid}{number}{i}'><a class='poster' href='/profile/{p.author}'>{p.author}</a>"
                f" <span class='when'>{p.day} 12:0{i}</span><div class='text'>{p.text}</div></div>" for i, p in enumerate(chunk))
            nxt = f"/topic/{tid}/{number % pages + 1}" if pages > 1 else ""
            link = f"<a rel='next' href='{nxt}'>Next</a>" if nxt else ""
            route = f"/topic/{tid}" if number == 1 else f"/topic/{tid}/{number}"
            forum.pages[route] = _page(f"Discussion {tid}", f"<h1>Discussion {tid}</h1>{items}{link}")
        if pages > 1:
            forum.pages[f"/topic/{tid}/1"] = forum.pages[f"/topic/{tid}"]
    return forum


FORMS = {
    "icon_pager": icon_pager,
    "slug_and_id": slug_and_id,
    "query_routes": query_routes,
    "table_rows_german": table_rows_german,
    "french_bylines": french_bylines,
    "empty_body": empty_body,
    "next_cycle": next_cycle,
}


def write_site(forum: Forum, folder: Path) -> None:
    """The forum's pages as files plus the ``routes.json`` the fixture server reads."""
    routes: dict[str, dict[str, object]] = {}
    for index, (route, page) in enumerate(sorted(forum.pages.items())):
        name = f"page{index}.html"
        (folder / name).write_text(page, encoding="utf-8")
        routes[route_key(route)] = {"file": name, "content_type": "text/html; charset=utf-8"}
    for index, (route, (status, content_type, body)) in enumerate(sorted(forum.raw.items())):
        name = f"raw{index}.bin"
        (folder / name).write_bytes(body)
        routes[route_key(route)] = {"file": name, "content_type": content_type, "status": status}
    manifest = {"date": "Mon, 01 Jul 2024 00:00:00 GMT", "start": "/", "routes": routes}
    (folder / "routes.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
