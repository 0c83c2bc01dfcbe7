"""The test server: :class:`~crawler.demo.server.LoopbackServer` with fault hooks and robots.txt
overrides, which only tests use (the product's server serves sites as they are).

``faults``: {host: :data:`Fault`}, called for every request after the site has answered, to make
a host misbehave: answer 429 with Retry-After, fail with 503, stall (wait on
:attr:`~crawler.demo.server.LoopbackServer.stopping`), ... ``robots``: {host: spec} or
``callable(host) -> spec``, evaluated per request to ``/robots.txt``; a spec of None leaves it to
the site.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from crawler.demo.server import LoopbackServer, Response, Site

__all__ = ["Fault", "FaultyServer", "RobotsConfig", "RobotsSpec"]

# The answer of a fault hook: (status, headers, body); headers may replace Content-Type.
FaultResult = tuple[int, Mapping[str, str], bytes]
#: ``fault(target, hit) -> FaultResult | None``, ``hit`` counting earlier requests for that target.
Fault = Callable[[str, int], FaultResult | None]
# str -> 200 with that body; int -> that status, empty body; (status, body); None -> the site's own.
RobotsSpec = str | int | tuple[int, str] | None
RobotsConfig = Mapping[int, RobotsSpec] | Callable[[int], RobotsSpec] | None

_PLAIN = "text/plain; charset=utf-8"


class FaultyServer(LoopbackServer):
    """A loopback server whose hosts may misbehave (``faults``) or override robots.txt."""

    def __init__(self, site: Site, *, faults: Mapping[int, Fault] | None = None,
                 robots: RobotsConfig = None, **options: Any) -> None:
        super().__init__(site, **options)
        self.faults = dict(faults or {})
        self.robots = robots
        self._hits: Counter[tuple[int, str]] = Counter()
        self._hits_lock = threading.Lock()

    def robots_for(self, host: int) -> tuple[int, str]:
        """(status, body) of ``/robots.txt`` on ``host``; a callable config is evaluated anew."""
        response = self._robots_override(host) or super().respond(host, "/robots.txt")
        return response.status, response.body.decode()

    def _robots_override(self, host: int) -> Response | None:
        robots = self.robots
        spec = robots(host) if callable(robots) else (robots or {}).get(host)
        if spec is None:
            return None
        if isinstance(spec, str):
            spec = (200, spec)
        elif isinstance(spec, int):
            spec = (spec, "")
        return Response(spec[0], _PLAIN, spec[1].encode())

    def respond(self, host: int, target: str) -> Response:
        """The site's response, robots.txt's override, or a fault's."""
        override = self._robots_override(host) if target == "/robots.txt" else None
        response = override or super().respond(host, target)
        fault = self.faults.get(host)
        if fault is None:
            return response
        with self._hits_lock:
            hit = self._hits[(host, target)]
            self._hits[(host, target)] += 1
        if (result := fault(target, hit)) is None:
            return response
        status, headers, body = result
        headers = dict(headers)
        ctype = next((headers.pop(k) for k in list(headers) if k.lower() == "content-type"), None)
        return Response(status, ctype or response.content_type, body, headers)
