"""A board's row on a real forum index: what an incremental pass compares to decide whether
to read the board again (crawler/profiles/_utils.py ``link_rows``).

On each engine's index page captured from the lab's real install, every board the profile
reads has a row holding its name and its counts, and a new post in one board changes that
board's row only.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy.http import HtmlResponse

from crawler.profiles import REGISTRY, PageCursor, PageKind

REAL = Path(__file__).parent.parent / "fixtures" / "real"
INDEXES = {
    "phpbb": ("phpbb-3.3.10", "http://127.0.0.1:18090/index.php", "32 Posts"),
    "mybb": ("mybb-1.8.37", "http://127.0.0.1:18087/index.php", "4 32"),
    "smf": ("smf-2.1.4", "http://127.0.0.1:18088/index.php", "Posts: 32"),
    "discuz": ("discuz-x3.5", "http://127.0.0.1:18089/forum.php", "4 / 32"),
}


def _boards(engine: str, body: bytes) -> dict[str, str | None]:
    url = INDEXES[engine][1]
    response = HtmlResponse(url=url, body=body, encoding="utf-8")
    profile = REGISTRY.get(engine)()
    result = profile.read(response, PageKind.INDEX, PageCursor(url=url), None)
    return {f.cursor.url: f.said for f in result.follow if f.kind is PageKind.BOARD}


@pytest.mark.parametrize("engine", sorted(INDEXES))
def test_every_board_on_a_real_index_has_its_row(engine):
    directory, _, counts = INDEXES[engine]
    boards = _boards(engine, (REAL / directory / "site" / "index.html").read_bytes())
    assert len(boards) == 3
    rows = list(boards.values())
    assert all(rows) and len(set(rows)) == 3
    general = next(r for r in rows if r.startswith("General Discussion"))
    assert counts in general and "Off Topic" not in general


@pytest.mark.parametrize("engine", sorted(INDEXES))
def test_a_new_post_changes_its_boards_row_only(engine):
    directory = INDEXES[engine][0]
    body = (REAL / directory / "site" / "index.html").read_bytes()
    before = _boards(engine, body)
    # a reply in General Discussion's thread 10, renamed with it, is now its last post
    after = _boards(engine, body.replace(b"Thread 10: Encoding", b"Thread 10: Decoding"))
    changed = [url for url in before if before[url] != after[url]]
    assert len(changed) == 1 and before[changed[0]].startswith("General Discussion")
