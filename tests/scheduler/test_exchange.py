"""The exchange's refill cadence: a host freed on this node is leased again without waiting."""

from __future__ import annotations

from tests.helpers.nodes import COMMON, assert_each_page_once
from tests.sitekit.site import SiteServer


def test_acks_released_while_a_refill_is_on_the_wire_go_out_at_once(nodes) -> None:
    """A refill that leases nothing puts the node to sleep until work may be due, at most
    CRAWLER_IDLE_BACKOFF_MAX. Acks released while that refill was on the wire free their
    hosts: sleeping then would idle those hosts (here for 60 s each time, so the crawl
    would not end within the wait below)."""
    with SiteServer(hosts=4, pages_per_host=80, seed=3) as site:
        node = nodes("crawler-0", site.base_urls, **COMMON, DOWNLOAD_DELAY=0,
                     CRAWLER_IDLE_BACKOFF_MAX=60)
        assert node.wait(50) == 0, node.output()[-3000:]
        assert_each_page_once(site)
