"""A foreign Scrapy project that uses the frontier by settings alone (no add-on)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT

SPIDER = '''
import scrapy


class Links(scrapy.Spider):
    name = "links"

    def __init__(self, start_urls="", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = start_urls.split(",")
        self.allowed = {u.split("/")[2] for u in self.start_urls}

    def parse(self, response):
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            if url.split("/")[2] in self.allowed:
                yield scrapy.Request(url, callback=self.parse)
'''


def foreign_project(directory: Path, settings: str) -> Path:
    """Write a project (``foreign``) whose settings.py is *settings* plus its spider module."""
    package = directory / "foreign"
    (package / "spiders").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "spiders" / "__init__.py").write_text("")
    (package / "spiders" / "links.py").write_text(SPIDER)
    (package / "settings.py").write_text('BOT_NAME = "foreign"\nSPIDER_MODULES = '
                                         '["foreign.spiders"]\n' + settings)
    (directory / "scrapy.cfg").write_text("[settings]\ndefault = foreign.settings\n")
    return directory


def _command(project: Path, start_urls: list[str], args: tuple[str, ...]) -> tuple[list, dict]:
    env = {**os.environ, "PYTHONPATH": f"{project}{os.pathsep}{ROOT}", "PYTHONUNBUFFERED": "1"}
    # its own scrapy.cfg decides; an earlier in-process get_project_settings() leaves ours here
    for name in ("REDIS_URL", "SCRAPY_SETTINGS_MODULE", "SCRAPY_PROJECT"):
        env.pop(name, None)
    return [sys.executable, "-m", "scrapy", "crawl", "links", "-a",
            "start_urls=" + ",".join(start_urls), *args], env


def crawl(project: Path, start_urls: list[str], *args: str, timeout: float = 120
          ) -> subprocess.CompletedProcess:
    command, env = _command(project, start_urls, args)
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True,
                          timeout=timeout)


def start(project: Path, start_urls: list[str], *args: str, log: Path) -> subprocess.Popen:
    """A node of the foreign project in its own process, its log in *log*."""
    command, env = _command(project, start_urls, args)
    with open(log, "w") as out:
        return subprocess.Popen(command, cwd=project, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
