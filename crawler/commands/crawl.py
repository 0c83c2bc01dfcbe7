"""``scrapy crawl`` with a preflight: bad settings or an unreachable Redis end with one
line naming the setting and a non-zero exit, not a traceback.

``REDIS_URL`` from the environment is used when no setting gives one (settings win).

Exit status (the README's table): 0 a crawl that finished (or hit a ``CLOSESPIDER_*`` limit)
having fetched something, an incremental pass included, or a graceful stop (Ctrl-C once,
SIGTERM: it resumes); 1 an unexpected error; 2 refused at the start (bad setting or
argument, a start URL on a private address, Redis unreachable or refusing the frontier, the
embedded state in use by another crawl); 3 nothing fetched: every URL it tried failed or was
filtered; 4 stopped before finishing for another reason (a stall, an error in a component);
130 a forced stop (Ctrl-C twice).
"""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.extensions.feedexport import FeedExporter
from scrapy.utils.misc import load_object
from scrapy.utils.reactor import is_reactor_installed

from crawler.addon import ClusterAddon
from crawler.durable import ITEMS_ERROR_STAT
from crawler.embedded_redis import mark_resumable
from crawler.frontier.cluster import uses_frontier
from crawler.login import LOGIN_FAILED_STAT
from crawler.node.scheduler import REFUSED_STAT
from crawler.redis import RedisUnavailable, connect
from crawler.spiders.arguments import split_urls
from crawler.state import (
    StateLocked,
    crawl_state_dir,
    default_crawl_id,
    is_crawl_state,
    lock_state,
)

#: exit statuses besides Scrapy's 0 (done), 1 (error) and 2 (usage)
EXIT_REFUSED, EXIT_NOTHING_FETCHED, EXIT_STOPPED, EXIT_FORCED = 2, 3, 4, 130

if TYPE_CHECKING:
    import argparse

    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


class Command(ScrapyCrawl):
    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        self._spargs = opts.spargs
        # set names of -s options: checked for typos in the preflight
        self._cmdline_names = [item.split("=", 1)[0] for item in opts.set or ()]
        if not self.settings.get("REDIS_URL") and os.environ.get("REDIS_URL"):
            self.settings.set("REDIS_URL", os.environ["REDIS_URL"], "project")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        try:
            if len(args) == 1:
                self._check_spider(args[0], opts.spargs)
            frontier = self._preflight()
            if len(args) == 1 and frontier:
                self._check_start(args[0], opts.spargs)
            if len(args) == 1 and opts.overwrite_output:
                self._refuse_overwrite(args[0], opts.overwrite_output)
        except (RedisUnavailable, ValueError, StateLocked) as exc:
            print(f"error: {exc}", file=sys.stderr)
            self.exitcode = EXIT_REFUSED
            return
        crawler = self._crawl(args, opts)
        if crawler is None or self.exitcode:
            return
        if refused := crawler.stats.get_value(REFUSED_STAT):
            print(f"error: {refused}", file=sys.stderr)
            self.exitcode = EXIT_REFUSED
            return
        if failed := crawler.stats.get_value(LOGIN_FAILED_STAT):  # crawler.login: no password
            print(f"error: {failed}", file=sys.stderr)
            self.exitcode = EXIT_REFUSED
            return
        if unwritten := crawler.stats.get_value(ITEMS_ERROR_STAT):  # crawler.durable
            print(f"error: {unwritten}", file=sys.stderr)
            self.exitcode = EXIT_STOPPED
            return
        stats = crawler.stats.get_stats()
        if getattr(self, "_forced", False):
            stats = {k: v for k, v in stats.items() if k != "finish_reason"}
        self.exitcode, message = exit_status(stats)
        if message:
            print(f"error: {message}", file=sys.stderr)

    def _crawl(self, args: list[str], opts: argparse.Namespace) -> Crawler | None:
        """Scrapy's ``crawl``, through its public API: the crawler, whose stats say how the
        crawl ended, its embedded state kept (Ctrl-C resumes). None: a usage error."""
        if len(args) != 1:
            super().run(args, opts)  # Scrapy's usage errors
            return None
        process = self.crawler_process
        crawler = process.create_crawler(args[0])  # (the reactor is installed by now)
        mark_resumable(crawler)
        self._note_forced_stop()
        crawler.signals.connect(_warn_if_feeds_unused, signal=signals.engine_started)
        process.crawl(crawler, **opts.spargs)
        process.start()
        if process.bootstrap_failed:
            self.exitcode = 1
        return crawler

    def _note_forced_stop(self) -> None:
        """Remember a second Ctrl-C (SIGTERM): Scrapy then stops the reactor at once, even
        when the engine has just closed the spider gracefully. Scrapy installs its signal
        handlers once the reactor runs, and its first installs the one that forces the
        stop: each is wrapped, with Python's own signal API, as it comes."""
        self._stops = 0
        if not is_reactor_installed():  # TWISTED_REACTOR_ENABLED=False: asyncio's own loop
            return
        from twisted.internet import reactor  # noqa: PLC0415 - the one Scrapy installed

        def wrap() -> None:
            for signum in (signal.SIGINT, signal.SIGTERM):
                inner = signal.getsignal(signum)
                if callable(inner) and not getattr(inner, "counts_stops", False):
                    signal.signal(signum, counting(inner))

        def counting(inner: Any) -> Any:
            def handler(signum: int, frame: object) -> None:
                self._stops += 1
                self._forced = self._stops > 1
                inner(signum, frame)
                wrap()  # Scrapy's first handler has just installed its second

            handler.counts_stops = True  # type: ignore[attr-defined]
            return handler

        # after the startup triggers, Scrapy's installing its handlers among them
        reactor.callWhenRunning(reactor.callLater, 0, wrap)


    def _check_spider(self, name: str, arguments: dict[str, str]) -> None:
        from crawler.node.revisit import watch_argument  # noqa: PLC0415

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

    def _preflight(self) -> bool:
        """Check what the frontier will run with (project and -s settings); a crawl in
        Redis that this version cannot go on with is refused by the frontier's start.
        Whether the crawl runs on the frontier."""
        from crawler.config import validate  # noqa: PLC0415
        from crawler.node.options import SchedulerOptions  # noqa: PLC0415

        settings = self.settings.copy()
        names = [*getattr(self, "_cmdline_names", ()),
                 *(n for n in settings if settings.getpriority(n) == 20)]  # project
        uses_addon = any(load_object(a) is ClusterAddon for a in settings.getdict("ADDONS"))
        if not uses_addon and not uses_frontier(settings):
            return False
        if uses_addon:
            ClusterAddon().update_settings(settings)
        validate(settings, names)
        SchedulerOptions.from_settings(settings)
        if url := settings.get("REDIS_URL"):
            from crawler.config import value  # noqa: PLC0415

            connect(url, value(settings, "CRAWLER_REDIS_CONNECT_TIMEOUT")).close()
        return True

    def _check_start(self, spider: str, arguments: dict[str, str]) -> None:
        """Refuse, before anything is stored, start URLs the netguard would refuse (a crawl
        of nothing, then "finished"), and a second process on one embedded state."""
        from crawler.netguard import refused_start_url  # noqa: PLC0415

        settings = self.settings.copy()
        ClusterAddon().update_settings(settings)
        urls = start_urls(self.crawler_process.spider_loader.load(spider), arguments)
        if message := refused_start_url(urls, settings):
            raise ValueError(message)
        if not settings.get("REDIS_URL"):
            lock_state(crawl_state_dir(settings.get("CRAWLER_STATE_DIR"),
                                       crawl_of(spider, settings, arguments, self)))

    def _refuse_overwrite(self, spider: str, outputs: list[str]) -> None:
        """``-O FILE`` over a crawl that resumes would replace what its earlier runs wrote
        (a resumed crawl does not fetch those pages again): refuse, and say what to do."""
        settings = self.settings.copy()
        ClusterAddon().update_settings(settings)  # its defaults (CRAWLER_STATE_DIR)
        if settings.get("REDIS_URL"):
            return  # a cluster's items go to its stream (python -m crawler export)
        crawl = crawl_of(spider, settings, getattr(self, "_spargs", {}), self)
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



def start_urls(spidercls: type, arguments: dict[str, str]) -> list[str]:
    """The start URLs a spider gets from ``-a start_urls=``/``-a start_url=`` (comma-separated),
    else its class's ``start_urls``."""
    given = [u.strip() for name in ("start_urls", "start_url")
             for u in split_urls(str(arguments.get(name) or "")) if u.strip()]
    if given:
        return list(dict.fromkeys(given))
    urls = getattr(spidercls, "start_urls", None)
    return list(urls) if isinstance(urls, (list, tuple)) else []


def crawl_of(spider: str, settings, arguments: dict[str, str], command: Command) -> str:
    """The crawl id the frontier will use (:func:`crawler.redis.crawl_id`)."""
    from crawler.config import value  # noqa: PLC0415

    if given := value(settings, "CRAWLER_CRAWL_ID"):
        return given
    if settings.get("REDIS_URL"):
        return spider
    return default_crawl_id(spider, start_urls(
        command.crawler_process.spider_loader.load(spider), arguments))


def exit_status(stats: dict) -> tuple[int, str | None]:
    """The exit status of a crawl that ran, from its stats, and the error line to print."""
    reason = stats.get("finish_reason")
    fetched, failed = stats.get("outcomes/fetched", 0), stats.get("outcomes/failed", 0)
    # refused: robots.txt, offsite, limits...; not URLs seen before (an incremental pass
    # of a follow crawl that finds nothing new has only those)
    refused = stats.get("outcomes/filtered", 0) - stats.get("outcomes/filtered/duplicate", 0)
    if reason is None:  # the engine never closed: a second Ctrl-C stopped the reactor
        return EXIT_FORCED, ("forced stop: requests in flight were dropped (their leases "
                             "return them to the queue when the crawl resumes)")
    if reason == "shutdown":  # Ctrl-C once, SIGTERM: handed back, resumes
        return 0, None
    if reason == "finished" or str(reason).startswith("closespider_"):
        if not fetched and (failed or refused):
            return EXIT_NOTHING_FETCHED, (
                f"fetched 0 pages: {failed} URLs failed and {refused} were filtered (the "
                "Crawl summary above says why; python -m crawler failures lists the failed ones)")
        return 0, None
    return EXIT_STOPPED, f"the crawl stopped before finishing (reason: {reason})"


def _warn_if_feeds_unused(sender: Crawler, **kwargs: Any) -> None:
    """What Scrapy's crawl command says when feeds are given but not exported."""
    if sender.settings.getdict("FEEDS") and sender.get_extension(FeedExporter) is None:
        logger.warning("The FeedExporter extension is not enabled, so no item will be "
                       "exported to the configured feeds (FEEDS, -o, -O).")
