"""Where the embedded Redis keeps a crawl's state: ``CRAWLER_STATE_DIR/<crawl id>/``.

A relative :setting:`CRAWLER_STATE_DIR` (the default ``.crawler-state``) is anchored to the
project, the folder of ``scrapy.cfg`` (found from the working directory upwards, as Scrapy
finds the project), not to the working directory: the same command run from a subfolder
resumes the same crawl. Without a ``scrapy.cfg`` (``SCRAPY_SETTINGS_MODULE`` only), the
working directory it is.
"""

from __future__ import annotations

from pathlib import Path

from scrapy.utils.conf import closest_scrapy_cfg

__all__ = ["STATE_FILE", "crawl_state_dir", "is_crawl_state", "project_dir", "state_root"]

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
    """The state folder of crawl ``crawl``."""
    return state_root(value) / crawl


def is_crawl_state(folder: Path) -> bool:
    """Whether ``folder`` is one crawl's state (rather than the folder of several)."""
    return (folder / STATE_FILE).exists() or (folder / "appendonlydir").is_dir() or \
        (folder / "appendonly.aof").exists()
