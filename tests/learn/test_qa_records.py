"""Record classes of Q&A engines and others, on pages captured from real engines with no
profile (``tests/fixtures/record_classes``, ``urls.json`` names their URLs; esoTalk's from
``tests/fixtures/real-unprofiled``):

* the opening post as a block of another shape than its replies, inside a schema.org item
  that holds the reply items (Question2Answer's ``Question`` around its ``Answer`` items);
* an offset URL counting replies, the question standing apart above them (``?start=10``);
* an avatar link before the author's name link (Askbot: an image and a reputation badge "1";
  esoTalk: the name's initial);
* a date only in a ``title`` attribute with more than the date around it (Askbot's timeago
  ``<abbr title="2024-03-04 10:00:00+00:00 +0000">``);
* paragraphs written in Chinese only (Askbot's bodies keep them all).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import lxml.html

from crawler.learn.apply import read_posts
from crawler.learn.dom import element_text, parse
from crawler.learn.learner import Page, learn_site
from crawler.learn.repeats import offset_posts
from crawler.learn.template import Paging, PostRules, Template
from crawler.learn.when import find_date, parse_date

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FOLDER = FIXTURES / "record_classes"
URLS: dict[str, str] = json.loads((FOLDER / "urls.json").read_text(encoding="utf-8"))
MEMBERS = {"alice", "bob", "carol", "dave", "erin"}  # the lab's seeded members


def _pages(engine: str) -> list[Page]:
    return [Page(url, parse((FOLDER / name).read_text(encoding="utf-8"), url))
            for name, url in sorted(URLS.items()) if name.startswith(engine)]


def _posts(engine: str) -> tuple[Template, list[tuple[Page, list[dict]]]]:
    pages = _pages(engine)
    template = learn_site(pages)
    assert isinstance(template, Template), template
    return template, [(page, read_posts(template, page.root, page.url)) for page in pages]


def test_a_question_around_its_answers_is_read_from_its_own_block() -> None:
    """q2a's ``Question`` item wraps the whole page, answers included: read whole it has no id
    (a made-up digest came out). Its own block holds ``id="q5"``: the thread's own number."""
    _, read = _posts("q2a")
    for page, posts in read:
        tid = re.search(r"/(\d+)/", page.url).group(1)  # type: ignore[union-attr]
        assert posts[0]["post_id"] == tid
        assert len({p["post_id"] for p in posts}) == len(posts)
        assert all(p["post_id"] and p["author_name"] in MEMBERS and p["created_raw"]
                   and p["body_text"] for p in posts)
        first = page.root.xpath("//*[@itemprop='text']")[0]
        assert posts[0]["body_text"].split()[:8] == element_text(first).split()[:8]


def test_an_offset_counting_replies_below_a_question_standing_apart() -> None:
    template = Template(host="h", posts=PostRules(record="//x"), thread_url="x",
                        paging=Paging(kind="param", param="start", step=10, base=0))
    template.posts_per_page = 11  # the question and ten answers
    assert [offset_posts(template, o) for o in (0, 10, 20)] == [0, 11, 21]
    template.posts_per_page = 10  # the offset counts posts
    assert [offset_posts(template, o) for o in (0, 10, 20)] == [0, 10, 20]


def test_askbot_authors_dates_and_chinese_paragraphs() -> None:
    template, read = _posts("askbot")
    assert template.posts.date is not None and template.posts.date.value == "@title"
    for page, posts in read:
        bodies = page.root.xpath("//div[starts-with(@id, 'js-post-body-')]/div[1]")
        assert len(posts) == len(bodies) >= 4
        for post, body in zip(posts, bodies, strict=True):
            assert post["author_name"] in MEMBERS  # not "1", the avatar's badge
            assert parse_date(post["created_raw"] or "")
            assert re.search(r"\d{2}:\d{2}:\d{2}\+00:00$", post["created_raw"])
            shown = [element_text(p) for p in body.iter("p") if element_text(p)]
            html = lxml.html.fragment_fromstring(post["body_html"], create_parent="div")
            kept = [element_text(p) for p in html.iter("p") if element_text(p)]
            assert kept == shown  # the paragraphs in Chinese only ("2024年3月5日") stay


def test_a_letter_avatar_gives_way_to_the_name() -> None:
    folder = FIXTURES / "real-unprofiled"
    base = "http://127.0.0.1:18123/"
    pages = [Page(base + slug, parse((folder / name).read_text(encoding="utf-8"), base + slug))
             for name, slug in [("esotalk-1.0-thread-a.html", "14-thread-12-dates"),
                                ("esotalk-1.0-thread-b.html", "13-thread-11-share")]]
    template = learn_site(pages)
    assert isinstance(template, Template), template
    for page in pages:
        posts = read_posts(template, page.root, page.url)
        assert posts and all(p["author_name"] in MEMBERS for p in posts)


def test_a_date_in_a_title_with_two_offsets() -> None:
    assert find_date("2024-03-04 10:00:00+00:00 +0000") == "2024-03-04 10:00:00+00:00"
    assert parse_date("2024-03-04 10:00:00+00:00") == "2024-03-04T10:00:00+00:00"
    assert find_date("2024-03-04T10:00:00+0000") == "2024-03-04T10:00:00+0000"
    assert find_date("posted 2024年3月5日 10:00") == "2024年3月5日 10:00"
