"""Reading forums whose layout hides what a plain reader expects: a frameset start page, a
pager labelled by post ranges, a canonical link naming the frameset around a thread, thread
pages that name no board, and a first page of posts reached long after the menus."""

from __future__ import annotations

from crawler.learn.dom import parse
from crawler.learn.emit import listed_on, thread_record
from crawler.learn.learner import Page, learn_site
from crawler.learn.links import follow_links, is_action, is_denied
from crawler.learn.paging import learn_paging, page_number
from crawler.learn.strategy import LearnedForum
from crawler.learn.template import Template
from crawler.learn.thread import listing_heading
from tests.learn import pages

BASE = "http://forum.test"


def test_frames_and_inline_frames_are_followed_like_links() -> None:
    root = parse("<html><frameset rows='60,*'><frame src='nav.php'><frame src='start.php?x=1'>"
                 "<frame src='http://ads.test/banner'></frameset></html>", f"{BASE}/")
    assert follow_links(root, f"{BASE}/") == [f"{BASE}/nav.php", f"{BASE}/start.php?x=1"]
    root = parse("<html><body><iframe src='/list.php?b=2'></iframe></body></html>", f"{BASE}/")
    assert follow_links(root, f"{BASE}/") == [f"{BASE}/list.php?b=2"]


def test_logon_poll_and_private_message_routes_are_not_read() -> None:
    assert is_action("/logon.php?webtag=X") and is_action("/create_poll.php?webtag=X")
    assert is_denied(f"{BASE}/index.php?final_uri=logon.php%3Fwebtag%3DX")
    assert is_denied(f"{BASE}/pm.php?webtag=X") and is_denied(f"{BASE}/pm/inbox/")
    assert not is_denied(f"{BASE}/messages.php?msg=3.1") and not is_action("/poll-results-2024/")


def test_a_pager_labelled_by_post_ranges_numbers_pages_by_their_first_post() -> None:
    links = "".join(f"<a href='messages.php?msg=13.{first}'>{label}</a> "
                    for first, label in ((1, "1&ndash;20"), (21, "21&ndash;40"), (41, "41")))
    url = f"{BASE}/messages.php?msg=13.1"
    paging = learn_paging([(parse(f"<html><body>{links}</body></html>", url), url)])
    assert (paging.param, paging.step, paging.base) == ("msg", 20, 1)
    assert page_number(paging, f"{BASE}/messages.php?msg=13.41") == 3


def _framed(tid: int) -> str:
    """A thread page whose canonical link names the frameset page that shows it in a frame."""
    return pages.div_posts(tid, 1).replace(
        "<head>", f"<head><link rel='canonical' href='{BASE}/index.php?view=1&amp;amp;t={tid}'>")


def test_a_canonical_naming_another_page_is_not_the_thread_url() -> None:
    site = [Page(f"{BASE}/thread.php?t={tid}", parse(_framed(tid))) for tid in (1, 2, 3)]
    template = learn_site(site)
    assert isinstance(template, Template)
    assert [template.thread_id(p.url) for p in site] == ["1", "2", "3"]
    assert template.thread_id(f"{BASE}/index.php?view=1&t=2") is None


def _board_page(name: str, bid: int) -> str:
    return (f"<html><head><title>Site :: {name}</title></head><body><div class='logo'>Site</div>"
            f"<h1 class='heading'>{name}</h1><ul><li><a href='/thread.php?t=1'>One</a></li>"
            f"<li><a href='/thread.php?t=2'>Two</a></li></ul></body></html>")


def test_a_thread_page_without_a_trail_gets_the_board_that_listed_it() -> None:
    template = learn_site([Page(f"{BASE}/thread.php?t={tid}", parse(pages.div_posts(tid, 1)))
                           for tid in (1, 2, 3)])
    assert isinstance(template, Template)
    template.board_url = r"^/board\.php\?(?:.*[&;])?b=(?P<bid>\d+)"
    listing = f"{BASE}/board.php?b=7&page=2"
    row = listed_on(template, parse(_board_page("Kayaks 皮划艇", 7)), listing)
    assert row["listed_on"][0] == "Kayaks 皮划艇"
    assert listed_on(template, parse(_board_page("Kayaks", 7)), f"{BASE}/about.php") == {}
    # no trail on the thread page: the listing's board
    bare = pages.div_posts(1, 1).replace("class='breadcrumb'", "class='gone'")
    template.breadcrumbs = None
    board = thread_record(template, parse(bare), f"{BASE}/thread.php?t=1", "1", [], row)["board"]
    assert (board.id, board.name, board.path) == ("7", "Kayaks 皮划艇", ["Kayaks 皮划艇"])
    # a trail whose link to that board is a menu label: named by the board's heading
    template.breadcrumbs = "//div[@class='breadcrumb']//a[@href]"
    menu = pages.div_posts(1, 1).replace("board.php?b=2'>General", "board.php?b=7'>Message List")
    board = thread_record(template, parse(menu), f"{BASE}/thread.php?t=1", "1", [], row)["board"]
    assert (board.id, board.path) == ("7", ["Example Forum", "Kayaks 皮划艇"])
    # a trail naming the board as its title does stays as it is
    named = pages.div_posts(1, 1).replace("board.php?b=2'>General", "board.php?b=7'>Kayaks")
    board = thread_record(template, parse(named), f"{BASE}/thread.php?t=1", "1", [], row)["board"]
    assert board.path == ["Example Forum", "Kayaks"]


def test_one_post_page_among_the_menus_waits_for_a_second_one_it_links() -> None:
    forum = LearnedForum("forum.test")
    forum.page(f"{BASE}/thread.php?t=1", pages.div_posts(1, 1))  # links its pages 2 and 3
    for n in range(16):
        forum.page(f"{BASE}/menu{n}.php", f"<html><body><p>menu {n}</p></body></html>")
    assert forum.template is None  # one page of posts: pages 2 and 3 of it are linked
    out = forum.page(f"{BASE}/thread.php?t=1&page=2", pages.div_posts(1, 2))
    assert out.learned is not None and len(out.learned.learned_from) == 2
    alone = LearnedForum("forum.test")
    alone.page(f"{BASE}/thread.php?t=1", pages.div_posts(1, 1).replace("thread.php?t=1&", "x?"))
    for n in range(14):
        alone.page(f"{BASE}/menu{n}.php", f"<html><body><p>menu {n}</p></body></html>")
    assert alone.template is not None  # nothing more of its shape is linked: one page will do


def test_a_heading_linking_home_names_the_site_not_the_board() -> None:
    site = "<html><head><title>Lab forum</title></head><body><h1><a href='/'>Lab forum</a></h1>"
    assert listing_heading(parse(site + "<h2>Board A</h2></body></html>")) is None
    board = "<html><head><title>Board A - Lab forum</title></head><body><h1><a href='/'>Lab " \
            "forum</a></h1><h2>Board A</h2></body></html>"
    assert listing_heading(parse(board))[0] == "Board A"
