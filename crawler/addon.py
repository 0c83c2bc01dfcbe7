"""The cluster as a Scrapy add-on: ``ADDONS = {"crawler.addon.ClusterAddon": 0}``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from crawler.settings_defaults import DEFAULTS

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


MAXSIZE = 16 * 1024 * 1024
WARNSIZE = 4 * 1024 * 1024


class ClusterAddon:
    """Installs the distributed frontier into any Scrapy project.

    - sets every ``CRAWLER_*`` default (lowest priority, so project, spider and
      command-line values win);
    - makes :class:`crawler.scheduler.Scheduler` the scheduler;
    - makes feeds durable before acks (:mod:`crawler.feeds`: the file and stdout storages,
      Scrapy's gzip, bz2 and lzma plugins in their flushable form);
    - adds the lease-settling middlewares and the politeness-aware robots.txt
      middleware;
    - leaves :setting:`DOWNLOAD_DELAY` (and a spider's ``download_delay``, which Scrapy
      applies after the add-ons) and :setting:`DEPTH_LIMIT` as set: the frontier applies
      them, the delay in its cluster-wide per-host gate (``CRAWLER_HOST_DELAY`` wins when
      set) and the depth limit when it queues a request; Scrapy's downloader slots keep
      the delay without jitter, so they never wait on top of the gate.
    """

    def update_settings(self, settings: BaseSettings) -> None:
        from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware  # noqa: PLC0415
        from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware  # noqa: PLC0415
        from scrapy.spidermiddlewares.depth import DepthMiddleware  # noqa: PLC0415
        from scrapy.spidermiddlewares.urllength import UrlLengthMiddleware  # noqa: PLC0415

        from crawler.feeds import use_durable_feeds  # noqa: PLC0415
        from crawler.fetch_policy import RedirectOffsiteMiddleware  # noqa: PLC0415
        from crawler.node.robots import PoliteRobotsTxtMiddleware  # noqa: PLC0415

        for name, value in DEFAULTS.items():
            settings.set(name, value, "addon")
        settings.set("SCHEDULER", "crawler.scheduler.Scheduler", "addon")
        # feeds that hold a page's items before it is acked (crawler/feeds.py)
        use_durable_feeds(settings)
        # Forum and blog pages are small: Scrapy's 1 GiB limit lets one response take a
        # node's memory (over the limit: outcomes/filtered/too_large); a project's wins
        settings.set("DOWNLOAD_MAXSIZE", MAXSIZE, "addon")
        settings.set("DOWNLOAD_WARNSIZE", WARNSIZE, "addon")
        # DUPEFILTER_CLASS stays Scrapy's default, which the scheduler reads as the Bloom filter:
        # code that builds the dupefilter from the setting alone still gets RFPDupeFilter.
        # DOWNLOAD_DELAY stays as set: the scheduler reads it when the crawl starts, once
        # Scrapy has applied a spider's download_delay attribute (after the add-ons). The
        # gate spaces a host's requests from the end of one to the start of the next, so
        # Scrapy's slot, which spaces their starts by the same delay (no jitter, below),
        # never adds a wait of its own.
        # Depth and URL length are filtered by the frontier, which counts the outcome;
        # Scrapy's spider middlewares would drop them unseen. DEPTH_LIMIT stays as set
        # (the frontier reads it): Scrapy's depth middleware only records the depth.
        settings.set_in_component_priority_dict("SPIDER_MIDDLEWARES", DepthMiddleware, None)
        settings.set_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", "crawler.node.middleware.DepthOnlyMiddleware", 900)
        settings.set_in_component_priority_dict("SPIDER_MIDDLEWARES", UrlLengthMiddleware, None)
        settings.set("DOWNLOAD_DELAY_JITTER", 0, "cmdline")
        settings.set_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", RobotsTxtMiddleware, None)
        settings.set_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", PoliteRobotsTxtMiddleware, 100)
        settings.set_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", OffsiteMiddleware, None)
        settings.set_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", RedirectOffsiteMiddleware, 50)
        settings.set_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", "crawler.node.middleware.LeaseDownloaderMiddleware", 1
        )
        settings.set_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", "crawler.node.middleware.HostBackoffMiddleware", 560
        )
        # requests the frontier never queues (attachments) wait for their host's gate,
        # closest to the downloader
        settings.set_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", "crawler.node.turns.HostTurnMiddleware", 990)
        settings.set_in_component_priority_dict(
            "EXTENSIONS", "crawler.fetch_policy.NotAPageFilter", 0
        )
        # Revisits (crawler/incremental/): after decompression on the way back (570),
        # outside HttpErrorMiddleware (50) and after item cleanup (450)
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES",
            "crawler.incremental.listings.RevisitDownloaderMiddleware", 570)
        settings.setdefault_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", "crawler.incremental.rows.RevisitSpiderMiddleware", 40)
        settings.setdefault_in_component_priority_dict(
            "ITEM_PIPELINES", "crawler.incremental.items.RevisitPipeline", 450)
        # The web archive (crawler/archive/): off unless CRAWLER_WARC_DIR; closer to the
        # downloader than decompression (590), so it stores the bytes as received
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", "crawler.archive.middleware.WarcMiddleware", 950)
        # Members-only boards (crawler/login/): a session per site before the first start
        # request; on responses after decompression (590), on requests before cookies (700)
        settings.setdefault_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", "crawler.login.middleware.LoginSpiderMiddleware", 5)
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", "crawler.login.middleware.LoginDownloaderMiddleware", 585)
        # Operations: each turns itself off when its setting is off
        settings.setdefault_in_component_priority_dict(
            "EXTENSIONS", "crawler.ops.health.HealthExtension", 500)
        settings.setdefault_in_component_priority_dict(
            "EXTENSIONS", "crawler.ops.progress.ProgressExtension", 500)
        settings.setdefault_in_component_priority_dict(
            "EXTENSIONS", "crawler.ops.stats_file.StatsFile", 500)
        settings.setdefault_in_component_priority_dict(
            "EXTENSIONS", "crawler.ops.gc_tuning.GcTuning", 500)
        settings.setdefault_in_component_priority_dict(
            "ITEM_PIPELINES", "crawler.ops.sink.RedisStreamSink", 900)
        settings.set_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", "crawler.node.middleware.LeaseSpiderMiddleware", 1
        )
        # innermost (Scrapy's own end at 1000): repeats skip all the others
        settings.set_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", "crawler.node.middleware.RepeatLinkFilter", 1100
        )

