"""A crawl with credentials keeps its files to its user: state (the embedded Redis's data
and AOF) and archive (WARC files) are 0600, their folders 0700.

Credentials: :setting:`CRAWLER_LOGIN` (or its environment variable), ``-a username/password``,
:setting:`CRAWLER_COOKIES_FILE`, a proxy URL with ``user:password@`` in the environment
(Scrapy's HttpProxyMiddleware reads ``http_proxy``/``https_proxy``), ``http_user`` (HTTP
auth). The process's umask becomes 077 before the crawl's Redis starts (its server inherits
it), and what an earlier run left (the state folder made before the spider was known, a
resumed crawl's files) is made private at the crawl's open and close.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from scrapy import signals

from crawler.embedded_redis import embedded_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

PROXY_VARIABLES = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy")


def has_credentials(crawler: Crawler, environ: dict[str, str] | None = None) -> bool:
    environ = os.environ if environ is None else environ
    settings, spider = crawler.settings, crawler.spider
    given = [settings.get("CRAWLER_LOGIN"), environ.get("CRAWLER_LOGIN"),
             settings.get("CRAWLER_COOKIES_FILE"),
             *(getattr(spider, name, None) for name in ("username", "password", "http_user"))]
    if any(value not in (None, "", "None", "none") for value in given):
        return True
    return any("@" in environ.get(name, "") for name in PROXY_VARIABLES)


def keep_private(crawler: Crawler) -> None:
    """If the crawl has credentials: umask 077 now, its folders made private at the open
    and the close."""
    if not has_credentials(crawler):
        return
    os.umask(0o077)

    def private() -> None:
        for folder in (embedded_of(crawler).state_dir,
                       crawler.settings.get("CRAWLER_WARC_DIR")):
            if folder:
                make_private(Path(folder))

    crawler.signals.connect(private, signal=signals.spider_opened, weak=False)
    crawler.signals.connect(private, signal=signals.spider_closed, weak=False)


def make_private(folder: Path) -> None:
    """*folder* 0700, every file in it 0600, every folder under it 0700."""
    if not folder.is_dir():
        return
    try:
        folder.chmod(0o700)
        for path in folder.rglob("*"):
            if path.is_symlink():
                continue
            path.chmod(0o700 if path.is_dir() else 0o600)
    except OSError as exc:
        logger.warning("%(folder)s could not be made private (mode 0600/0700): %(exc)s",
                       {"folder": folder, "exc": exc})
