"""Posts repeated across a thread's pages: learned on consecutive pages, dropped, counted out."""

from crawler.learn.dom import parse
from crawler.learn.repeats import drop_repeat, learn_repeats, posts_before, repeat_said
from crawler.learn.template import FieldRule, Paging, PostRules, Template


def template() -> Template:
    rules = PostRules(record="//div[@class='post']", author=FieldRule(".//b"),
                      body=FieldRule(".//p", value="html"), post_id=FieldRule(".", "@id"))
    return Template(host="f", posts=rules, thread_url=r"^/t/(?P<tid>\d+)",
                    paging=Paging(kind="param", param="page", regex=r"[?&]page=(\d+)"))


def page(tid: int, number: int, ids: list[int]) -> tuple[str, object]:
    posts = "".join(f"<div class='post' id='p{i}'><b>u{i % 3}</b><p>text {i}</p></div>"
                    for i in ids)
    url = f"http://f/t/{tid}" + (f"?page={number}" if number > 1 else "")
    return url, parse(f"<html><body>{posts}</body></html>", url)


def thread(tid: int, pages: list[list[int]]) -> list[tuple[str, object]]:
    return [page(tid, n, ids) for n, ids in enumerate(pages, start=1)]


def test_the_last_post_shown_again_on_the_next_page():
    # Misago's paginator: ten posts a page, each later page opens with the last one before.
    t = template()
    learn_repeats(t, thread(1, [list(range(1, 11)), list(range(10, 20)), [19, 20, 21]])
                  + thread(2, [list(range(30, 40)), [39, 40]]))
    assert (t.repeats_first_post, t.repeats_last_post) == (False, True)
    assert (t.posts_per_page, t.later_page_posts) == (10, 9)
    assert [posts_before(t, n) for n in (1, 2, 3, 4)] == [0, 10, 19, 28]
    assert "last post" in (repeat_said(t) or "")


def test_the_opening_post_shown_on_top_of_every_page():
    t = template()
    learn_repeats(t, thread(1, [[1, 2, 3, 4], [1, 5, 6, 7, 8], [1, 9]]))
    assert (t.repeats_first_post, t.repeats_last_post) == (True, False)
    assert (t.posts_per_page, t.later_page_posts) == (4, None)  # on top of the page's four
    assert posts_before(t, 3) == 8


def test_pages_without_repeats_learn_nothing():
    t = template()
    learn_repeats(t, thread(1, [[1, 2, 3], [4, 5, 6], [7]]) + thread(2, [[8, 9, 10], [11]]))
    assert (t.repeats_first_post, t.repeats_last_post, repeat_said(t)) == (False, False, None)
    assert (t.posts_per_page, t.later_page_posts) == (3, None)
    assert posts_before(t, 3) == 6


def test_the_repeat_is_dropped_with_or_without_the_walks_cursor():
    t = template()
    t.repeats_last_post = True
    posts = [{"post_id": "p10", "digest": "a"}, {"post_id": "p11", "digest": "b"}]
    assert drop_repeat(t, 2, posts, {}) == posts[1:]  # reached by a link: the quirk tells
    assert drop_repeat(t, 2, posts, {"last": "p10"}) == posts[1:]
    assert drop_repeat(t, 1, posts, {}) == posts
    t.repeats_last_post = False
    assert drop_repeat(t, 2, posts, {"last": "p9"}) == posts


def test_a_jump_redirected_to_a_later_page_is_read_by_the_walk_in_order():
    # The list's "last" link asked for a first page (its row's cursor) and landed on page 2.
    from crawler.learn.strategy import LearnedForum

    def html(ids: list[int], number: int) -> str:
        posts = "".join(f"<div class='post' id='p{i}'><b>u{i % 3}</b><p>text {i}</p></div>"
                        for i in ids)
        pager = "<a href='/t/1?page=2'>2</a>" if number == 1 else "<a href='/t/1'>1</a>"
        return f"<html><body>{posts}{pager}</body></html>"

    t = template()
    t.repeats_last_post, t.posts_per_page, t.later_page_posts = True, 3, 2
    forum = LearnedForum("f", t)
    early = forum.page("http://f/t/1?page=2", html([3, 4, 5], 2), "thread",
                       {"page": 1, "reply_count": 4})
    assert early.posts == []  # kept for the walk, not read as the thread's first page
    read = forum.page("http://f/t/1", html([1, 2, 3], 1), "thread", {})
    assert [(p["post_id"], p["position"]) for p in read.posts] == [
        ("p1", 1), ("p2", 2), ("p3", 3), ("p4", 4), ("p5", 5)]
