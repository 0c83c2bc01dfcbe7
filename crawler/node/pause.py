"""The operator's pause on one node (``python -m crawler pause``).

The pause is a number in the crawl's control state (``paused``: the pause's epoch). At
the heartbeat that reads it, the node closes its gate: it hands the engine no more
requests, and the leased ones it holds go back to the head of their queues. It
*acknowledges* the pause (``paused:<node>`` = the epoch, read by the pause command) only
once nothing it handed the engine can still start: the downloader has no request (queued
in a slot, in a middleware, on the wire) and the scraper nothing that could send one (a
callback, an item pipeline's download). Only then does it report itself paused
(``/readyz``), and the pause command return: no request starts after that.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from crawler.frontier.membership import Membership
    from crawler.node.exchange import Exchange

logger = logging.getLogger(__name__)


class Pause:
    """Follows the crawl's pause switch for this node: the gate, and the acknowledgement."""

    def __init__(self, crawler: Crawler, exchange: Exchange, membership: Membership) -> None:
        self.crawler = crawler
        self.exchange = exchange
        self.membership = membership
        self._closed = False  # the gate: nothing handed to the engine
        self._acknowledged: str | None = None  # the epoch of the pause acknowledged

    def closed(self) -> bool:
        """The operator paused the crawl: this node hands the engine nothing."""
        return self._closed

    def acknowledged(self) -> bool:
        """Paused and acknowledged: nothing this node handed the engine can start."""
        return self._acknowledged is not None

    def follow(self, epoch: str | None) -> None:
        """Apply the switch, *epoch* the pause's (None: not paused); called each heartbeat."""
        if epoch is None:
            if self._closed:
                self._closed, self._acknowledged = False, None
                logger.info("Crawl resumed by the operator")
                self.exchange.wake()
            return
        if not self._closed:
            self._closed = True
            # held batches stop too: their unstarted requests go back to the head of their
            # queues now (acked as handed back; their hosts stay this node's)
            handed = self.exchange.hand_back_unstarted()
            logger.info("Crawl paused by the operator: handed back %(n)d unstarted "
                        "requests; waiting for those under way", {"n": handed})
        if self._acknowledged != epoch and self._nothing_under_way():
            self.membership.acknowledge_pause(epoch)
            self._acknowledged = epoch
            logger.info("Pause acknowledged: no request of this node can start until resume")

    def _nothing_under_way(self) -> bool:
        engine = self.crawler.engine
        if engine is None:
            return True
        scraper = engine.scraper.slot
        return not engine.downloader.active and (scraper is None or scraper.is_idle())
