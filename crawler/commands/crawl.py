"""``scrapy crawl`` with a preflight: bad settings or an unreachable Redis end with one
line naming the setting and a non-zero exit, not a traceback.

``REDIS_URL`` from the environment is used when no setting gives one (settings win).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.utils.misc import load_object

from crawler.addon import ClusterAddon
from crawler.redis import RedisUnavailable, connect
from crawler.scheduler.scheduler import REFUSED_STAT
from crawler.state import crawl_state_dir, is_crawl_state

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCrawl):
    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        # set names of -s options: checked for typos in the preflight
        self._cmdline_names = [item.split("=", 1)[0] for item in opts.set or ()]
        if not self.settings.get("REDIS_URL") and os.environ.get("REDIS_URL"):
            self.settings.set("REDIS_URL", os.environ["REDIS_URL"], "project")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        try:
            if len(args) == 1:
                self._check_spider(args[0], opts.spargs)
            self._preflight()
            if len(args) == 1 and opts.overwrite_output:
                self._refuse_overwrite(args[0], opts.overwrite_output)
        except (RedisUnavailable, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            self.exitcode = 2
            return
        super().run(args, opts)
        crawler = getattr(self, "_crawler", None)
        if crawler is not None and (refused := crawler.stats.get_value(REFUSED_STAT)):
            print(f"error: {refused}", file=sys.stderr)
            self.exitcode = 2

    def _create_crawler(self, spider: str):
        self._crawler = super()._create_crawler(spider)  # its stats say how it ended
        return self._crawler

    def _check_spider(self, name: str, arguments: dict[str, str]) -> None:
        from crawler.scheduler.revisit import watch_argument  # noqa: PLC0415

        loader = self.crawler_process.spider_loader
        if name not in loader.list():
            raise ValueError(f"unknown spider {name!r}; the spiders are: "
                             f"{', '.join(sorted(loader.list()))}")
        spidercls = loader.load(name)
        # A spider may check its -a arguments up front, so mistakes end in one line
        if hasattr(spidercls, "check_arguments"):
            spidercls.check_arguments(**arguments)
        if "watch" in arguments:  # any spider: read by the frontier (watch mode)
            watch_argument(arguments["watch"])

    def _preflight(self) -> None:
        """Check what the frontier will run with (project and -s settings); a crawl in
        Redis that this version cannot go on with is refused by the frontier's start."""
        from crawler.config import validate  # noqa: PLC0415
        from crawler.scheduler.options import SchedulerOptions  # noqa: PLC0415

        settings = self.settings.copy()
        names = [*getattr(self, "_cmdline_names", ()),
                 *(n for n in settings if settings.getpriority(n) == 20)]  # project
        uses_addon = any(load_object(a) is ClusterAddon for a in settings.getdict("ADDONS"))
        if not uses_addon and "crawler.scheduler" not in str(settings.get("SCHEDULER")):
            return
        if uses_addon:
            ClusterAddon().update_settings(settings)
        validate(settings, names)
        SchedulerOptions.from_settings(settings)
        if url := settings.get("REDIS_URL"):
            from crawler.config import value  # noqa: PLC0415

            connect(url, value(settings, "CRAWLER_REDIS_CONNECT_TIMEOUT")).close()

    def _refuse_overwrite(self, spider: str, outputs: list[str]) -> None:
        """``-O FILE`` over a crawl that resumes would replace what its earlier runs wrote
        (a resumed crawl does not fetch those pages again): refuse, and say what to do."""
        settings = self.settings.copy()
        ClusterAddon().update_settings(settings)  # its defaults (CRAWLER_STATE_DIR)
        crawl = settings.get("CRAWLER_CRAWL_ID") or spider
        if settings.get("REDIS_URL"):
            return  # a cluster's items go to its stream (python -m crawler export)
        state = crawl_state_dir(settings.get("CRAWLER_STATE_DIR"), crawl)
        if not is_crawl_state(state):
            return
        for output in outputs:
            path = Path(output.rsplit(":", 1)[0] if re.search(r":\w+$", output) else output)
            if path.is_file() and path.stat().st_size:
                raise ValueError(
                    f"-O {output} would overwrite the items of crawl {crawl!r}, which resumes from "
                    f"{state} and will not fetch those pages again; append with -o {output}, or "
                    f"start afresh: delete {state} or pick another -s CRAWLER_CRAWL_ID=...")

