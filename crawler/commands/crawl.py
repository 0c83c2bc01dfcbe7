"""``scrapy crawl`` with a preflight: bad settings or an unreachable Redis end with one
line naming the setting and a non-zero exit, not a traceback.

``REDIS_URL`` from the environment is used when no setting gives one (settings win).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.utils.misc import load_object

from crawler.addon import ClusterAddon
from crawler.redis import RedisUnavailable, connect

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
        except (RedisUnavailable, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            self.exitcode = 2
            return
        super().run(args, opts)

    def _check_spider(self, name: str, arguments: dict[str, str]) -> None:
        loader = self.crawler_process.spider_loader
        if name not in loader.list():
            raise ValueError(f"unknown spider {name!r}; the spiders are: "
                             f"{', '.join(sorted(loader.list()))}")
        spidercls = loader.load(name)
        # A spider may check its -a arguments up front, so mistakes end in one line
        if hasattr(spidercls, "check_arguments"):
            spidercls.check_arguments(**arguments)

    def _preflight(self) -> None:
        """Check what the frontier will run with (project and -s settings)."""
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
