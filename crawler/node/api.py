"""What the rest of the crawler may ask of the node: :class:`NodeAPI`, found with
:func:`node_of`. Light on purpose: importing it loads none of the runtime."""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING, Any, Protocol

from crawler.frontier.cluster import UsesFrontier

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

    from crawler.node.revisit import Revisits
    from crawler.node.turns import HostTurns

__all__ = ["NodeAPI", "default_node_name", "node_name", "node_of"]


class NodeAPI(Protocol):
    """What the rest of the crawler may ask of this node's runtime."""

    def settle(self, request: Request, outcome: str | None) -> None:
        """The outcome of *request* has been processed: release its lease. *outcome*
        (``fetched/200``, ``filtered/robots``, ``failed/<error>``) is counted once per
        lease; None settles without an outcome (a retry follows)."""

    def back_off(self, request: Request, seconds: float | None, reason: str) -> None:
        """Put *request*'s host into backoff, cluster-wide, when its lease settles: for
        *seconds* (a Retry-After), or an exponential wait if None."""

    def drop_if_seen(self, request: Request) -> bool:
        """Drop *request* (True, counted ``filtered/duplicate``) if this node queued its
        exact URL lately: the cheapest test, run before anything else on a link."""

    def pending_gap(self, request: Request) -> float | None:
        """Pending work: if *request* is leased to this node and not settled, the gap its
        host keeps between request starts (s); None for a request not leased here."""

    #: the node's id in the ring (:setting:`CRAWLER_NODE_ID`, else host name and pid)
    name: str
    #: the host's gate for requests the frontier never queues (:mod:`crawler.node.turns`)
    turns: HostTurns

    def space_host(self, host: str, gap: float) -> None:
        """Keep at least *gap* seconds between the starts of *host*'s requests, cluster-wide
        (an anti-bot page asked to slow down)."""

    def add_ack_barrier(self, barrier: Callable[[], bool]) -> None:
        """Call *barrier* before acks go to Redis: acks wait until it returns True (what it
        keeps for the acked pages, items or archive records, is durable)."""

    @property
    def revisits(self) -> Revisits:
        """The revisit state: listings kept for revisits, item digests (:mod:`.revisit`)."""

    def health(self) -> dict[str, Any]:
        """What the health endpoints, metrics and progress lines report about this node."""


def node_of(crawler: Crawler) -> NodeAPI | None:
    """The crawl's node runtime, for middlewares and extensions: None without the
    frontier scheduler, before it is built, or when Redis refused its start."""
    try:
        engine = crawler.engine
    except RuntimeError:  # Scrapy >= 2.19 raises before the crawl starts (components alone)
        return None
    scheduler = engine.scheduler if engine is not None else None
    return scheduler.node if isinstance(scheduler, UsesFrontier) else None


def node_name(crawler: Crawler) -> str:
    """This node's id, the one place it is decided: the running node's, else as it would be."""
    node = node_of(crawler)
    return node.name if node is not None else default_node_name(crawler.settings)


def default_node_name(settings: BaseSettings) -> str:
    """:setting:`CRAWLER_NODE_ID`, else the host's name and the process id."""
    return settings.get("CRAWLER_NODE_ID") or f"{socket.gethostname()}-{os.getpid()}"
