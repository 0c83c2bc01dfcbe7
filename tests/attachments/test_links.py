"""The profiles find each engine's attachments in real pages captured from the engine lab:
id, URL without the session id, the name the forum shows, the listed size."""

from __future__ import annotations

from pathlib import Path

from scrapy.http import HtmlResponse

from crawler.attachments.links import body_attachments, listed_size
from crawler.profiles import get_profile
from crawler.profiles.base import PageCursor

PAGES = Path(__file__).parent / "pages"


def _posts(engine: str, page: str, url: str) -> dict[str, list[tuple]]:
    response = HtmlResponse(url, body=(PAGES / page).read_bytes(), encoding="utf-8")
    profile = get_profile(engine)()
    thread = profile.parse_thread(response, PageCursor(url=url), None)
    return {post.post_id: [(a.id, a.url, a.name, a.size) for a in post.attachments]
            for post in thread.posts}


def test_phpbb_attachbox_inline_image_and_a_link_in_the_body() -> None:
    base = "http://127.0.0.1:18090/download/file.php?id="
    posts = _posts("phpbb", "phpbb-thread.html", "http://127.0.0.1:18090/viewtopic.php?t=2")
    assert posts == {
        "2": [("2", base + "2", "manual.pdf", 464), ("1", base + "1", "screenshot.png", 6318)],
        "3": [("4", base + "4", "manual-copy.pdf", 464), ("3", base + "3", "logs.zip", 1065)],
        "4": [("5", base + "5", "big-dump.zip", 3 * 1024 * 1024)],
        "5": [("6", base + "6", "members-only.zip", None)],
    }


def test_mybb_attached_files_and_image_tooltips() -> None:
    base = "http://127.0.0.1:18087/attachment.php?aid="
    posts = _posts("mybb", "mybb-thread.html", "http://127.0.0.1:18087/showthread.php?tid=1")
    assert posts["1"] == [("1", base + "1", "screenshot.png", 6318),
                          ("2", base + "2", "manual.pdf", 464)]
    assert posts["2"] == [("3", base + "3", "logs.zip", 1065),
                          ("4", base + "4", "manual-copy.pdf", 464)]
    assert posts["3"] == [("5", base + "5", "big-dump.zip", 3 * 1024 * 1024)]
    assert posts["4"] == []


def test_listed_sizes_in_each_engines_words() -> None:
    assert listed_size("(464 Bytes) Not downloaded yet") == 464
    assert listed_size("screenshot.png (6.17 KiB) Not viewed yet") == 6318
    assert listed_size("(Size: 3 MB / Downloads: 0)") == 3 * 1024 * 1024
    assert listed_size("(1,5 MB, 下载次数: 3)") == round(1.5 * 1024 * 1024)
    assert listed_size("Downloads: 0") is None


def test_the_learned_reader_finds_engine_attachment_links_in_a_body() -> None:
    body = ('<p>see <a href="/attachment.php?aid=7&amp;s=abc">log.txt</a> and '
            '<img src="index.php?action=dlattach;topic=3.0;attach=9;image" alt="shot.png">'
            ' and <a href="/viewtopic.php?t=2">a thread</a></p>')
    found = body_attachments(body, "http://forum.example/t/1")
    assert [(a.id, a.url, a.name) for a in found] == [
        ("7", "http://forum.example/attachment.php?aid=7", "log.txt"),
        ("9", "http://forum.example/t/index.php?action=dlattach;topic=3.0;attach=9;image",
         "shot.png")]
