#!/usr/bin/env python
"""Derive the learner's extra fixture forums from captured lab pages (run after capture_site.py --learned).

    python scripts/derive_learn_fixtures.py

* ``learned_datetitle`` (from ``learned_mybb``): the date shown as "6 Mar '24", the full date and
  time only in a ``title`` attribute (as MyBB does for recent posts, Discourse and XenForo
  always).
* ``learned_cn_dateonly`` (from ``learned_discuz``): a Chinese engine that shows dates without a
  time ("发表于 2024-4-4") and repeats the opening post on top of every later thread page.
* ``learned_table`` (from ``learned_smf``'s truth): a table layout in the style of phpBB 2's
  subSilver, two table rows per post, ``start=`` offset pagination, no post ids in the markup.
* ``learned_microdata`` (from ``learned_smf``'s truth; hand-modelled, no installable engine
  marks posts up this way): every post a schema.org ``DiscussionForumPosting`` (``Person``
  author, ``datePublished``, ``articleBody``, a ``url`` permalink), no position shown, thread
  and board pages linked only by ``rel=next``; board rows show replies, views and the last
  post time; dates shown day-first ("08/03/2024 14:05").

* ``learned_slugs`` (from ``learned_mybb``): thread URLs with no number, as bbPress and other
  WordPress forum plugins write them (``/forums/topic/how-do-i-paginate/``, later pages
  ``/forums/topic/<slug>/page/N/``; a title shown twice gets ``-2``, ``-3`` as WordPress's
  unique slugs do). Only the URLs change; the pages are MyBB's.

* ``learned_siblings`` (from ``learned_phorum``): each post's wrapper taken away, so that a
  post is a header block (author, date) and then its body block, siblings with no wrapper of
  their own (as bbPress and other themes render posts), anchors between the posts.

The truth of each derived site is its source's truth (same posts, same threads).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawler.demo.fixture_server import route_key  # noqa: E402
from tests.sitekit import SITES  # noqa: E402
from crawler.learn.dom import parse  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "profiles"
FAKE = "http://fixture.invalid"


def _site(out: Path) -> Path:
    """The site folder of the fixture ``out`` (``tests/fixtures/profiles/<name>``)."""
    return SITES / out.name


def _fresh(target: str) -> Path:
    """Remove fixture ``target`` and its site; return its (absent) fixture folder."""
    out = FIXTURES / target
    for folder in (out, _site(out)):
        if folder.exists():
            shutil.rmtree(folder)
    return out


def _copy(source: str, target: str) -> Path:
    out = _fresh(target)
    shutil.copytree(FIXTURES / source, out, ignore=shutil.ignore_patterns("expected.json"))
    shutil.copytree(SITES / source, _site(out))
    return out


def date_in_title() -> None:
    out = _copy("learned_mybb", "learned_datetitle")
    shown = re.compile(r'<span class="post_date">(\d{2})-(\d{2})-(\d{4}), (\d{2}):(\d{2}) (AM|PM)')
    for page in _site(out).glob("*.html"):
        text = page.read_text(encoding="utf-8")

        def title(m: re.Match[str]) -> str:
            month, day, year, hour, minute, ampm = m.groups()
            at = datetime(int(year), int(month), int(day), int(hour) % 12 + (12 if ampm == "PM" else 0), int(minute))
            short = f"{at.day} {at:%b} '{at:%y}"
            return f'<span class="post_date"><span title="{at:%Y-%m-%d %H:%M}">{short}</span>'

        page.write_text(shown.sub(title, text), encoding="utf-8")


def chinese_date_only() -> None:
    out = _copy("learned_discuz", "learned_cn_dateonly")
    manifest = json.loads((_site(out) / "routes.json").read_text(encoding="utf-8"))
    manifest["timezone"] = "Asia/Shanghai"
    (_site(out) / "routes.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    files = {k: _site(out) / v["file"] for k, v in manifest["routes"].items()}
    openers: dict[str, str] = {}
    for key, path in files.items():
        match = re.search(r"mod=viewthread&tid=(\d+)$", key) or re.search(r"tid=(\d+)&mod=viewthread$", key)
        if match and "page=" not in key:
            root = parse(path.read_bytes())
            first = root.xpath("//div[@id='postlist']/div[starts-with(@id, 'post_')]")
            if first:
                openers[match.group(1)] = etree.tostring(first[0], encoding="unicode", method="html")
    for key, path in files.items():
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"发表于 (\d{4}-\d{1,2}-\d{1,2}) \d{1,2}:\d{2}:\d{2}", r"发表于 \1", text)
        tid = re.search(r"tid=(\d+)", key)
        page = re.search(r"[?&]page=(\d+)", key)
        if tid and page and int(page.group(1)) > 1 and tid.group(1) in openers:
            text = re.sub(r'(<div id="postlist"[^>]*>)', lambda m: m.group(1) + openers[tid.group(1)], text, count=1)
        path.write_text(text, encoding="utf-8")


def table_layout() -> None:
    source = json.loads((FIXTURES / "learned_smf" / "truth.json").read_text(encoding="utf-8"))
    out = _fresh("learned_table")
    out.mkdir(parents=True)
    _site(out).mkdir(parents=True)
    per_page, routes, threads = 10, {}, []
    boards: dict[str, list[dict[str, object]]] = {}
    for number, thread in enumerate(source["threads"], 1):
        thread = dict(thread, id=number, url=f"{FAKE}/viewtopic.php?t={number}")
        posts = []
        for post in thread["posts"]:
            start = (post["position"] - 1) // per_page * per_page
            url = f"{FAKE}/viewtopic.php?t={number}" + (f"&start={start}" if start else "")
            posts.append(dict(post, page_url=url))
        thread["posts"] = posts
        threads.append(thread)
        boards.setdefault(thread["board"], []).append(thread)
    users = {name: uid for uid, name in enumerate(sorted({p["author"] for t in threads for p in t["posts"]}), 2)}
    for thread in threads:
        posts = thread["posts"]
        for start in range(0, len(posts), per_page):
            target = f"/viewtopic.php?t={thread['id']}" + (f"&start={start}" if start else "")
            name = f"t{thread['id']}-{start}.html"
            pager = " ".join(
                f'<a href="viewtopic.php?t={thread["id"]}&amp;start={s}">{s // per_page + 1}</a>' if s != start else f"<b>{s // per_page + 1}</b>"
                for s in range(0, len(posts), per_page)
            )
            rows = "".join(_post_rows(p, users) for p in posts[start : start + per_page])
            body = (
                f'<table width="100%"><tr><td><span class="maintitle">{html.escape(thread["title"])}</span><br>'
                f'<span class="nav"><a href="index.php" class="nav">Lab Board Index</a> -&gt; '
                f'<a href="viewforum.php?f={list(boards).index(thread["board"]) + 1}" class="nav">{html.escape(thread["board"])}</a></span></td></tr></table>'
                f'<table class="forumline" width="100%" cellspacing="1"><tr><th class="thLeft">Author</th><th class="thRight">Message</th></tr>'
                f'{rows}</table><span class="gensmall">Goto page {pager}</span>'
            )
            _write(out, routes, target, name, _page(f"{thread['title']} - Lab Board", body))
    index_rows = ""
    for number, (board, members) in enumerate(boards.items(), 1):
        index_rows += f'<tr><td class="row1"><a href="viewforum.php?f={number}" class="forumlink">{html.escape(board)}</a></td></tr>'
        rows = "".join(
            f'<tr><td class="row1"><a href="viewtopic.php?t={t["id"]}" class="topictitle">{html.escape(t["title"])}</a></td>'
            f'<td class="row2">{len(t["posts"]) - 1}</td><td class="row3">{t["posts"][0]["author"]}</td></tr>'
            for t in members
        )
        _write(out, routes, f"/viewforum.php?f={number}", f"f{number}.html",
               _page(f"{board} - Lab Board", f'<table class="forumline">{rows}</table>'))
    _write(out, routes, "/index.php", "index.html", _page("Lab Board", f'<table class="forumline">{index_rows}</table>'))
    manifest = {"kind": "learned", "spider": "forum", "args": {"profile": "none"},
                "date": "Mon, 01 Jul 2024 00:00:00 GMT", "start": "/index.php", "routes": routes}
    (_site(out) / "routes.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    truth = dict(source, engine="phpBB 2 subSilver-style tables (derived)", base_url=f"{FAKE}/", threads=threads)
    (out / "truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def microdata_layout() -> None:
    source = json.loads((FIXTURES / "learned_smf" / "truth.json").read_text(encoding="utf-8"))
    out = _fresh("learned_microdata")
    out.mkdir(parents=True)
    _site(out).mkdir(parents=True)
    per_page, per_board_page, routes, threads = 10, 3, {}, []
    boards: dict[str, list[dict[str, object]]] = {}
    for thread in source["threads"]:
        tid = int(thread["id"]) + 100
        slug = re.sub(r"[^a-z0-9]+", "-", thread["title"].split(":")[0].lower()).strip("-")
        base = f"/t/{slug}/{tid}"
        posts = [dict(p, page_url=f"{FAKE}{base}" + (f"?page={(p['position'] - 1) // per_page + 1}" if p["position"] > per_page else ""))
                 for p in thread["posts"]]
        thread = dict(thread, id=tid, url=f"{FAKE}{base}", posts=posts, path=base)
        threads.append(thread)
        boards.setdefault(thread["board"], []).append(thread)
    users = {name: uid for uid, name in enumerate(sorted({p["author"] for t in threads for p in t["posts"]}), 7)}
    crumbs = {b: f"/c/{re.sub(r'[^a-z]+', '-', b.split(' ')[0].lower())}/{n}" for n, b in enumerate(boards, 1)}
    for thread in threads:
        posts, base = thread["posts"], thread["path"]
        pages = range(0, len(posts), per_page)
        for number, start in enumerate(pages, 1):
            target = base + (f"?page={number}" if number > 1 else "")
            nxt = f"{base}?page={number + 1}" if start + per_page < len(posts) else None
            prev = (base + (f"?page={number - 1}" if number > 2 else "")) if number > 1 else None
            head = (f'<link rel="next" href="{nxt}">' if nxt else "") + (f'<link rel="prev" href="{prev}">' if prev else "")
            records = "".join(_microdata_post(p, users, base, number) for p in posts[start : start + per_page])
            body = (
                f'<nav class="crumbs"><a href="/">Forums</a> › <a href="{crumbs[thread["board"]]}">{html.escape(thread["board"])}</a></nav>'
                f'<h1 class="topic-title">{html.escape(thread["title"])}</h1><section class="stream">{records}</section>'
                + (f'<nav class="pager"><a rel="next" href="{nxt}">Older replies →</a></nav>' if nxt else "")
            )
            _write(out, routes, target, f"t{thread['id']}-{number}.html", _community(f"{thread['title']} | Lab Community", body, head))
    for number, (board, members) in enumerate(boards.items(), 1):
        for page, start in enumerate(range(0, len(members), per_board_page), 1):
            target = crumbs[board] + (f"?page={page}" if page > 1 else "")
            nxt = f"{crumbs[board]}?page={page + 1}" if start + per_board_page < len(members) else None
            rows = "".join(_microdata_row(t) for t in members[start : start + per_board_page])
            body = (f'<h1>{html.escape(board)}</h1><ul class="topic-list">{rows}</ul>'
                    + (f'<a rel="next" href="{nxt}">More topics</a>' if nxt else ""))
            _write(out, routes, target, f"c{number}-{page}.html",
                   _community(f"{board} | Lab Community", body, f'<link rel="next" href="{nxt}">' if nxt else ""))
    index = "".join(f'<li><a class="category" href="{crumbs[b]}">{html.escape(b)}</a></li>' for b in boards)
    _write(out, routes, "/", "index.html", _community("Lab Community", f'<ul class="categories">{index}</ul>'))
    manifest = {"kind": "learned", "spider": "forum", "args": {"profile": "none"},
                "date": "Mon, 01 Jul 2024 00:00:00 GMT", "start": "/", "routes": routes}
    (_site(out) / "routes.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for thread in threads:
        del thread["path"]
    truth = dict(source, engine="schema.org DiscussionForumPosting microdata, rel=next pages (derived)", base_url=f"{FAKE}/",
                 threads=threads)
    (out / "truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def _microdata_post(post: dict[str, object], users: dict[str, int], base: str, page: int) -> str:
    at = datetime.fromisoformat(str(post["created"])).astimezone(ZoneInfo("UTC"))
    author = str(post["author"])
    permalink = f"{base}" + (f"?page={page}" if page > 1 else "") + f"#post-{post['id']}"
    return (
        f'<article class="message" id="post-{post["id"]}" itemscope itemtype="https://schema.org/DiscussionForumPosting">'
        f'<header><span itemprop="author" itemscope itemtype="https://schema.org/Person">'
        f'<a itemprop="url" href="/u/{users[author]}-{author}"><span itemprop="name">{author}</span></a></span>'
        f' <a class="when" itemprop="url" href="{permalink}"><time itemprop="datePublished" datetime="{at:%Y-%m-%dT%H:%M:%S+00:00}">'
        f'{at:%d/%m/%Y %H:%M}</time></a></header>'
        f'<div class="message-body" itemprop="articleBody">{post["body_html"]}</div>'
        f'<footer><a href="/reply?to={post["id"]}">Reply</a></footer></article>'
    )


def _microdata_row(thread: dict[str, object]) -> str:
    posts = thread["posts"]
    last = datetime.fromisoformat(str(posts[-1]["created"])).astimezone(ZoneInfo("UTC"))  # type: ignore[index]
    return (
        f'<li class="topic-row"><a class="title" href="{thread["path"]}">{html.escape(str(thread["title"]))}</a>'
        f' <span class="starter">{posts[0]["author"]}</span>'  # type: ignore[index]
        f' <span class="replies" title="Replies">{len(posts) - 1} replies</span>'  # type: ignore[arg-type]
        f' <span class="views">{(len(posts) * 37) % 500 + 20} views</span>'  # type: ignore[arg-type]
        f' <span class="last">Last post <time datetime="{last:%Y-%m-%dT%H:%M:%S+00:00}">{last:%d/%m/%Y %H:%M}</time></span></li>'
    )


def _post_rows(post: dict[str, object], users: dict[str, int]) -> str:
    at = datetime.fromisoformat(str(post["created"])).astimezone(ZoneInfo("UTC"))
    shown = f"{at:%a %b %d, %Y} {at.hour % 12 or 12}:{at:%M} {'pm' if at.hour >= 12 else 'am'}"
    author = str(post["author"])
    return (
        f'<tr><td class="row1" valign="top"><span class="name"><a name="{post["id"]}"></a><b>{author}</b></span></td>'
        f'<td class="row1"><span class="postdetails">Posted: {shown}</span></td></tr>'
        f'<tr><td class="row1" valign="top"><span class="postdetails">Joined: 01 Jan 2024<br>'
        f'<a href="profile.php?mode=viewprofile&amp;u={users[author]}"><img src="profile.gif" alt="Profile"></a>'
        f'</span></td>'
        f'<td class="row1"><span class="postbody">{post["body_html"]}</span></td></tr>'
        f'<tr><td class="spaceRow" colspan="2" height="1"></td></tr>'
    )


def _community(title: str, body: str, head: str = "") -> str:
    return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>{head}</head>'
            f'<body><header class="site"><a href="/">Lab Community</a></header><main>{body}</main>'
            f'<footer class="site">Lab Community, a schema.org-marked forum</footer></body></html>')


def slug_urls() -> None:
    out = _copy("learned_mybb", "learned_slugs")
    manifest = json.loads((_site(out) / "routes.json").read_text(encoding="utf-8"))
    slugs: dict[str, str] = {}
    for key in sorted(manifest["routes"], key=lambda k: int(re.sub(r"\D", "", k) or 0)):
        tid = re.fullmatch(r"/showthread\.php\?tid=(\d+)", key)
        if tid:
            page = (_site(out) / manifest["routes"][key]["file"]).read_text(encoding="utf-8")
            title = re.search(r"<title>Thread \d+: ([^<]*?)\s*[^\x00-\x7f]", page).group(1)
            slug = re.sub(r"[^a-z]+", "-", title.lower()).strip("-")
            taken = sum(1 for s in slugs.values() if re.fullmatch(rf"{slug}(?:-\d+)?", s))
            slugs[tid.group(1)] = slug + (f"-{taken + 1}" if taken else "")

    def topic(tid: str, query: str) -> str:
        items = [i for i in re.split(r"&amp;|&", query) if i]
        page = next((i.split("=")[1] for i in items if i.startswith("page=")), "1")
        rest = [i for i in items if not i.startswith(("page=", "tid="))]
        path = f"/forums/topic/{slugs[tid]}/" + (f"page/{page}/" if page != "1" else "")
        return path + ("?" + "&amp;".join(rest) if rest else "")

    link = re.compile(r'(?:http://fixture\.invalid)?/?showthread\.php\?((?:[^"#]*?&amp;)?tid=(\d+)[^"#]*)')
    # MyBB links relative to its root; pages moved under /forums/topic/ keep pointing there.
    relative = re.compile(r'((?:href|src|action)=")(?![a-z]+:|/|#)')
    for path in _site(out).glob("*.html"):
        text = relative.sub(lambda m: m.group(1) + FAKE + "/", path.read_text(encoding="utf-8"))
        text = link.sub(lambda m: FAKE + topic(m.group(2), m.group(1)) if m.group(2) in slugs
                        else m.group(0), text)
        path.write_text(text, encoding="utf-8")
    routes = {}
    for key, route in manifest["routes"].items():
        tid = re.search(r"[?&]tid=(\d+)", key)
        if key.startswith("/showthread.php?") and tid and tid.group(1) in slugs:
            key = route_key(topic(tid.group(1), key.split("?", 1)[1]))
        routes[key] = route
    manifest["routes"] = routes
    (_site(out) / "routes.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n",
                                            encoding="utf-8")


def unwrapped_posts() -> None:
    out = _copy("learned_phorum", "learned_siblings")
    for path in _site(out).glob("*.html"):
        root = parse(path.read_bytes())
        wrappers = root.xpath("//div[@class='message']")
        for wrapper in wrappers:
            parent = wrapper.getparent()
            at = parent.index(wrapper)
            for child in reversed(list(wrapper)):
                parent.insert(at, child)
            parent.remove(wrapper)
        if wrappers:
            path.write_bytes(etree.tostring(root, method="html", encoding="utf-8",
                                            doctype="<!DOCTYPE html>"))


def _page(title: str, body: str) -> str:
    return (f'<html><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>'
            f'<body><table width="100%"><tr><td><a href="index.php">Lab Board</a></td></tr></table>{body}'
            f'<div align="center"><span class="copyright">Powered by phpBB</span></div></body></html>')


def _write(out: Path, routes: dict[str, dict[str, str]], target: str, name: str, text: str) -> None:
    (_site(out) / name).write_text(text, encoding="utf-8")
    routes[route_key(target)] = {"file": name, "content_type": "text/html; charset=utf-8"}


if __name__ == "__main__":
    date_in_title()
    chinese_date_only()
    table_layout()
    microdata_layout()
    slug_urls()
    unwrapped_posts()
    print("derived learned_datetitle, learned_cn_dateonly, learned_table, learned_microdata, "
          "learned_slugs, learned_siblings")
