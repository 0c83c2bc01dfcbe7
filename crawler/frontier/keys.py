"""Redis key names of one crawl. An implementation detail: may change between versions.

Every key carries the hash tag ``{<crawl id>}``, so all keys of a crawl share one
Redis Cluster slot and every Lua script stays single-slot. Moving a host between
nodes therefore never moves keys, only index entries.

======================  ======  =================================================
key                     type    content
======================  ======  =================================================
``members``             zset    node id -> last heartbeat (ms); the membership
``weights``             hash    node id -> ring weight
``epoch``               string  bumped on every join, leave and death; the fence
                                every script checks, so no write uses a stale ring
``totals``              hash    ``queued``, ``leased`` (cluster totals), ``seq``
                                (lease id counter)
``ready:<node>``        zset    host -> time (ms) its next request may start;
                                the hosts with queued work that a node owns (a
                                host in flight to its limit is parked a minute
                                ahead; its ack re-arms it or takes it out)
``orphans``             zset    hosts with queued work whose owner died or left
``pushlog:<node>``      string  id and result codes of the node's last push batch
``leases:<node>``       hash    lease id -> ``host\\n<encoded request>``
``q:<host>``            list    encoded requests of a host, FIFO (breadth-first)
``q<p>:<host>``         list    its requests of priority *p* other than 0 (tagged
                                ``!<p>|``), leased before those of lower levels
``host:<host>``         hash    ``n`` in flight, ``t`` next start (ms), ``d`` delay
                                (ms, robots.txt Crawl-delay), ``a`` admitted, ``b``
                                consecutive backoffs, ``e`` '1' while the hash has
                                its idle expiry (a week), ``P`` the priority levels
                                other than 0 with queued requests, highest first
``bloom``               hash    Bloom filter meta: ``capacity``, ``error_rate``,
                                ``block_bits`` (the layout), ``queues`` (the queues'
                                layout), ``n`` filters, ``c<i>``
                                items in filter *i*, ``m<i>`` filter *i*'s string made
                                at its full size
``bloom:<i>``           string  bits of filter *i*, in blocks of ``block_bits``
``outcomes``            hash    ``<node>@<run start ms>/<outcome>`` -> count; every
                                node's outcome counters, summed by the status command
``failures``            stream  one entry per URL that failed for good: url, reason
                                (capped: the latest 100,000)
``deadletters``         stream  queued requests that could not be used: ``host``,
                                ``payload``, ``reason`` (e.g. ``undecodable``), ``node``
``items``               stream  one entry per scraped item: ``node``, ``item`` (JSON),
                                from every node (:class:`crawler.ops.sink.RedisStreamSink`)
``nodestats``           hash    node id -> JSON of its latest progress sample
``templates``           hash    host -> JSON of the site template learned for it
                                (forums without a profile), shared by every node
``events``              stream  ring rebalances: ``epoch``, ``node``, ``away``, ``claimed``
``revisit:due``         zset    host -> earliest due time (ms) of its revisits; the
                                one index a node reads to find its due revisits
``revisit:pass``        string  start (ms) of the current run-again pass: revisits
                                scheduled before it are due in this pass
``revisit:passes``      string  how many run-again passes began (the deep revisits'
                                pass cycle)
``revisit:deep``        hash    host -> ``<pass> <ms>``: when its deep revisits last ran
``rvq:<host>``          zset    the host's revisits: URL fingerprint -> due (ms)
``rvd:<host>``          zset    the host's threads or articles: key -> phase of its deep
                                revisits in their cycle, in [0, 1)
``rv:<host>``           hash    the host's revisit state, one field per listing URL
                                or thread (:mod:`crawler.node.revisit`)
``rvi:<host>:<bucket>`` hash    item digests of one thread or article: id -> digest
``control``             hash    operator switches: ``paused`` (the pause's epoch:
                                no node leases), ``paused:<node>`` (the epoch of
                                the pause that node acknowledged: none of its
                                requests can start), ``pause_epoch`` (the last
                                pause's), ``drain:<node>`` ('1': that node hands
                                off its hosts and owns none until cleared)
``warc:digests``        hash    the web archive's digest index: URL -> ``<payload
                                digest> <WARC-Date>`` of its last full capture, what
                                a revisit record refers to (:mod:`crawler.archive`)
``attachments``         hash    ``site|engine|attachment id`` -> the outcome of its
                                download (stored, denied, too large): never fetched
                                again (crawler/attachments/)
``login:<site>``        hash    the site's login session, shared by every node
                                (:mod:`crawler.login.session`: its fields)
``login:<site>:lock``   string  the node logging in (``SET NX PX``)
``login:<site>:failed`` string  the one line of a failed login, for a minute
======================  ======  =================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scrapy.utils.httpobj import urlparse_cached

if TYPE_CHECKING:
    from scrapy import Request


def host_of(request: Request) -> str:
    """The host a request belongs to: owned by, counted for, revisited by."""
    return _netloc(request)


def _netloc(request: Request) -> str:
    # without a userinfo: http://user@host/ is the same server, spaced with host's requests
    return urlparse_cached(request).netloc.rpartition("@")[2].lower()


def queue_host(request: Request) -> str:
    """The host a request is queued and spaced by (its queue is ``q:<host>``): its host,
    or ``<host>#<slot>`` for a request that names a downloader slot of its own
    (``download_slot``), which Scrapy spaces apart from its host's other requests. The
    owner is still the host's (:meth:`~crawler.frontier.ring.Ring.owner`)."""
    parsed = urlparse_cached(request)
    host = _netloc(request)
    slot = request.meta.get("download_slot")
    # Scrapy's downloader writes its default slot (the host name) into the meta of every
    # request it sees, and a retry or a redirect keeps it: that one is no slot of its own
    if slot is None or slot == host or slot == (parsed.hostname or ""):
        return host
    return f"{host}#{slot}"


# The crawl-wide keys: attribute name -> key name after the prefix
_CRAWL_KEYS = {"members": "members", "weights": "weights", "epoch": "epoch", "totals": "totals",
               "orphans": "orphans", "outcomes": "outcomes", "failures": "failures",
               "dead_letters": "deadletters",
               "items": "items", "node_stats": "nodestats", "templates": "templates",
               "events": "events", "control": "control", "bloom": "bloom",
               "revisit_due": "revisit:due", "revisit_pass": "revisit:pass",
               "revisit_passes": "revisit:passes", "revisit_deep": "revisit:deep",
               "warc_digests": "warc:digests", "attachments": "attachments"}


@dataclass(frozen=True)
class Keys:
    """The key names of crawl *crawl*: one attribute per crawl-wide key (see the table
    above), one method per key family (per node, per host, per Bloom layer)."""

    crawl: str
    prefix: str = field(init=False)
    members: str = field(init=False)
    weights: str = field(init=False)
    epoch: str = field(init=False)
    totals: str = field(init=False)
    orphans: str = field(init=False)
    outcomes: str = field(init=False)
    failures: str = field(init=False)
    dead_letters: str = field(init=False)
    items: str = field(init=False)
    node_stats: str = field(init=False)
    templates: str = field(init=False)
    events: str = field(init=False)
    control: str = field(init=False)
    bloom: str = field(init=False)
    revisit_due: str = field(init=False)
    revisit_pass: str = field(init=False)
    revisit_passes: str = field(init=False)
    revisit_deep: str = field(init=False)
    warc_digests: str = field(init=False)
    #: site|engine|attachment id -> the outcome of its download (crawler/attachments/)
    attachments: str = field(init=False)

    def __post_init__(self) -> None:
        prefix = f"crawler:{{{self.crawl}}}"
        object.__setattr__(self, "prefix", prefix)
        for attribute, name in _CRAWL_KEYS.items():
            object.__setattr__(self, attribute, f"{prefix}:{name}")

    @property
    def pattern(self) -> str:
        """A SCAN pattern matching every key of the crawl (glob characters escaped)."""
        escaped = "".join("\\" + c if c in "*?[]\\" else c for c in self.crawl)
        return f"crawler:{{{escaped}}}:*"

    def bloom_bits(self, index: int) -> str:
        return f"{self.prefix}:bloom:{index}"

    def ready(self, node: str) -> str:
        return f"{self.prefix}:ready:{node}"

    def push_log(self, node: str) -> str:
        return f"{self.prefix}:pushlog:{node}"

    def leases(self, node: str) -> str:
        return f"{self.prefix}:leases:{node}"

    def queue(self, host: str) -> str:
        return f"{self.prefix}:q:{host}"

    def host(self, host: str) -> str:
        return f"{self.prefix}:host:{host}"

    def revisits(self, host: str) -> str:
        return f"{self.prefix}:rvq:{host}"

    def deep_revisits(self, host: str) -> str:
        return f"{self.prefix}:rvd:{host}"

    def revisit_state(self, host: str) -> str:
        return f"{self.prefix}:rv:{host}"

    def revisit_items(self, host: str, bucket: str) -> str:
        return f"{self.prefix}:rvi:{host}:{bucket}"

    def login(self, site: str) -> str:
        return f"{self.prefix}:login:{site}"

    def login_lock(self, site: str) -> str:
        return f"{self.prefix}:login:{site}:lock"

    def login_failed(self, site: str) -> str:
        return f"{self.prefix}:login:{site}:failed"
