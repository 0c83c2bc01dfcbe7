"""``python -m crawler new-engine``: one thread URL of a forum no profile reads gives a profile,
fixtures and a test that pass, with nothing else edited; the limits a profile declares."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest
from lxml import html

from crawler.demo.fixture_server import FixtureServer
from crawler.learn.dom import parse
from crawler.learn.repeats import learn_repeats
from crawler.learn.template import FieldRule, Paging, PostRules, Template
from crawler.profiles.base import ForumProfile, limits_of
from crawler.scaffold.assess import limits_and_doubts
from crawler.scaffold.markers import fingerprint
from crawler.scaffold.record import write_site
from crawler.scaffold.refine import (
    refine_author,
    refine_board_link,
    refine_id_in_page_value,
    refine_thread_url,
    refine_title,
)
from tests.extract.test_new_engine import _copy_project, _files
from tests.helpers.expected import SITES

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, check=False)


@pytest.mark.slow
def test_new_engine_from_one_thread_url_passes_its_own_test() -> None:
    name = f"engine_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="new-engine-") as tmp, \
            FixtureServer(SITES / "generic_fluxbb") as server:
        project = Path(tmp)
        _copy_project(project)
        # The served forum must be the only one in that markup: its own example site goes
        # (detection is by markup no other fixture site has).
        shutil.rmtree(project / "tests" / "fixtures" / "sites" / "generic_fluxbb")
        shutil.rmtree(project / "tests" / "fixtures" / "profiles" / "generic_fluxbb")
        before = _files(project)
        url = f"{server.base_url}/viewtopic.php?id=101"
        done = _run(["-m", "crawler", "new-engine", name, "--from", url, "--pages", "30",
                     "-a", "timezone=Asia/Shanghai"], project)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "the first posts of" in done.stdout and "#1 " in done.stdout
        changed = {path for path, body in _files(project).items() if before.get(path) != body}
        own = {Path("crawler/profiles", f"{name}.py"),
               Path("tests/extract", f"test_engine_{name}.py"),
               Path("tests/fixtures/profiles", name, "expected.json")}
        assert changed - own and all(
            path in own or path.parts[:4] == ("tests", "fixtures", "sites", name)
            for path in changed
        ), sorted(map(str, changed))
        tested = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                       "-n", "0", "tests/extract/test_profiles.py",
                       f"tests/extract/test_engine_{name}.py"], project)
        assert tested.returncode == 0, tested.stdout[-3000:]


def test_a_bad_name_or_a_taken_one_is_one_line_and_exit_2() -> None:
    for name in ("Bad-Name", "phpbb"):
        done = _run(["-m", "crawler", "new-engine", name, "--from", "http://127.0.0.1:9/t"], ROOT)
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: new-engine")


def test_markers_are_shared_by_the_engine_pages_and_absent_elsewhere() -> None:
    mine = [('<html><body><div id="brd-wrap"><p class="crumbs x1">a</p></div><div id="p12"></div>'
             '</body></html>'),
            '<html><body><div id="brd-wrap"><p class="crumbs">b</p></div></body></html>']
    others = ['<html><body><p class="crumbs">c</p></body></html>']
    found = fingerprint(mine, others)
    assert found.markers == ("div#brd-wrap",)  # numbered ids and classes seen elsewhere left out
    assert found.min_markers == 1


def _thread(posts: list[str]) -> str:
    rows = "".join(f'<div class="post"><div class="avatar"><a href="/member/{n}"><span>'
                   f'{n[0].upper()}</span></a></div><h3><a href="/member/{n}" title="profile">'
                   f'{n}</a></h3><div class="body">text {i}</div></div>'
                   for i, n in enumerate(posts))
    return f"<html><body>{rows}</body></html>"


def test_a_letter_avatar_gives_way_to_the_name_link_to_the_same_member() -> None:
    template = Template(host="h", thread_url=r"^/t/(?P<tid>\d+)", posts=PostRules(
        record="//div[@class='post']", author=FieldRule(".//div[@class='avatar']//a")))
    pages = [("http://h/t/1", _thread(["bob", "alice", "bob"])),
             ("http://h/t/2", _thread(["carol", "dave"]))]
    assert refine_author(template, pages)
    records = html.fromstring(pages[0][1]).xpath("//div[@class='post']")
    names = [r.xpath(template.posts.author.xpath)[0].text_content() for r in records]
    assert names == ["bob", "alice", "bob"]
    same = Template(host="h", thread_url=r"^/t/(?P<tid>\d+)", posts=PostRules(
        record="//div[@class='post']", author=FieldRule(".//h3/a")))
    assert not refine_author(same, pages)  # the name already: nothing longer to the same page


def _channel_page(channel: int, links_in_posts: int) -> str:
    """A thread page without a breadcrumb trail: one channel tab links its board (esoTalk)."""
    posts = "".join(f"<div class='post'><a href='/channels/c-{n}'>see</a></div>"
                    for n in range(links_in_posts))
    return (f"<html><body><ul class='channels'><li><a class='channel' href='/channels/c-{channel}'>"
            f"Channel {channel}</a></li></ul>{posts}</body></html>")


def test_a_thread_page_without_breadcrumbs_names_its_board_by_its_one_board_link() -> None:
    def template() -> Template:
        return Template(host="h", thread_url=r"^/(?P<tid>\d+)-",
                        board_url=r"^/channels/c-(?P<bid>\d+)",
                        posts=PostRules(record="//div[@class='post']"))

    pages = [(f"http://h/{n}-t", _channel_page(n % 3, 2)) for n in range(1, 7)]
    found = template()
    assert refine_board_link(found, pages)
    root = html.fromstring(pages[0][1])
    assert [a.text for a in root.xpath(found.breadcrumbs)] == ["Channel 1"]
    limits, _ = limits_and_doubts(found, [], pages)
    assert "board_ids" not in limits
    # Boards not told apart on the pages: no trail, and the limit is declared.
    bare = template()
    plain = [(u, t.replace("<ul class='channels'>", "<ul><li><a href='/channels/c-9'>x</a></li>"))
             for u, t in pages]
    assert not refine_board_link(bare, plain)
    limits, doubts = limits_and_doubts(bare, [], plain, frozenset({"opening_post_id"}))
    assert {"board_ids", "opening_post_id"} <= limits
    assert any("--limit" in line for line in doubts)


def test_thread_ids_are_learned_again_on_every_captured_threads_url() -> None:
    # The learner saw one thread's pages: its title's year, opening the slug, looked like the id.
    leading = r"^/(?P<tid>\d+)(?:[^0-9/?#&;][^/?#&;]*)?(?:[/?#;&]|$)"
    template = Template(host="h", thread_url=leading,
                        posts=PostRules(record="//div[@class='post']"),
                        paging=Paging(kind="path", regex=r"/p(\d+)(?:[/?#]|$)"))
    page = "<html><body><div class='post'>a post</div></body></html>"
    urls = ["/2024-review-of-tools-123", "/2024-review-of-tools-123/p2", "/hello-world-124",
            "/plans-for-2025-125", "/top-10-tips-126"]
    assert refine_thread_url(template, [(f"http://h{u}", page) for u in urls])
    assert [template.thread_id(f"http://h{u}") for u in urls] == ["123", "123", "124", "125",
                                                                   "126"]
    assert not refine_thread_url(template, [(f"http://h{u}", page) for u in urls])


def test_a_title_only_in_the_head_keeps_the_site_name_learned_on_every_thread() -> None:
    # No element shows the title: the rule is <title> less what every thread's <title> shares
    # (learned on one thread's pages, nothing is shared by several threads, so nothing is).
    template = Template(host="h", thread_url=r"^/topic/(?P<tid>\d+)",
                        posts=PostRules(record="//div[@class='post']"))
    titles = {1: "How do I paginate?", 2: "Encoding problems", 3: "Dates: time zones"}
    pages = [(f"http://h/topic/{n}", f"<html><head><title>{t} - Topic - Forum</title></head>"
              "<body><div class='post'>a post</div></body></html>") for n, t in titles.items()]
    assert refine_title(template, pages)
    assert template.title.xpath is None and template.title.strip == [" - Topic - Forum"]
    assert not refine_title(template, pages)


def test_a_repeated_post_on_the_captured_pages_is_declared_and_said() -> None:
    # Misago's paginator: each later page opens with the previous page's last post. The
    # learner saw one page per thread; the command looks again on every captured thread.
    template = Template(host="h", thread_url=r"^/t/(?P<tid>\d+)",
                        posts=PostRules(record="//div[@class='post']",
                                        post_id=FieldRule(".", "@id")),
                        paging=Paging(kind="path", regex=r"^/t/\d+/(\d+)"))

    def page(ids: range) -> str:
        posts = "".join(f"<div class='post' id='p{i}'>post {i}</div>" for i in ids)
        return f"<html><body>{posts}</body></html>"

    pages = [("http://h/t/1/", page(range(1, 11))), ("http://h/t/1/2/", page(range(10, 20))),
             ("http://h/t/1/3/", page(range(19, 22))), ("http://h/t/2/", page(range(30, 40))),
             ("http://h/t/2/2/", page(range(39, 41)))]
    limits, doubts = limits_and_doubts(template, [], pages)
    assert "repeated_posts" not in limits  # the learner's template alone: not seen
    learn_repeats(template, [(url, parse(text, url)) for url, text in pages])
    limits, doubts = limits_and_doubts(template, [], pages)
    assert "repeated_posts" in limits
    assert any("a repeated post: each later page shows the previous page's last post" in d
               for d in doubts)
    assert (template.posts_per_page, template.later_page_posts) == (10, 9)


def test_an_unknown_limit_on_the_command_line_is_one_line_and_exit_2() -> None:
    done = _run(["-m", "crawler", "new-engine", "x_engine", "--from", "http://127.0.0.1:9/t",
                 "--limit", "board_id"], ROOT)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "unknown limit 'board_id'" in done.stderr


def test_the_captured_robots_txt_keeps_its_rules_but_not_its_crawl_delay(tmp_path: Path) -> None:
    robots = b"User-agent: *\nCrawl-delay: 10\nDisallow: /members/\n"
    saved = [{"url": "http://h:1/robots.txt", "status": 200, "body": robots,
              "headers": {"Content-Type": "text/plain"}}]
    write_site(saved, "http://h:1", tmp_path, "/", {})
    assert (tmp_path / "robots-txt.txt").read_bytes() == b"User-agent: *\nDisallow: /members/\n"


def test_limits_unknown_names_fail_and_day_precision_implies_clock_time() -> None:
    class DayOnly(ForumProfile, register=False):
        name = "day_only"
        created_precision = "day"
        limits = frozenset({"edits"})

    assert limits_of(DayOnly) == {"edits", "clock_time"}

    class Typo(ForumProfile, register=False):
        name = "typo"
        limits = frozenset({"edit"})

    with pytest.raises(ValueError, match="unknown limits"):
        limits_of(Typo)


def test_the_scorer_honours_declared_limits() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    from score_against_truth import score

    at = "2024-03-01T14:07:00+00:00"
    opener = {"id": 10, "author": "a", "created": at, "position": 1, "body_text": "hi"}
    truth = {"threads": [{"id": 1, "title": "T", "board": "B", "board_id": 2, "author": "a",
                          "created": at, "posts": [opener]}]}
    post = {"item_type": "post", "post_id": "digest", "thread_id": "1", "position": 1,
            "author": {"name": "a"}, "created": "2024-03-01T00:00:00+00:00", "body_html": "hi"}
    thread = {"item_type": "thread", "thread_id": "1", "title": "T", "author": {"name": "a"},
              "created": "2024-03-01T00:00:00+00:00",
              "board": {"id": "2", "name": "B", "path": ["B"]}}
    strict = score([thread, post], truth)
    assert strict.figures["post recall"].right == 0 and strict.figures["thread dates"].right == 0
    lenient = score([thread, post], truth, frozenset({"opening_post_id", "clock_time"}))
    assert lenient.lowest() == 1.0
    # A board named by its slug (board-1 in the URL, 2 in the database).
    thread["board"]["id"] = "1"
    assert score([thread, post], truth, frozenset({"opening_post_id", "clock_time"})).figures[
        "board ids"].right == 0
    unscored = score([thread, post], truth, frozenset({"opening_post_id", "clock_time",
                                                       "board_ids"}))
    assert "board ids" not in unscored.figures and unscored.lowest() == 1.0


def test_forum_spider_reads_with_a_named_engine_or_says_which_exist() -> None:
    from crawler.spiders.forum import ForumSpider

    spider = ForumSpider(start_url="http://127.0.0.1:9/", profile="phpbb")
    assert spider.profile_class is not None and spider.profile_class.name == "phpbb"
    assert ForumSpider(start_url="http://127.0.0.1:9/", profile="none").profile_class is None
    with pytest.raises(ValueError, match="'nope' is not a registered engine"):
        ForumSpider.check_arguments(start_url="http://127.0.0.1:9/", profile="nope")


def test_a_thread_id_before_the_page_number_in_one_value_is_the_threads() -> None:
    """SMF's and ElkArte's ``topic=4.10``: learned on one thread's pages, the id took one value
    and the learner named the thread by the script's path, so every page was one thread."""
    paging = Paging(kind="param", param="topic", regex=r"[?&;,]topic=\d+\.(\d+)(?:[&;,#]|$)",
                    step=10, base=0)
    template = Template(host="", posts=PostRules(record="//article"), paging=paging,
                        thread_url=r"^/(?P<tid>[^/?#&;]+)/?(?:[?#;&]|$)")
    assert template.thread_id("http://f.test/index.php?board=1.0") == "index.php"
    assert refine_id_in_page_value(template, "http://f.test/index.php?topic=4.0")
    assert template.thread_params == ["topic"]
    assert template.thread_id("http://f.test/index.php?topic=4.20") == "4"
    assert template.thread_id("http://f.test/index.php?topic=12.0") == "12"
    assert template.thread_id("http://f.test/index.php?board=1.0") is None
    assert not refine_id_in_page_value(template, "http://f.test/index.php?topic=4.0")
