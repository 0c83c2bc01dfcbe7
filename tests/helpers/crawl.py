"""Run ``scrapy crawl`` as a subprocess and read its JSON Lines output.

:func:`run_crawl` is the one place that decides how end-to-end tests and the fixture updater
invoke Scrapy (scheduler, robots.txt, log level), so switching them all to another scheduler
is a change here only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import crawler
from tests.helpers import forked

#: The checkout whose ``crawler`` package is imported (the bench imports a snapshot of it):
#: crawls run there, on that code.
PROJECT_ROOT = Path(crawler.__file__).resolve().parents[1]

#: Settings every fixture crawl runs with: the project's own (the cluster add-on, so the
#: distributed frontier on an embedded Redis of its own), made quick for small local sites.
CRAWL_SETTINGS: dict[str, str] = {
    # Fixture servers are local; the project's politeness delay would only slow tests down.
    "DOWNLOAD_DELAY": "0",
    "CRAWLER_ALLOW_PRIVATE_ADDRESSES": "True",  # fixture servers are on 127.0.0.1
    "CRAWLER_IDLE_CLOSE": "0.3",
    "CRAWLER_HEARTBEAT_INTERVAL": "0.1",
    "CRAWLER_NODE_TIMEOUT": "2",
    "SPIDER_MODULES": "crawler.spiders",
    "TELNETCONSOLE_ENABLED": "False",
    "LOG_LEVEL": "INFO",
}


@dataclass
class CrawlResult:
    items: list[dict[str, Any]]
    log: str
    stats: dict[str, int]


def run_crawl(
    spider: str,
    start_url: str,
    out: Path,
    *,
    settings: dict[str, str] | None = None,
    args: dict[str, str] | None = None,
    timeout: float = 120,
    fork: bool = True,
) -> CrawlResult:
    """Crawl ``start_url`` with ``spider`` into ``out`` (JSON Lines) and return the items.
    *fork*: in a process forked from one that imported the project already
    (:mod:`tests.helpers.forked`, the tests); False: a child of this process (the bench,
    which counts a crawl's CPU among its children's)."""
    cmd = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        spider,
        "-a",
        f"start_url={start_url}",
        "-O",
        f"{out}:jsonlines",
    ]
    for name, value in (args or {}).items():
        cmd += ["-a", f"{name}={value}"]
    stats_file = out.with_name(out.name + ".stats.json")
    state = {"CRAWLER_STATE_DIR": str(out.parent / "frontier-state"),  # a fresh crawl each time
             "CRAWLER_STATS_FILE": str(stats_file)}
    for name, value in {**CRAWL_SETTINGS, **state, **(settings or {})}.items():
        cmd += ["-s", f"{name}={value}"]
    if fork:
        proc = forked.run("scrapy", cmd[3:], env=_env(), cwd=PROJECT_ROOT, timeout=timeout)
    else:
        proc = subprocess.run(cmd, cwd=PROJECT_ROOT, env=_env(), capture_output=True, text=True,
                              timeout=timeout, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"scrapy crawl {spider} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    stats = json.loads(stats_file.read_text())
    return CrawlResult([json.loads(line) for line in lines], proc.stderr,
                       {k: v for k, v in stats.items() if isinstance(v, int)})


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    env["SCRAPY_SETTINGS_MODULE"] = "crawler.settings"
    return env
