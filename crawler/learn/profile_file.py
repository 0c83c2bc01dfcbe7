"""``python -m crawler learn URL``: learn a site's template and print it as a profile module.

:func:`learn_url` runs the ``forum`` spider on ``URL`` with the learned fallback (engine
detection off, a temporary frontier) until the template is learned and a first post read, or
``max_pages`` pages; :func:`render_profile` turns the template into a module for
``crawler/profiles/`` (a :class:`~crawler.profiles.template_profile.TemplateProfile` detected by host)
that a developer reviews, adjusts and commits. The template's rules are plain XPath in a dict:
each line says where a field is read.
"""

from __future__ import annotations

import pprint
import re
import sys
import tempfile
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from crawler.learn.template import Template

__all__ = ["learn_url", "main", "render_profile"]


def render_profile(template: Template, name: str | None = None) -> str:
    name = name or re.sub(r"\W+", "_", template.host).strip("_").lower() or "site"
    if not name[0].isalpha():
        name = f"site_{name}"
    cls = "".join(p.capitalize() for p in name.split("_"))
    data = asdict(template)
    learned_from = data.pop("learned_from")
    body = pprint.pformat(data, indent=4, width=110, sort_dicts=True)
    sources = "\n".join(f"#   {url}" for url in learned_from)
    return f'''"""Profile of {template.host}, learned by ``python -m crawler learn`` on {datetime.now(UTC):%Y-%m-%d}.

Review before committing: the post record and each field are XPath rules relative to the record;
``thread_url``/``board_url`` name the page kinds; ``paging`` says how pages are numbered.
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawler.profiles.template_profile import TemplateProfile

# Learned from:
{sources}


class {cls}(TemplateProfile):
    name = {name!r}
    detect_order = 900
    hosts: ClassVar[tuple[str, ...]] = ({template.host!r},)
    TEMPLATE: ClassVar[dict[str, Any]] = {body}
'''


def learn_url(url: str, max_pages: int = 60, settings: dict[str, str] | None = None,
              spider_args: dict[str, str] | None = None) -> Template | str:
    """The template learned on ``url``'s site, or why none was: ``fetched N pages: <reason>``.

    ``settings`` (``-s NAME=VALUE``) and ``spider_args`` (``-a NAME=VALUE``) go to the crawl
    as ``scrapy crawl`` would pass them."""
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.project import get_project_settings

    from crawler.profiles.learned_store import store_for
    from crawler.spiders.forum import ForumSpider

    project = get_project_settings()
    with tempfile.TemporaryDirectory() as state:
        project.setdict(
            {
                "CRAWLER_STATE_DIR": state,
                "CLOSESPIDER_ITEMCOUNT": 1,  # items come once the template is learned
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

        crawler.signals.connect(collect, signal=signals.spider_closed, weak=False)
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


def _preflight(url: str, settings: Any, given: dict[str, str], arguments: dict[str, str]) -> str | None:
    """Why the crawl would fetch nothing, said before it starts: a mistyped or bad setting or
    spider argument, a start URL the netguard refuses (``-s CRAWLER_ALLOW_PRIVATE_ADDRESSES=True``)."""
    from crawler.addon import ClusterAddon
    from crawler.config import check_url, validate
    from crawler.netguard import refused_start_url
    from crawler.scheduler.options import SchedulerOptions
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
    result = learn_url(url, max_pages, settings, spider_args)
    if isinstance(result, str):
        print(f"error: {urlsplit(url).netloc}: {result}", file=sys.stderr)
        return 2
    sys.stdout.write(render_profile(result, name))
    return 0
