"""The demo site: the generated multi-host forum, served on 127.0.0.1, every request recorded.

:class:`SiteServer` puts three parts together, each usable on its own:

- the content, :class:`tests.sitekit.content.GeneratedForum` (hosts, pages, link graph, the
  expected URLs);
- the server, :class:`crawler.demo.server.LoopbackServer` (one listening socket per host,
  latency, fault hooks, robots.txt);
- the recorder, :class:`crawler.demo.recorder.Recorder` (every request: fetch counts,
  per-host in-flight peaks, gaps between request starts).

Tests assert on what the *server* saw. ``expected_urls()`` is the oracle for "every page was
fetched": it comes from the generator's own link graph, not from crawling.

Run ``python -m tests.sitekit.site --hosts 4 --pages 30`` to serve until Ctrl-C.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Self

from crawler.demo.recorder import Recorder, RequestRecord
from tests.sitekit.content import DEFAULT_ROBOTS, ForumShape, GeneratedForum, Node
from tests.sitekit.faulty import Fault, FaultyServer, RobotsConfig, RobotsSpec

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_ROBOTS", "Fault", "Node", "RequestRecord", "RobotsConfig", "RobotsSpec", "SiteServer", "main"]


class SiteServer:
    """The generated forum on ``hosts`` local HTTP servers; see the module docstring.

    ``faults``: {host: ``callable(path, hit) -> (status, headers, body) | None``}, called
    before serving (``hit`` counts earlier requests for that path), to make a host misbehave:
    answer 429 with Retry-After, fail with 503, stall (wait on ``site.stopping``), ...
    ``robots``: {host: spec} or ``callable(host) -> spec`` (evaluated per request), where spec is
    a body (200), a status (empty body), ``(status, body)`` or None (``DEFAULT_ROBOTS``).
    ``latency`` (overridable per host via ``host_latency``) delays every response, robots
    included.  ``broken_links`` adds links from each index to threads that 404.
    Times are ``time.monotonic()``; a request is logged (``end``) just before its response is written.
    ``content``, ``server`` and ``recorder`` are the three parts.
    """

    def __init__(
        self,
        hosts: int = 3,
        pages_per_host: int = 40,
        boards: int = 2,
        seed: int = 0,
        latency: float = 0.0,
        cross_links: bool = True,
        robots: RobotsConfig = None,
        *,
        host_latency: Mapping[int, float] | None = None,
        broken_links: bool = False,
        faults: Mapping[int, Fault] | None = None,
        threads_per_page: int = 5,
        posts_per_page: int = 6,
        max_thread_pages: int = 3,
    ) -> None:
        shape = ForumShape(boards=boards, threads_per_page=threads_per_page, posts_per_page=posts_per_page,
                           max_thread_pages=max_thread_pages)
        self.content = GeneratedForum(hosts, pages_per_host, seed, shape=shape, cross_links=cross_links,
                                      broken_links=broken_links)
        self.recorder = Recorder(hosts)
        self.server = FaultyServer(self.content, latency=latency, host_latency=host_latency, faults=faults,
                                     robots=robots, recorder=self.recorder)

    # -- lifecycle ------------------------------------------------------------

    def start(self) -> Self:
        self.server.start()
        logger.info("site serving %d hosts: %s", self.content.hosts, " ".join(self.base_urls))
        return self

    def stop(self) -> None:
        self.server.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_urls(self) -> list[str]:
        """``http://127.0.0.1:<port>/`` of each host; RuntimeError before start()."""
        return [f"{origin}/" for origin in self.server.origins]

    @property
    def netlocs(self) -> list[str]:
        return self.server.netlocs

    @property
    def stopping(self) -> threading.Event:
        """Set by stop(); faults that stall should wait on it."""
        return self.server.stopping

    # -- what the server saw (the recorder, keyed by netloc) --------------------

    @property
    def requests(self) -> list[RequestRecord]:
        """Snapshot of all recorded requests, in completion order."""
        return self.recorder.requests

    def fetch_counts(self, include_robots: bool = False) -> Counter[str]:
        """Absolute URL -> number of requests (any method, any status)."""
        return self.recorder.fetch_counts(include_robots)

    def fetched_urls(self) -> set[str]:
        """Distinct non-robots URLs requested so far."""
        return self.recorder.fetched_urls()

    def max_concurrency(self, netloc: str | int | None = None) -> dict[str, int] | int:
        """Peak number of requests in flight at the server (tracked live): of host ``netloc``
        (a netloc or a host index), or of every host by netloc."""
        peaks = dict(zip(self.netlocs, self.recorder.peak_inflight(), strict=True))
        return peaks if netloc is None else peaks[self._netloc(netloc)]

    def min_gap(self, netloc: str | int | None = None) -> dict[str, float] | float:
        """Smallest gap in seconds between consecutive request starts (robots.txt included): of
        host ``netloc`` (a netloc or a host index), or of every host by netloc."""
        gaps = dict(zip(self.netlocs, self.recorder.min_gaps(), strict=True))
        return gaps if netloc is None else gaps[self._netloc(netloc)]

    def _netloc(self, netloc: str | int) -> str:
        return self.netlocs[netloc] if isinstance(netloc, int) else netloc

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` is true (re-checked after every request); False on timeout."""
        return self.recorder.wait_for(predicate, timeout)

    def wait_fetched(self, n: int, timeout: float) -> bool:
        """Block until at least ``n`` distinct non-robots URLs have been requested."""
        return self.recorder.wait_fetched(n, timeout)

    # -- the oracle (the content, with the served origins and robots.txt) -------

    def expected_urls(self, respect_robots: bool = False, user_agent: str = "*") -> set[str]:
        """Absolute URLs of every reachable page (robots.txt and broken links excluded).

        With ``respect_robots`` disallowed pages are neither counted nor followed; the
        robots body is obeyed whatever its status, as Scrapy's RobotsTxtMiddleware does.
        """
        origins = self.server.origins  # RuntimeError before start()
        allowed = self._robots_checker(user_agent) if respect_robots else None
        return self.content.urls(self.content.expected_paths(allowed), origins)

    def broken_urls(self) -> set[str]:
        """Linked URLs that deliberately 404 (empty unless ``broken_links=True``)."""
        return self.content.urls(self.content.broken_paths(), self.server.origins)

    def _robots_checker(self, user_agent: str) -> Callable[[int, str], bool]:
        from protego import Protego  # noqa: PLC0415 - what Scrapy obeys (longest match wins)

        parsers = [Protego.parse(self.server.robots_for(h)[1]) for h in range(self.content.hosts)]
        return lambda h, path: parsers[h].can_fetch(f"http://x{path}", user_agent)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the generated demo forum site until Ctrl-C.")
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--pages", type=int, default=40, help="approximate pages per host")
    parser.add_argument("--boards", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per response")
    parser.add_argument("--no-cross-links", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt  # same clean shutdown as Ctrl-C

    signal.signal(signal.SIGTERM, on_term)
    site = SiteServer(args.hosts, args.pages, args.boards, args.seed, args.latency, not args.no_cross_links)
    try:  # KeyboardInterrupt may arrive anywhere, even before the wait
        with site:
            logger.info("%d pages on %d hosts; Ctrl-C to stop", len(site.content.expected_paths()), args.hosts)
            print("\n".join(site.base_urls), flush=True)
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    logger.info("stopped after %d requests", len(site.requests))


if __name__ == "__main__":
    main()
