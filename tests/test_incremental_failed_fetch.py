"""Issue 39, item 6: a change is settled only when its fetch succeeds. A thread whose row
changed but whose pages fail (HTTP 500, retries spent) in one pass is read in the next: the
new replies and the edited post come out then, not never."""

from __future__ import annotations

from collections.abc import Sequence

from crawler.demo.server import LoopbackServer, Response
from tests.helpers.changing_forum import ChangingForum
from tests.helpers.crawl import run_crawl

#: the threads version 2 changes (tests/helpers/changing_forum.py), and what it adds to them
CHANGED = ("t=100", "t=105", "t=203")
NEW = {"10050", "10550", "20350", "20351"}  # the replies' posts
EDITED = "10512"  # "(edited: more detail)"


class FailingForum(ChangingForum):
    """The forum whose changed threads answer 500 while :attr:`failing`."""

    failing = False

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response:
        if self.failing and "viewtopic" in target and any(
                f"{t}&" in target or target.endswith(t) for t in CHANGED):
            return Response(500, "text/plain", b"database error")
        return super().respond(host, target, origins)


def post_ids(result) -> set[str]:
    return {str(i.get("post_id")) for i in result.items if i.get("item_type") == "post"}


def test_a_changed_thread_whose_fetch_failed_is_read_in_the_next_pass(tmp_path):
    site = FailingForum()
    with LoopbackServer(site) as server:
        url = server.origins[0] + site.start
        first = run_crawl("phpbb", url, tmp_path / "first.jl")
        site.version, site.failing = 2, True
        failed = run_crawl("phpbb", url, tmp_path / "failed.jl")
        site.failing = False
        again = run_crawl("phpbb", url, tmp_path / "again.jl")
    assert first.items and not NEW & post_ids(first)
    assert not NEW & post_ids(failed), "the failing threads were read"
    missing = NEW - post_ids(again)
    assert not missing, (missing, again.stats)
    edited = [i for i in again.items if str(i.get("post_id")) == EDITED]
    assert edited and "edited: more detail" in str(edited[0]), again.stats
