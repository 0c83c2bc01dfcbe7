"""Fixture sites of real engines, served together: one host per site, every request recorded.

The demo's sites are package data, ``crawler/demo/sites/<name>/`` (a ``routes.json`` folder
each, see :mod:`crawler.demo.fixture_server`): a phpBB and a Discuz! forum, a WordPress and a
Hugo blog, under 1 MB. The tests' many more live in ``tests/fixtures/sites/``.
:class:`FixtureSites` serves several of them on one :class:`~crawler.demo.server.LoopbackServer`,
each on a port of its own, so the recorder measures politeness per host at the server.

``python -m crawler serve-fixture phpbb wordpress`` serves them until Ctrl-C (:func:`serve`).
"""

from __future__ import annotations

import json
import logging
import signal
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

from crawler.demo.fixture_server import RoutesSite
from crawler.demo.recorder import Recorder
from crawler.demo.server import LoopbackServer, Response

logger = logging.getLogger(__name__)

__all__ = ["SITES", "FixtureSites", "available", "serve"]

#: The fixture sites, one ``routes.json`` folder each (package data: installed with the package).
SITES = Path(__file__).resolve().parent / "sites"


def available(root: Path = SITES) -> list[str]:
    """Names of the fixture sites under *root* (``crawler/demo/sites/*``: the demo's)."""
    return sorted(p.parent.name for p in root.glob("*/routes.json"))


class _Several:
    """Several routes.json sites as one multi-host :class:`~crawler.demo.server.Site`."""

    def __init__(self, sites: Sequence[RoutesSite]) -> None:
        self.sites = list(sites)

    @property
    def hosts(self) -> int:
        return len(self.sites)

    def respond(self, host: int, target: str, origins: Sequence[str]) -> Response:
        return self.sites[host].respond(0, target, [origins[host]])


class FixtureSites:
    """Serve the fixture sites ``names`` (see :func:`available`), one host each; a context
    manager. ``latency`` delays every response (seconds)."""

    def __init__(self, names: Sequence[str], *, latency: float = 0.0,
                 root: Path = SITES) -> None:
        unknown = [n for n in names if not (root / n / "routes.json").is_file()]
        if unknown:
            raise ValueError(f"no fixture site {', '.join(map(repr, unknown))}; "
                             f"the fixture sites are: {', '.join(available(root))}")
        self.names = list(names)
        self.manifests: list[dict[str, Any]] = [
            json.loads((root / n / "routes.json").read_text(encoding="utf-8")) for n in names]
        self.recorder = Recorder(len(names))
        self.server = LoopbackServer(_Several([RoutesSite(root / n) for n in names]),
                                     latency=latency, recorder=self.recorder)

    def __enter__(self) -> Self:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def start_url(self, name: str) -> str:
        """The URL a crawl of site ``name`` starts from."""
        i = self.names.index(name)
        return self.server.origins[i] + self.manifests[i].get("start", "/")

    def kind(self, name: str) -> str:
        """``forum`` or ``blog``."""
        return self.manifests[self.names.index(name)].get("kind", "forum")

    def arguments(self, name: str) -> dict[str, str]:
        """Spider arguments the site needs besides its start URL (e.g. ``per_page``)."""
        manifest = self.manifests[self.names.index(name)]
        args = dict(manifest.get("args") or {})
        if manifest.get("timezone"):
            args["timezone"] = manifest["timezone"]
        return args

    def politeness(self) -> dict[str, tuple[int, float]]:
        """Per site: (peak requests in flight, smallest gap in seconds between request starts),
        as the server saw them (robots.txt included)."""
        return {name: (peak, gap) for name, peak, gap in
                zip(self.names, self.recorder.peak_inflight(), self.recorder.min_gaps(),
                    strict=True)}

    def requests(self) -> int:
        return len(self.recorder.requests)


#: The spider that crawls each kind of site (``routes.json`` says ``kind``).
SPIDER_OF_KIND = {"forum": "forum", "blog": "blog", "learned": "forum", "generic": "forum",
                  "learned_blog": "blog"}


def crawl_command(sites: FixtureSites, name: str) -> str:
    """The ``scrapy crawl`` command line for site ``name``, as the README's walkthrough shows
    it: the sites are on 127.0.0.1, which the crawler refuses unless told otherwise."""
    args = "".join(f" -a {key}={value}" for key, value in sites.arguments(name).items())
    return (f"scrapy crawl {SPIDER_OF_KIND.get(sites.kind(name), 'forum')} "
            f"-a start_urls={sites.start_url(name)}{args} "
            f"-s CRAWLER_ALLOW_PRIVATE_ADDRESSES=True -o {name}.jl")


def serve(names: Sequence[str], latency: float = 0.0, ready: threading.Event | None = None,
          stop: threading.Event | None = None) -> int:
    """Serve fixture sites until Ctrl-C or SIGTERM (or ``stop``); print each start URL first."""
    sites = FixtureSites(names, latency=latency)
    stop = stop or threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
    with sites:
        for name in names:
            print(f"{name:<16} {sites.kind(name):<6} {sites.start_url(name)}", flush=True)
        print("Serving; Ctrl-C to stop. Crawl them from another terminal in the project:",
              flush=True)
        for name in names:
            print(f"  {crawl_command(sites, name)}", flush=True)
        if ready is not None:
            ready.set()
        stop.wait()
    print(f"Stopped after {sites.requests()} requests.", flush=True)
    return 0
