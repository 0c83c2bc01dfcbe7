"""The test sites: every captured or modelled fixture site (``tests/fixtures/sites/``, beside
their expectations; the four of ``bin/demo`` are links to the package's demo sites), and the
generated multi-host forum with fault hooks (:mod:`tests.sitekit.site`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from crawler.demo import fixtures

#: every fixture site, one ``routes.json`` folder each
SITES = Path(__file__).resolve().parents[1] / "fixtures" / "sites"


def available() -> list[str]:
    return fixtures.available(SITES)


class FixtureSites(fixtures.FixtureSites):
    """:class:`crawler.demo.fixtures.FixtureSites` over every test site."""

    def __init__(self, names: Sequence[str], *, latency: float = 0.0) -> None:
        super().__init__(names, latency=latency, root=SITES)
