"""What the fork server of :mod:`tests.helpers.forked` imports once: the modules every run of
``scrapy crawl`` or ``python -m crawler`` imports (no Twisted reactor: each child installs
the one its command asks for)."""

import scrapy.cmdline  # noqa: F401
import scrapy.commands.crawl  # noqa: F401

import crawler.addon  # noqa: F401
import crawler.commands.crawl  # noqa: F401
import crawler.node.scheduler  # noqa: F401
import crawler.ops.cli  # noqa: F401
import crawler.pipelines  # noqa: F401
import crawler.spiders.blog  # noqa: F401
import crawler.spiders.follow  # noqa: F401
import crawler.spiders.forum  # noqa: F401
import crawler.spiders.wordpress  # noqa: F401
