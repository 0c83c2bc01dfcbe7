"""The profiles find each engine's attachments in real pages captured from the engine lab
(XenForo: real forums' pages of the web-forum-52 corpus): id, URL without the session id,
the name the forum shows, the listed size."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from scrapy.http import HtmlResponse

from crawler.attachments.links import body_attachments, listed_size
from crawler.profiles import get_profile
from crawler.profiles.base import PageCursor

PAGES = Path(__file__).parent / "pages"
CORPUS = Path(__file__).parents[1] / "fixtures" / "web-forum-52-dev"


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


def test_smf_attachments_below_the_post_and_a_link_in_the_body() -> None:
    base = "http://127.0.0.1:18088/index.php?action=dlattach;attach="
    posts = _posts("smf", "smf-thread.html", "http://127.0.0.1:18088/index.php?topic=2.0")
    assert posts["2"] == [("1", base + "1;image", "screenshot.png", 6318),
                          ("2", base + "2", "manual.pdf", 461)]
    assert posts["3"] == [("3", base + "3", "logs.zip", 1065),
                          ("4", base + "4", "manual-copy.pdf", 461)]
    assert posts["4"] == [("5", base + "5", "big-dump.zip", 3 * 1024 * 1024)]
    assert posts["5"] == [("6", base + "6", "members-only.zip", None)]


def test_discuz_tokenised_links_priced_ones_and_images_in_place() -> None:
    url = "http://127.0.0.1:18089/forum.php?mod=viewthread&tid=1"
    for page in ("discuz-thread.html", "discuz-thread-robot.html"):
        posts = _posts("discuz", page, url)
        ids = {pid: [(aid, name, size) for aid, _, name, size in found]
               for pid, found in posts.items()}
        assert ids["2"] == [("3", "logs.zip", 1065), ("4", "manual-copy.pdf", 464)]
        assert ids["3"] == [("5", "big-dump.zip", 3 * 1024 * 1024)]
        assert ids["4"] == [("6", "members-only.zip", 1065)]  # "1.04 KB"
        assert posts["4"][0][1].endswith("action=attachpay&aid=6&tid=1")
        assert all("mod=attachment&aid=" in u for pid in "23" for _, u, _, _ in posts[pid])
    # the image: its aid for browsers, its stored path for robots (which get no aid)
    browser = _posts("discuz", "discuz-thread.html", url)["1"]
    robot = _posts("discuz", "discuz-thread-robot.html", url)["1"]
    assert [a[0] for a in browser] == ["1", "2"]
    assert [a[0] for a in robot] == ["2", "202403/01/6c44948c7187aea9.png"]
    assert robot[1][1] == "http://127.0.0.1:18089/data/attachment/forum/202403/01/6c44948c7187aea9.png"


def _corpus_posts(engine: str, name: str) -> dict[str, list[tuple]]:
    """The posts of a real forum page of the web-forum-52 corpus (tests/fixtures)."""
    page = json.loads(gzip.open(CORPUS / f"{name}.json.gz").read())
    response = HtmlResponse(page["url"], body=page["html"].encode(), encoding="utf-8")
    thread = get_profile(engine)().parse_thread(response, PageCursor(url=page["url"]), None)
    return {post.post_id: [(a.id, a.url, a.name, a.size) for a in post.attachments]
            for post in thread.posts}


def test_xenforo_attachment_lists_and_inline_images_on_real_pages() -> None:
    posts = _corpus_posts("xenforo", "uhrforum.de.threads.schachtel-fuer-mauthe-nr-50-322.432114.")
    base = "https://uhrforum.de/attachments/"
    # an attachment list: an icon and a name linking each file, its size below ("435,4 KB")
    assert posts["5390629"] == [
        ("3017246", base + "20200423_133902-jpg.3017246/", "20200423_133902.jpg", 445850),
        ("3017247", base + "20200423_133849-jpg.3017247/", "20200423_133849.jpg", 434074)]
    # an image in the body: the link to the file, not its thumbnail under /data/attachments/
    assert posts["5390812"] == [
        ("3017413", base + "23eaf233-eaab-4e36-a8be-40ce0df5d163-jpeg.3017413/", "3017413", None)]
    found = _corpus_posts("xenforo",
                          "forum.statcounter.com.threads.best-android-apps-in-uk-2019.79812.")
    assert [(a[0], a[2]) for a in found["298721"]] \
        == [("2130", "Top-Android-Apps-in-the-UK-2019.jpg")]
