"""``python -m crawler learn URL``: learn a forum's template and print it as a profile module.

:func:`learn_url` runs the ``forum`` spider on ``URL`` with the learned fallback (engine
detection off, a temporary frontier) until the template is learned and its first posts read,
or ``max_pages`` pages. :func:`main` prints the template as a profile module on stdout
(:func:`crawler.learn.profile_file.render_profile`) and the first posts it read on stderr, for a
person to check.
"""

from __future__ import annotations

import sys
import tempfile
from typing import Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings

from crawler.addon import ClusterAddon
from crawler.config import check_url, validate
from crawler.items import Post
from crawler.learn.profile_file import render_profile
from crawler.learn.template import Template
from crawler.netguard import refused_start_url
from crawler.node.options import SchedulerOptions
from crawler.profiles.learned_store import store_for
from crawler.spiders.forum import ForumSpider

__all__ = ["learn_url", "main"]

#: Posts printed for a person to check the template against the page.
SHOWN_POSTS = 5


def learn_url(url: str, max_pages: int = 60, settings: dict[str, str] | None = None,
              spider_args: dict[str, str] | None = None,
              posts: list[Post] | None = None) -> Template | str:
    """The template learned on ``url``'s site, or why none was: ``fetched N pages: <reason>``.

    ``settings`` (``-s NAME=VALUE``) and ``spider_args`` (``-a NAME=VALUE``) go to the crawl
    as ``scrapy crawl`` would pass them. The first posts read go into ``posts``."""
    project = get_project_settings()
    with tempfile.TemporaryDirectory() as state:
        project.setdict(
            {
                "CRAWLER_STATE_DIR": state,
                # items come once the template is learned: a page's posts come together
                "CLOSESPIDER_ITEMCOUNT": 1,
                "CLOSESPIDER_PAGECOUNT": max_pages,
                "LOG_LEVEL": "WARNING",
                "CRAWLER_IDLE_CLOSE": 1,
            },
            priority="cmdline",
        )
        project.setdict(settings or {}, priority="cmdline")  # -s wins
        if refused := _preflight(url, project, settings or {}, spider_args or {}):
            return f"fetched 0 pages: {refused}"
        process = CrawlerProcess(project)
        crawler = process.create_crawler(ForumSpider)
        learned: dict[str, Any] = {}

        def collect() -> None:  # while the crawl's (temporary) Redis still runs
            store = store_for(crawler)
            learned["template"] = store.load(urlsplit(url).netloc)
            learned["failed"] = [x.failure for x in store.learners() if x.failure is not None]

        def keep(item: Any) -> None:
            if posts is not None and isinstance(item, Post) and len(posts) < SHOWN_POSTS:
                posts.append(item)

        crawler.signals.connect(collect, signal=signals.spider_closed, weak=False)
        crawler.signals.connect(keep, signal=signals.item_scraped, weak=False)
        process.crawl(crawler, **{**(spider_args or {}), "start_url": url, "profile": "none",
                                  "fallback": "learned"})
        process.start()
    if learned.get("template") is not None:
        return learned["template"]
    failed = learned.get("failed") or []
    stats = crawler.stats.get_stats()
    fetched = stats.get("outcomes/fetched", stats.get("response_received_count", 0))
    reason = str(failed[0]) if failed else _why_nothing(stats) if not fetched else \
        f"no template after {fetched} pages"
    return f"fetched {fetched} pages: {reason}"


def _preflight(url: str, settings: Any, given: dict[str, str],
               arguments: dict[str, str]) -> str | None:
    """Why the crawl would fetch nothing, said before it starts: a mistyped or bad setting or
    spider argument, a start URL the netguard refuses
    (``-s CRAWLER_ALLOW_PRIVATE_ADDRESSES=True``)."""
    from crawler.spiders.forum import ForumSpider

    checked = settings.copy()
    ClusterAddon().update_settings(checked)  # as `scrapy crawl`'s preflight checks them
    try:
        check_url(url)
        validate(checked, list(given))
        SchedulerOptions.from_settings(checked)
        ForumSpider.check_arguments(**{**arguments, "start_url": url, "fallback": "learned"})
    except ValueError as exc:
        return str(exc)
    return refused_start_url([url], checked)


def _why_nothing(stats: dict[str, Any]) -> str:
    """What became of the URLs of a crawl that fetched nothing, from its outcome counts."""
    outcomes = [(k.split("/", 1)[1], v) for k, v in sorted(stats.items())
                if k.startswith(("outcomes/failed/", "outcomes/filtered/")) and k.count("/") == 2]
    if not outcomes:
        return "no page came back (see the log above)"
    return ", ".join(f"{n} {reason.replace('/', ' ')}" for reason, n in outcomes)


def main(url: str, name: str | None = None, max_pages: int = 60,
         settings: dict[str, str] | None = None, spider_args: dict[str, str] | None = None) -> int:
    posts: list[Post] = []
    result = learn_url(url, max_pages, settings, spider_args, posts)
    if isinstance(result, str):
        print(f"error: {urlsplit(url).netloc}: {result}", file=sys.stderr)
        return 2
    sys.stdout.write(render_profile(result, name))
    print(_first_posts(posts), file=sys.stderr)
    return 0


def _first_posts(posts: list[Post]) -> str:
    """One line per post read with the template: position, author, date, first words."""
    if not posts:
        return "No post was read with it yet: check the template against a thread page."
    lines = [f"The first {len(posts)} posts read with this template (check them against the page):"]
    for post in posts:
        author = post.author.name if post.author else None
        words = " ".join((post.body_text or "").split())[:70]
        created = post.created or post.created_raw or "?"
        lines.append(f"  #{post.position} {author or '?'} {created}: {words}")
    return "\n".join(lines)
