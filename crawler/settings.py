"""Project settings: the cluster add-on plus site policy. Every CRAWLER_* setting is
documented in docs/settings.md; defaults live in crawler/settings_defaults.py."""

BOT_NAME = "crawler"
SPIDER_MODULES = ["crawler.spiders"]
NEWSPIDER_MODULE = "crawler.spiders"
COMMANDS_MODULE = "crawler.commands"

ADDONS = {"crawler.addon.ClusterAddon": 0}

USER_AGENT = "forum-crawler/0.1 (+https://github.com/forum-crawler/forum-crawler)"
ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS = 16
CONCURRENT_ITEMS = 8  # the default 100 halves a link-following spider's throughput
DOWNLOAD_DELAY = 0.5  # enforced per host across the whole cluster
FEED_EXPORT_ENCODING = "utf-8"
# Charsets that lie (GBK pages sent as UTF-8): after decompression, before spiders
DOWNLOADER_MIDDLEWARES = {"crawler.encoding.CharsetMiddleware": 580}
LOG_LEVEL = "INFO"
# Quiet logs: no telnet console or remote-code HTTP server on a crawler node; dropped items
# and download errors logged once per reason / host (crawler/ops/logs.py); Scrapy's LogStats
# gives way to our progress lines (crawler/ops/progress.py) while those are on.
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False
LOG_FORMATTER = "crawler.ops.logs.QuietLogFormatter"
EXTENSIONS = {"scrapy.extensions.logstats.LogStats": None,
              "crawler.ops.progress.LogStatsUnlessProgress": 0}
# No connection to loopback, private, link-local or metadata addresses (SSRF), checked
# after DNS for every hop; CRAWLER_ALLOW_PRIVATE_ADDRESSES=True allows them. The resolver
# is the process's, so it is set here (add-ons and spiders cannot change it).
TWISTED_DNS_RESOLVER = "crawler.netguard.PublicAddressResolver"
