"""Two table rows per post whose zebra class changes from post to post (UseBB's ``tr1``/``tr2``),
a date in a post's text, and a post number before the date in one cell ("#4 Sat Mar 02, 2024 12:21 am")."""

from __future__ import annotations

from crawler.learn.dom import parse
from crawler.learn.learner import Page, learn_site
from crawler.learn.records import mine_records
from crawler.learn.when import find_date, parse_date

BASE = "http://forum.test"
NAMES = ["alice", "bob", "carol"]


def _page(tid: int, page: int, count: int = 10) -> str:
    rows = []
    for n in range(count):
        pid = tid * 100 + page * 10 + n
        zebra = f"tr{n % 2 + 1}"
        day = n % 9 + 1
        rows.append(
            f'<tr class="{zebra}"><td class="postername"><a href="profile.php?id={n % 3 + 2}">'
            f'{NAMES[n % 3]}</a></td><td class="postinfo"><div class="postdate">'
            f'<a href="topic.php?post={pid}#post{pid}">#{(page - 1) * count + n + 1}</a> '
            f'Sat Mar 0{day}, 2024 {n % 12 + 1}:{n:02d} am</div></td></tr>'
            f'<tr class="{zebra}"><td class="posterinfo">Member</td><td class="postcontent">'
            f'<div class="post">Post {pid}: the quick brown fox jumps over the lazy dog, and '
            f'a crawler reads it once (since 2024-03-05).</div></td></tr>')
    pager = "".join(f'<a href="topic.php?id={tid}&amp;page={p}">{p}</a>' for p in (1, 2, 3))
    return (f'<html><head><title>Thread {tid}</title></head><body><h1>Thread {tid}</h1>{pager}'
            f'<table class="maintable"><tr><th>Author</th><th>Post</th></tr>{"".join(rows)}'
            f'</table></body></html>')


def test_zebra_rows_are_one_kind_of_post() -> None:
    # One group of every second row, not two of five (one per zebra class).
    groups = [g for g in mine_records(parse(_page(3, 1))) if not g.anchored]
    assert groups[0].span == 2 and len(groups[0].members) == 10


def test_a_post_number_before_a_weekday_is_not_the_date() -> None:
    assert parse_date(find_date("#4 Sat Mar 02, 2024 12:21 am") or "") == (
        "2024-03-02T00:21:00+00:00")
    assert find_date("Zitieren 20. April 2020") == "20. April 2020"


def test_every_post_of_zebra_rows_is_read_with_its_date() -> None:
    urls = [f"{BASE}/topic.php?id=3", f"{BASE}/topic.php?id=3&page=2"]
    template = learn_site([Page(u, parse(_page(3, n), u)) for n, u in enumerate(urls, 1)])
    assert template.posts_per_page == 10
    from crawler.learn.apply import read_posts

    posts = read_posts(template, parse(_page(3, 1), urls[0]), urls[0])
    assert [p["author_name"] for p in posts[:3]] == NAMES
    assert parse_date(posts[3]["created_raw"]) == "2024-03-04T04:03:00+00:00"
