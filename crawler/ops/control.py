"""Operator actions on a crawl: seed, pause/resume, drain/undrain, purge (and, for an
embedded crawl, its state folder).

The switches live in the crawl's control state; every node reads it at each
heartbeat, so an action takes effect within :setting:`CRAWLER_HEARTBEAT_INTERVAL`. Pause
waits for it: it returns once every live node acknowledged it (:mod:`crawler.node.pause`).
This module checks the operator's input and says what went wrong; the reads and
writes are :class:`crawler.frontier.cluster.Cluster`'s.
"""

from __future__ import annotations

import logging
import shutil
import time
from typing import TYPE_CHECKING

from scrapy import Request
from scrapy.utils.httpobj import urlparse_cached

from crawler import config
from crawler.embedded_redis import stop_embedded
from crawler.netguard import refused_start_url
from crawler.ops.connect import CliError
from crawler.spiders.arguments import parse_start_urls

if TYPE_CHECKING:
    from pathlib import Path

    from scrapy.settings import Settings

    from crawler.frontier.cluster import SeedResult
    from crawler.ops.connect import Target

logger = logging.getLogger(__name__)

_ACK_POLL = 0.05  # s between two reads of the nodes' acknowledgements of a pause


def seed(target: Target, urls: list[str], *, dont_filter: bool = False) -> SeedResult:
    """Queue *urls* for the spider's default callback; URLs already seen are skipped."""
    s = target.settings
    return target.cluster.seed([_request(url, dont_filter) for url in urls],
                               dont_filter=dont_filter,
                               host_limit=config.value(s, "CRAWLER_HOST_PAGE_LIMIT"),
                               vnodes=config.value(s, "CRAWLER_RING_VNODES"))


def check_seeds(urls: list[str], settings: Settings, given: dict[str, str]) -> list[str]:
    """*urls* as a crawl takes its start URLs (:func:`parse_start_urls`: without a userinfo,
    so no password is queued; repeats once), or ValueError in one line for the first URL a
    crawl would refuse as a start URL: not ``http://`` or ``https://`` as written
    (``HTTP://`` included), no valid host, or an address the netguard refuses (unless
    *given* or *settings* allow private addresses)."""
    for url in urls:
        config.check_url(url.strip(), "seed URL")
    urls = parse_start_urls(urls)
    settings = settings.copy()
    settings.setdict(given, priority="cmdline")
    if message := refused_start_url(urls, settings):
        raise ValueError(message.replace("start URL", "seed URL", 1))
    return urls


def _request(url: str, dont_filter: bool) -> Request:
    try:
        request = Request(url, dont_filter=dont_filter)
    except ValueError as exc:
        raise CliError(f"not a URL to crawl: {url!r} ({exc})") from None
    if urlparse_cached(request).scheme not in ("http", "https"):
        raise CliError(f"not an http(s) URL: {url!r}")
    return request


def pause(target: Target, timeout: float) -> list[str]:
    """Pause the crawl, and return once every live node acknowledged it (none of its
    requests can start any more): the nodes that did. A one-line :class:`CliError`
    naming those that did not within *timeout* seconds (the crawl stays paused)."""
    cluster = target.cluster
    epoch = cluster.set_paused(True)
    node_timeout = config.value(target.settings, "CRAWLER_NODE_TIMEOUT")
    deadline = time.monotonic() + timeout
    while True:
        acknowledged = {k.removeprefix("paused:") for k, v in cluster.control().items()
                        if k.startswith("paused:") and v == epoch}
        # a node that dies meanwhile starts nothing either: only live ones must answer
        waiting = sorted(set(cluster.live_nodes(node_timeout)) - acknowledged)
        if not waiting:
            return sorted(acknowledged)
        if time.monotonic() >= deadline:
            raise CliError(f"crawl {target.crawl!r} is paused, but {', '.join(waiting)} did "
                           f"not acknowledge within {timeout:g} s and may still start "
                           "requests (see `status`; pause again to wait more)")
        time.sleep(_ACK_POLL)  # nodes answer at their heartbeat: a read every 50 ms


def resume(target: Target) -> None:
    target.cluster.set_paused(False)


def set_drain(target: Target, node: str, drain: bool, *, force: bool = False) -> None:
    cluster = target.cluster
    if not drain:
        if not drain_requested(target, node) and not force:
            raise CliError(f"node {node!r} is not draining by request; nothing to undo")
        cluster.set_drain(node, False)
        return
    members = cluster.members()
    if node not in members and not force:
        raise CliError(f"unknown node {node!r} in crawl {target.crawl!r} "
                       f"(members: {', '.join(members) or 'none'}); --force to set it anyway")
    cluster.set_drain(node, True)


def drain_requested(target: Target, node: str) -> bool:
    return target.cluster.control().get(f"drain:{node}") == "1"


def drain_warning(target: Target, node: str) -> str | None:
    """What draining *node* leaves: a warning when no live node will own hosts any more."""
    owners = [n for n in live_nodes(target) if n != node and not drain_requested(target, n)]
    if owners:
        return None
    return (f"{node} was the last live node owning hosts: its hosts are left without an owner "
            f"and nothing is crawled until a node joins or you run: undrain {node}")


def remove_state_folder(target: Target) -> Path | None:
    """After a purge of an embedded crawl: stop its server and delete its folder (the purge
    removed its keys; the AOF would only replay them). Returns the folder deleted."""
    folder = target.state_folder
    if folder is None or target.embedded is None:
        return None
    target.cluster.client.connection_pool.disconnect()  # ours; the command is done with it
    stop_embedded(target.embedded)
    if target.embedded.pid:  # another process still uses it (stop_embedded left it running)
        logger.warning("Kept the state folder %(folder)s: another process uses its Redis",
                       {"folder": folder})
        return None
    shutil.rmtree(folder, ignore_errors=True)
    return folder


def live_nodes(target: Target) -> list[str]:
    return target.cluster.live_nodes(config.value(target.settings, "CRAWLER_NODE_TIMEOUT"))


def purge(target: Target, *, force: bool = False) -> int:
    """Delete every key of the crawl. Refused while nodes are alive, unless *force*."""
    alive = live_nodes(target)
    if alive and not force:
        raise CliError(f"crawl {target.crawl!r} has live nodes ({', '.join(alive)}): stop "
                       "them first, or add --force")
    deleted = target.cluster.purge()
    logger.info("Purged crawl %(crawl)s: %(n)d keys", {"crawl": target.crawl, "n": deleted})
    return deleted
