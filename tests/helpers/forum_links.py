"""Requests as a link-following forum crawl queues them (codec tests, bench/codec_cost.py)."""

from __future__ import annotations

import random

import scrapy


class ForumSpider(scrapy.Spider):
    name = "forum"

    def parse_thread(self, response):
        pass

    def on_error(self, failure):
        pass

    alias = parse_thread  # to_dict names a method by its first attribute in sorted order


class OtherSpider(scrapy.Spider):
    name = "other"

    def elsewhere(self, response):
        pass


def follow_request(url: str, referer: str, spider: ForumSpider, depth: int = 4) -> scrapy.Request:
    """As the follow spider queues a link: its errback (the callback is parse), the depth
    DepthMiddleware adds, the parent page RefererMiddleware puts in the Referer header."""
    return scrapy.Request(url, errback=spider.on_error, meta={"depth": depth},
                          headers={"Referer": referer})


WORDS = ("how", "to", "fix", "the", "login", "loop", "after", "update", "best", "budget",
         "laptop", "for", "students", "engine", "noise", "when", "cold", "help", "needed",
         "firmware", "review", "my", "first", "build")


def typical_forum_links(count: int) -> list[tuple[str, str, int]]:
    """(URL, parent page, depth) of links a forum crawl follows: thread pages found on
    their board's listing (Discuz, Discuz rewritten, phpBB) or on the thread's previous
    page (XenForo, slugs of three to six words)."""
    rng = random.Random(3)
    out = []
    for _ in range(count):
        tid, fid = rng.randrange(10**5, 10**7), rng.randrange(2, 200)
        p, fp = rng.randrange(1, 40), rng.randrange(1, 100)
        slug = "-".join(rng.choices(WORDS, k=rng.randint(3, 6)))
        url, parent = rng.choice([
            ("https://bbs.example.cn/forum.php?mod=viewthread&tid={tid}&page={p}",
             "https://bbs.example.cn/forum.php?mod=forumdisplay&fid={fid}&page={fp}"),
            ("https://bbs.example.cn/thread-{tid}-{p}-1.html",
             "https://bbs.example.cn/forum-{fid}-{fp}.html"),
            ("https://forum.example.com/viewtopic.php?t={tid}&start={s}",
             "https://forum.example.com/viewforum.php?f={fid}&start={fs}"),
            ("https://community.example.org/threads/{slug}.{tid}/page-{p1}",
             "https://community.example.org/threads/{slug}.{tid}/page-{p}"),
        ])
        values = {"tid": tid, "fid": fid, "p": p, "fp": fp, "p1": p + 1, "s": 25 * p,
                  "fs": 25 * fp, "slug": slug}
        out.append((url.format(**values), parent.format(**values), rng.randrange(1, 8)))
    return out
