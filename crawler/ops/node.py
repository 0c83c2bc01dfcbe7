"""``python -m crawler node SPIDER [scrapy crawl options]``: run one node, configured by its
environment.

The container's entry point. Scrapy 2.19 reads no settings from the environment
(only ``SCRAPY_SETTINGS_MODULE``, ``SCRAPY_PROJECT``, ``SCRAPY_CHECK`` and
``SCRAPY_PYTHON_SHELL``), so this maps it, at command-line priority:

- ``REDIS_URL`` and every ``CRAWLER_*`` variable become the setting of that name;
- ``SCRAPY_<NAME>`` becomes Scrapy setting ``<NAME>`` (``SCRAPY_DOWNLOAD_DELAY``),
  except the four names Scrapy itself reads;
- ``-s NAME=VALUE`` given to the command wins over both.

The crawl runs in this process (no ``exec``): SIGTERM reaches Scrapy, which shuts
down gracefully (the scheduler hands off at once), and the Redis password does
not show in the process list.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from scrapy.cmdline import execute
from scrapy.utils.project import get_project_settings

if TYPE_CHECKING:
    from collections.abc import Mapping

SCRAPY_OWN = {"SCRAPY_SETTINGS_MODULE", "SCRAPY_PROJECT", "SCRAPY_CHECK", "SCRAPY_PYTHON_SHELL"}


def settings_from_env(environ: Mapping[str, str]) -> dict[str, str]:
    settings = {}
    for name, value in environ.items():
        if name == "REDIS_URL" or name.startswith("CRAWLER_"):
            settings[name] = value
        elif name.startswith("SCRAPY_") and name not in SCRAPY_OWN:
            settings[name[len("SCRAPY_"):]] = value
    return settings


def run(argv: list[str]) -> int:
    """Run ``scrapy crawl *argv*`` with the environment's settings; return its exit status."""
    settings = get_project_settings()
    settings.setdict(settings_from_env(os.environ), priority="cmdline")
    try:
        execute(["scrapy", "crawl", *argv], settings)
    except SystemExit as exc:  # execute() always leaves through sys.exit
        return exc.code if isinstance(exc.code, int) else 1
    return 0
