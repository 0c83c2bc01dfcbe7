"""The learner's parts on small pages: record mining, field rules, dates, pagination, URLs,
titles, the template's JSON form and its "still matches" check, and the page strategy."""

from __future__ import annotations

import pytest

from crawler.learn.apply import matches, read_posts, read_thread
from crawler.learn.dom import element_text, parse
from crawler.learn.learner import NotLearned, Page, learn_site
from crawler.learn.paging import learn_paging, page_number
from crawler.learn.records import mine_records
from crawler.learn.strategy import LearnedForum
from crawler.learn.structured import microdata_rules
from crawler.learn.template import PostRules, Template
from crawler.learn.urls import clean_url, id_regex_for
from crawler.learn.when import parse_date
from tests.learn import pages

BASE = "http://forum.test"


def _div_site(date_in_title: bool = False) -> list[Page]:
    out = [Page(f"{BASE}/board.php?b=2", parse(pages.thread_list(2, [1, 2, 3])))]
    for tid in (1, 2, 3):
        out.append(Page(f"{BASE}/thread.php?t={tid}", parse(pages.div_posts(tid, 1, date_in_title=date_in_title))))
    out.append(Page(f"{BASE}/thread.php?page=2&t=1", parse(pages.div_posts(1, 2, date_in_title=date_in_title))))
    return out


def test_mining_finds_posts_not_thread_list_rows() -> None:
    groups = mine_records(parse(pages.div_posts(1, 1)))
    assert groups and [m.get("id") for m in groups[0].members] == ["post_100", "post_101", "post_102", "post_103"]
    assert mine_records(parse(pages.thread_list(2, [1, 2, 3, 4]))) == []


def test_mining_groups_two_table_rows_per_post() -> None:
    group = mine_records(parse(pages.table_posts(7, 0)))[0]
    assert group.span == 2 and len(group.members) == 3


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("03-01-2024, 09:00 AM", "2024-03-01T09:00:00+00:00"),
        ("发表于 2024-4-6 01:03:00", "2024-04-06T01:03:00+00:00"),
        ("Apr 03, 2024, 08:00 PM", "2024-04-03T20:00:00+00:00"),
        ("2024-3-4", "2024-03-04T00:00:00+00:00"),
        ("1712174400000", "2024-04-03T20:00:00+00:00"),
        ("#1 by alice on 2024-03-14", None),  # a date inside a longer text is not a date node
        ("Joined: Mar 2024", None),
    ],
)
def test_whole_text_dates(text: str, iso: str | None) -> None:
    assert parse_date(text) == iso


def test_site_template_reads_every_field() -> None:
    template = learn_site(_div_site())
    assert isinstance(template, Template)
    assert template.thread_id(f"{BASE}/thread.php?t=12&page=3") == "12"
    assert template.board_id(f"{BASE}/board.php?b=5") == "5"
    assert template.paging.param == "page"
    posts = read_posts(template, parse(pages.div_posts(9, 1)), f"{BASE}/thread.php?t=9")
    assert [p["post_id"] for p in posts] == ["900", "901", "902", "903"]
    assert [p["author_name"] for p in posts] == ["alice", "bob", "carol", "alice"]
    assert [p["author_id"] for p in posts] == ["2", "3", "4", "2"]
    assert posts[0]["created_raw"] == "2024-03-01 10:00"
    assert [p["position"] for p in posts] == [1, 2, 3, 4]
    assert "Pagination links" in posts[0]["body_text"] and "signature" not in posts[0]["body_text"]
    assert "Posts:" not in posts[0]["body_text"]
    info = read_thread(template, parse(pages.div_posts(9, 1)))
    assert info["title"] == "Thread number 9"
    assert [name for name, _ in info["crumbs"]] == ["Example Forum", "General"]


def test_date_in_title_attribute_wins_over_display_text() -> None:
    template = learn_site(_div_site(date_in_title=True))
    assert isinstance(template, Template)
    posts = read_posts(template, parse(pages.div_posts(4, 1, date_in_title=True)), f"{BASE}/thread.php?t=4")
    assert posts[1]["created_raw"] == "2024-03-02 10:01"


@pytest.mark.parametrize(
    ("shown", "order", "raw"),
    [
        (lambda d, m: f"{d + 10:02d}/03/2024 {m}", "DMY", "2024-03-11 10:00"),  # a day above 12 decides
        (lambda d, m: f"{d}.3.2024", "DMY", "2024-03-01"),  # dotted: day first
        (lambda d, m: f"03/{d + 10:02d}/2024 {m}", "MDY", "03/11/2024 10:00"),  # as shown: the normalizer's default
    ],
)
def test_numeric_display_dates_get_the_sites_order(shown, order: str, raw: str) -> None:
    import re

    def dated(html: str) -> str:
        return re.sub(r"2024-03-(\d\d) (10:\d\d)", lambda m: shown(int(m.group(1)), m.group(2)), html)

    site = [Page(p.url, parse(dated(pages.div_posts(int(p.url[-1]), 2 if "page=2" in p.url else 1)))) if "thread" in p.url else p
            for p in _div_site()]
    template = learn_site(site)
    assert isinstance(template, Template) and template.posts.date_order == order
    forum = LearnedForum("forum.test", template)
    out = forum.page(f"{BASE}/thread.php?t=3", dated(pages.div_posts(3, 1)), "thread")
    assert out.posts[0]["created_raw"] == raw


def test_microdata_replies_nested_in_the_thread_item() -> None:
    """The thread is one DiscussionForumPosting holding the opening post's fields and every
    reply as a nested ``itemprop=comment`` item (Discourse's crawler view): each reply is a post."""
    site = [Page(f"{BASE}/t/slug/{t}", parse(pages.nested_microdata_posts(t))) for t in (11, 12, 13)]
    template = learn_site(site)
    assert isinstance(template, Template) and template.source == "microdata"
    posts = read_posts(template, site[0].root, site[0].url)
    assert [(p["author_name"], p["position"]) for p in posts] == [("alice", 1), ("bob", 2), ("carol", 3), ("alice", 4)]
    assert [p["created_raw"][:10] for p in posts] == [f"2024-03-0{n}" for n in (1, 2, 3, 4)]
    assert all(p["body_text"].endswith(f"[11/{n}]") for n, p in enumerate(posts, 1))


def test_table_layout_with_offset_pagination() -> None:
    site = [Page(f"{BASE}/viewtopic.php?t={t}", parse(pages.table_posts(t, 0))) for t in (5, 6)]
    site.append(Page(f"{BASE}/viewtopic.php?start=3&t=5", parse(pages.table_posts(5, 3))))
    template = learn_site(site)
    assert isinstance(template, Template)
    assert (template.posts.span, template.paging.param, template.paging.step, template.paging.base) == (2, "start", 3, 0)
    assert page_number(template.paging, f"{BASE}/viewtopic.php?t=5&start=6") == 3
    posts = read_posts(template, parse(pages.table_posts(8, 3)), f"{BASE}/viewtopic.php?t=8&start=3")
    assert [p["author_name"] for p in posts] == ["alice", "bob", "carol"]
    assert posts[0]["created_raw"].endswith("Mar 07, 2024 10:03 am")
    assert posts[0]["body_text"].endswith("[8/4]")


def test_microdata_first() -> None:
    site = [Page(f"{BASE}/topic/{t}/slug-of-the-topic", parse(pages.microdata_posts(t))) for t in (1, 2, 3)]
    template = learn_site(site)
    assert isinstance(template, Template) and template.source == "microdata"
    posts = read_posts(template, site[0].root, site[0].url)
    assert [p["created_raw"] for p in posts] == [f"2024-03-0{n}T10:00:00Z" for n in (1, 2, 3)]
    assert [p["position"] for p in posts] == [1, 2, 3]  # data-index counts from 0
    assert read_thread(template, site[0].root)["title"] == "Microdata thread 1"


@pytest.mark.parametrize("style", ["jsonld", "json", "assign"])
def test_posts_held_only_as_data(style: str) -> None:
    """JSON-LD (a posting and its ``comment`` list) or the JSON a front end embeds: read before
    markup heuristics, and the rule survives the template's JSON form."""
    site = [Page(f"{BASE}/t/{t}", parse(pages.data_posts(t, style))) for t in (21, 22, 23)]
    template = learn_site(site)
    assert isinstance(template, Template) and template.source == ("jsonld" if style == "jsonld" else "json")
    template = Template.from_json(template.to_json())
    posts = read_posts(template, site[1].root, site[1].url)
    assert [(p["author_name"], p["position"], p["post_id"]) for p in posts] == [
        ("alice", 1, "220"), ("bob", 2, "221"), ("carol", 3, "222")]
    assert [p["created_raw"][:10] for p in posts] == ["2024-03-01", "2024-03-02", "2024-03-03"]
    assert posts[2]["body_text"] == pages.BODIES[2] and posts[2]["body_html"].startswith("<p>")
    assert template.thread_id(f"{BASE}/t/99") == "99"


def test_structured_data_of_the_opening_post_alone_leaves_posts_to_markup() -> None:
    """A site marking up only its opening post (one microdata item per thread page) is read
    from its repeated post blocks, not as one post per thread."""
    def one_item(html: str) -> str:
        return html.replace("<div class='post' id=", "<div class='post' itemscope itemtype='https://schema.org/"
                            "DiscussionForumPosting' id=", 1).replace("<div class='message'>", "<div class='message' itemprop='text'>", 1) \
            .replace("<span class='date'>", "<span class='date' itemprop='datePublished'>", 1) \
            .replace("<a href='/member.php", "<a itemprop='author' href='/member.php", 1)
    site = [Page(p.url, parse(one_item(pages.div_posts(int(p.url[-1]), 2 if "page=2" in p.url else 1))))
            if "thread" in p.url else p for p in _div_site()]
    assert microdata_rules([p.root for p in site]) is not None  # one item per page, three pages
    template = learn_site(site)
    assert isinstance(template, Template) and template.source == "html"
    assert len(read_posts(template, site[1].root, site[1].url)) == 4


def test_template_json_round_trip_and_match_check() -> None:
    template = learn_site(_div_site())
    assert isinstance(template, Template)
    again = Template.from_json(template.to_json())
    assert again == template
    assert matches(again, parse(pages.div_posts(3, 1)), f"{BASE}/thread.php?t=3")
    # A new theme: same URLs, other markup.
    assert not matches(again, parse(pages.table_posts(3, 0)), f"{BASE}/thread.php?t=3")
    with pytest.raises(ValueError, match="learn again"):
        Template.from_json(template.to_json().replace('"format": 1', '"format": 0'))


def test_not_a_forum_says_what_was_tried() -> None:
    blog = "<html><body><article><h1>Hello</h1><p>Just one article here, nothing repeats.</p></article></body></html>"
    result = learn_site([Page(f"{BASE}/a", parse(blog)), Page(f"{BASE}/b", parse(blog))])
    assert isinstance(result, NotLearned)
    assert "not a forum" in str(result) and "repeated post records" in str(result)


@pytest.mark.parametrize(
    ("links", "param", "step", "base"),
    [
        (["/t.php?id=3&page=2", "/t.php?id=3&page=3"], "page", 1, 1),
        (["/t.php?id=3&p=2", "/t.php?id=3&p=3"], "p", 1, 1),
        (["/viewtopic.php?t=3&start=20", "/viewtopic.php?t=3&start=40"], "start", 20, 0),
        (["/index.php?topic=3.15", "/index.php?topic=3.30"], "topic", 15, 0),
    ],
)
def test_paging_forms(links: list[str], param: str, step: int, base: int) -> None:
    here = {"page": "/t.php?id=3", "p": "/t.php?id=3", "start": "/viewtopic.php?t=3", "topic": "/index.php?topic=3.0"}
    html = "<html><body>" + "".join(f"<a href='{h}'>{n}</a>" for n, h in enumerate(links, 2)) + "</body></html>"
    paging = learn_paging([(parse(html), BASE + here[param])])
    assert (paging.param, paging.step, paging.base) == (param, step, base)


@pytest.mark.parametrize("form", ["/thread/7/page/{n}", "/thread-7-{n}.html"])
def test_paging_in_the_path(form: str) -> None:
    html = "<html><body>" + "".join(f"<a href='{form.format(n=n)}'>{n}</a>" for n in (1, 2, 3)) + "</body></html>"
    paging = learn_paging([(parse(html), BASE + form.format(n=1))])
    assert paging.kind == "path"
    assert page_number(paging, BASE + form.format(n=3)) == 3


def test_thread_id_not_the_page_number() -> None:
    assert id_regex_for(f"{BASE}/index.php?topic=13.15", (("q", "topic"), 1), "tid", {}) is not None
    regex = id_regex_for(f"{BASE}/forum.php?mod=viewthread&tid=12&page=2", (("q", "page"), 0), "tid", {"mod": "viewthread"})
    assert regex and "mod=viewthread" in regex
    assert clean_url(f"{BASE}/viewtopic.php?t=3&sid=0123456789abcdef0123456789abcdef&start=10") == (
        f"{BASE}/viewtopic.php?start=10&t=3"
    )


def test_clean_url_keeps_reserved_characters_as_written() -> None:
    # Servers that split the query on commas (``read.php?3,41,page=2``) or read a route in it
    # answer the escaped form (``?3%2C41=``) with another page; order and sessions still go.
    assert clean_url(f"{BASE}/read.php?3,41,page=2") == f"{BASE}/read.php?3,41,page=2"
    assert clean_url(f"{BASE}/read.php?3,41") == f"{BASE}/read.php?3,41"
    assert clean_url(f"{BASE}/a?c=x/y&b=1:2&sid=0123456789abcdef0123456789abcdef") == (
        f"{BASE}/a?b=1:2&c=x/y")
    assert clean_url(f"{BASE}/a?q=a b&x=%e7%81&y=%2C") == f"{BASE}/a?q=a+b&x=%E7%81&y=%2C"


def test_strategy_drops_the_opening_post_repeated_on_later_pages() -> None:
    template = learn_site(_div_site())
    assert isinstance(template, Template)
    template.repeats_first_post = True
    strategy = LearnedForum("forum.test", template)
    first = strategy.page(f"{BASE}/thread.php?t=1", pages.div_posts(1, 1))
    nxt = [f for f in first.follow if f[1] == "thread" and f[2].get("page") == 2]
    assert nxt and nxt[0][2]["op"] == "100" and nxt[0][2]["offset"] == 4
    page_two = pages.div_posts(1, 2).replace("<div id='posts'>", "<div id='posts'>" + _first_post())
    second = strategy.page(nxt[0][0], page_two, "thread", nxt[0][2])
    assert [p["post_id"] for p in second.posts] == ["104", "105", "106", "107"]
    assert [p["position"] for p in second.posts] == [5, 6, 7, 8]
    assert first.threads[0]["title"] == "Thread number 1"


def _first_post() -> str:
    root = parse(pages.div_posts(1, 1))
    from lxml import etree

    return etree.tostring(root.xpath("//div[@id='post_100']")[0], encoding="unicode")


def test_strategy_gives_up_on_a_site_that_is_not_a_forum() -> None:
    strategy = LearnedForum("blog.test")
    strategy.max_pages = 3
    for n in range(3):
        strategy.page(f"{BASE}/post/{n}", f"<html><body><p>{element_text(parse('<p>x</p>'))} article {n}</p></body></html>")
    assert strategy.failure is not None and "not a forum" in str(strategy.failure)


@pytest.mark.parametrize(
    ("here", "nxt", "kind", "step", "base"),
    [
        ("/thread/1", "/thread/1/page/2", "path", 1, 1),
        ("/viewtopic.php?t=3", "/viewtopic.php?t=3&start=20", "param", 20, 0),
        ("/t.php?id=3&page=2", "/t.php?id=3&page=3", "param", 1, 1),
    ],
)
def test_paging_from_next_links_alone(here: str, nxt: str, kind: str, step: int, base: int) -> None:
    html = f"<html><body><a href='{nxt}'>next</a></body></html>"
    paging = learn_paging([(parse(html), BASE + here)])
    assert (paging.kind, paging.step, paging.base) == (kind, step, base)
    assert paging.next_xpath is not None


@pytest.mark.parametrize(
    "row",
    [
        # IPS: numbers before their labels, side by side in one list
        "<li><a href='/t/{t}'>Topic {t}</a><ul><li><span>{r}</span> <span>replies</span></li>"
        "<li><span>{v}</span> <span>views</span></li></ul><time datetime='2024-03-01T10:00:00Z'>Mar 1</time>"
        "<span class='last'>Last post <time datetime='2024-03-0{d}T12:00:00Z'>Mar {d}</time></span></li>",
        # SMF: "Replies: 3<br>Views: 12", the last post's date before its author link
        "<div><a href='/t/{t}'>Topic {t}</a><p>Replies: {r}<br>Views: {v}</p>"
        "<p class='lastpost'>2024-03-0{d} 12:00<br>by <a href='/u/1'>bob</a></p></div>",
    ],
)
def test_thread_list_rows(row: str) -> None:
    from crawler.learn.rows import thread_rows

    html = pages.page("Board", "<ul>" + "".join(row.format(t=t, r=t * 2, v=t * 100, d=t) for t in (1, 2, 3)) + "</ul>")
    rows = thread_rows(parse(html), BASE + "/board", lambda u: u.rsplit("/t/", 1)[1] if "/t/" in u else None)
    assert {t: (r["reply_count"], r["view_count"], r["last_post_at_raw"][:10]) for t, r in rows.items()} == {
        str(t): (t * 2, t * 100, f"2024-03-0{t}") for t in (1, 2, 3)}


def test_thread_list_columns_under_headers() -> None:
    """MyBB: header cells are ``td`` (not ``th``), the title header spans three columns."""
    from crawler.learn.rows import thread_rows

    head = "<tr><td colspan='3'>Thread / Author</td><td>Replies</td><td>Views</td><td>Last Post</td></tr>"
    body = "".join(f"<tr><td>i</td><td>i</td><td><a href='/t/{t}'>Topic {t}</a></td><td><a href='/who?t={t}'>{t}</a></td>"
                   f"<td>1,{t}00</td><td><span class='lastpost'>03-0{t}-2024, 10:00 AM<br><a href='/t/{t}?last'>Last</a></span></td></tr>" for t in (1, 2))
    rows = thread_rows(parse(pages.page("Board", f"<table>{head}{body}</table>")), BASE + "/board",
                       lambda u: u.rsplit("/t/", 1)[1].split("?")[0] if "/t/" in u else None)
    assert rows == {str(t): {"reply_count": t, "view_count": 1000 + t * 100, "last_post_at_raw": f"03-0{t}-2024, 10:00 AM"} for t in (1, 2)}


def _counter_posts(tid: int, pk: bool) -> str:
    """Posts whose record id counts within the thread (``c1``, ``c2``…), the modern themes'
    anchor; with ``pk`` the record also carries the post's own id."""
    posts = []
    for n in range(4):
        name, uid = pages.USERS[(tid + n) % 3]
        extra = f" data-pk='{tid * 100 + n}'" if pk else ""
        posts.append(
            f"<div class='comment' id='c{n + 1}'{extra}><a href='/user/{uid}/'>{name}</a>"
            f"<span class='date'>2024-03-{tid:02d} 10:{n:02d}</span>"
            f"<div class='text'>{pages.BODIES[(tid + n) % len(pages.BODIES)]} [{tid}/{n}]</div></div>"
        )
    return pages.page(f"Thread {tid}", f"<h1>Thread {tid}</h1><div class='list'>{''.join(posts)}</div>")


@pytest.mark.parametrize("pk", [True, False])
def test_a_number_that_restarts_per_thread_is_no_post_id(pk: bool) -> None:
    site = [Page(f"{BASE}/topic/{tid}/", parse(_counter_posts(tid, pk))) for tid in (3, 4, 5)]
    template = learn_site(site)
    assert isinstance(template, Template)
    posts = read_posts(template, parse(_counter_posts(7, pk)), f"{BASE}/topic/7/")
    assert [p["position"] for p in posts] == [1, 2, 3, 4]
    if pk:
        assert [p["post_id"] for p in posts] == ["700", "701", "702", "703"]
    else:  # named by content: unique across threads
        assert [p["post_id"] for p in posts] == [None] * 4


def test_one_thread_under_two_ids_is_read_once() -> None:
    """A thread linked under two URL forms whose ids differ (a slug and a number): the posts
    tell, and the second form adds no thread and no post."""
    template = learn_site(_div_site())
    assert isinstance(template, Template)
    strategy = LearnedForum("forum.test", template)
    first = strategy.page(f"{BASE}/thread.php?t=6", pages.div_posts(6, 1), "thread")
    again = strategy.page(f"{BASE}/thread.php?t=906", pages.div_posts(6, 1), "thread")
    other = strategy.page(f"{BASE}/thread.php?t=7", pages.div_posts(7, 1), "thread")
    assert [p["post_id"] for p in first.posts] == ["600", "601", "602", "603"]
    assert len(first.threads) == 1 and again.posts == [] and again.threads == []
    assert [p["thread_id"] for p in other.posts] == ["7"] * 4 and len(other.threads) == 1
    # One post like another thread's (same author, date and text: "Thanks!" the same day):
    # still a thread of its own, with all its posts.
    echo = strategy.page(f"{BASE}/thread.php?t=8", pages.div_posts(8, 1).replace("[8/1]", "[6/1]"))
    assert [p["thread_id"] for p in echo.posts] == ["8"] * 4 and len(echo.threads) == 1


def _rowspan_posts(tid: int, count: int = 4) -> str:
    """Three rows a post, the author's cell spanning them (header, body, footer), between a
    header row and a footer row of the same table: counting rows would take the footer too."""
    rows = ["<tr><td>Author:</td><td>Subject: a thread</td></tr>"]
    for n in range(count):
        name, uid = pages.USERS[(tid + n) % 3]
        rows.append(
            f"<tr><td rowspan='3'><a href='/member.php?uid={uid}'>{name}</a><br>Posts: {n + 9}</td>"
            f"<td><a href='/t.php?tid={tid}&pid={tid * 10 + n}' title='x'>posted on 2024-03-0{n + 1} 10:00</a>"
            f"</td></tr><tr><td class='msg'>{pages.BODIES[(tid + n) % len(pages.BODIES)]} [{tid}/{n}]</td></tr>"
            f"<tr><td><a href='/member.php?uid={uid}'>profile</a></td></tr>"
        )
    rows.append("<tr><td colspan='2'>Quick reply is closed</td></tr>")
    return pages.page(f"Topic {tid}", f"<table class='posts'>{''.join(rows)}</table>")


def test_table_records_marked_by_a_cell_spanning_their_rows() -> None:
    site = [Page(f"{BASE}/t.php?tid={tid}", parse(_rowspan_posts(tid))) for tid in (2, 3, 4)]
    template = learn_site(site)
    assert isinstance(template, Template) and template.posts.span == 3
    posts = read_posts(template, parse(_rowspan_posts(8)), f"{BASE}/t.php?tid=8")
    assert [p["post_id"] for p in posts] == ["80", "81", "82", "83"]
    assert [p["author_name"] for p in posts] == ["carol", "alice", "bob", "carol"]
    assert all("[8/" in p["body_text"] and "profile" not in p["body_text"] for p in posts)


def test_a_trail_printed_above_and_below_the_posts_is_one_trail() -> None:
    trail = "<nav class='crumbs'><a href='/'>Index</a> <a href='/forum/2'>General</a></nav>"
    root = parse(f"<html><body>{trail}<div class='post'>a post</div>{trail}</body></html>",
                 "http://h/topic/7")
    template = Template(host="h", posts=PostRules(record="//div[@class='post']"),
                        thread_url=r"^/topic/(?P<tid>\d+)", breadcrumbs="//nav[@class='crumbs']/a")
    assert read_thread(template, root)["crumbs"] == [("Index", "http://h/"),
                                                     ("General", "http://h/forum/2")]
    once = parse(f"<html><body>{trail}<div class='post'>a post</div></body></html>",
                 "http://h/topic/7")
    assert read_thread(template, once)["crumbs"] == read_thread(template, root)["crumbs"]


def test_a_parked_later_page_whose_posts_were_read_is_not_fetched_again() -> None:
    """A list links a thread's later page under another URL form than its walk takes (Beehive:
    ``msg=9.27`` beside the walk's ``msg=9.21``): parked, and left at idle when every post on
    it was read already; a parked page with posts nobody read is fetched again for its walk."""
    from crawler.learn.walks import covered

    template = learn_site(_div_site())
    assert isinstance(template, Template)
    strategy = LearnedForum("forum.test", template)
    page_two = pages.div_posts(1, 2)
    assert not covered(strategy, f"{BASE}/thread.php?page=2&t=1", parse(page_two))
    first = strategy.page(f"{BASE}/thread.php?t=1", pages.div_posts(1, 1))
    nxt = [f for f in first.follow if f[1] == "thread" and f[2].get("page") == 2]
    strategy.page(nxt[0][0], page_two, "thread", nxt[0][2])
    assert covered(strategy, f"{BASE}/thread.php?page=2&t=1&from=list", parse(page_two))
    assert not covered(strategy, f"{BASE}/thread.php?page=2&t=2", parse(pages.div_posts(2, 2)))
