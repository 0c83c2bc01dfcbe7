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


def learn_url(url: str, max_pages: int = 60) -> Template | str:
    """The template learned on ``url``'s site, or the reason none was."""
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.project import get_project_settings

    from crawler.profiles.learned_store import store_for
    from crawler.spiders.forum import ForumSpider

    settings = get_project_settings()
    with tempfile.TemporaryDirectory() as state:
        settings.setdict(
            {
                "CRAWLER_STATE_DIR": state,
                "CLOSESPIDER_ITEMCOUNT": 1,  # items come once the template is learned
                "CLOSESPIDER_PAGECOUNT": max_pages,
                "LOG_LEVEL": "WARNING",
                "CRAWLER_IDLE_CLOSE": 1,
            },
            priority="cmdline",
        )
        process = CrawlerProcess(settings, install_root_handler=True)
        crawler = process.create_crawler(ForumSpider)
        process.crawl(crawler, start_url=url, profile="none", fallback="learned")
        process.start()
    store = store_for(crawler)
    template = store.load(urlsplit(url).netloc)
    if template is not None:
        return template
    failed = [x.failure for x in store.learners() if x.failure is not None]
    return str(failed[0]) if failed else f"no template after {max_pages} pages"


def main(url: str, name: str | None = None, max_pages: int = 60) -> int:
    result = learn_url(url, max_pages)
    if isinstance(result, str):
        print(f"error: {urlsplit(url).netloc}: {result}", file=sys.stderr)
        return 2
    sys.stdout.write(render_profile(result, name))
    return 0
