#!/usr/bin/env python
"""Cost of reading a thread page with a learned template vs with the engine's profile.

    python bench/extract_cost.py [--rounds 20]

Same pages both ways: the thread pages captured from the lab engines
(``tests/fixtures/profiles/learned_<engine>``), read by the engine's profile
(``profile.read(response, THREAD, ...)``: posts, thread, next page) and by the template learned
on that site (the ``learned`` fallback's page reader with the template fixed: posts, thread, next
page, links). Learning itself happens once per site and is timed apart. Prints per-page
milliseconds (median of rounds) and the ratio; the target is at most 2x.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy.http import HtmlResponse  # noqa: E402

from crawler.learn.dom import parse  # noqa: E402
from crawler.learn.learner import Page, learn_site  # noqa: E402
from crawler.learn.strategy import LearnedForum  # noqa: E402
from crawler.learn.template import Template  # noqa: E402
from crawler.profiles import REGISTRY, PageCursor, PageKind  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "profiles"
ORIGIN = "http://fixture.invalid"


def pages_of(engine: str) -> tuple[list[HtmlResponse], list[HtmlResponse]]:
    site = FIXTURES / f"learned_{engine}" / "site"
    manifest = json.loads((site / "routes.json").read_text(encoding="utf-8"))
    everything = [
        HtmlResponse(url=ORIGIN + target, body=(site / route["file"]).read_bytes(), encoding="utf-8")
        for target, route in sorted(manifest["routes"].items())
    ]
    return everything, everything


def median_ms(fn, responses: list[HtmlResponse], rounds: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for response in responses:
            fn(response)
        times.append((time.perf_counter() - started) / len(responses) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    # NodeBB's profile reads its JSON API, not these HTML pages: no like-for-like comparison.
    parser.add_argument("--engines", default="mybb,smf,discuz,phpbb")
    args = parser.parse_args()
    rows = []
    for engine in args.engines.split(","):
        everything, _ = pages_of(engine)
        started = time.perf_counter()
        template = learn_site([Page(r.url, parse(r.text, r.url)) for r in everything])
        learn_ms = (time.perf_counter() - started) * 1000
        assert isinstance(template, Template), template
        threads = [r for r in everything if template.canonical_thread_url(r.url) == r.url.split("#")[0]
                   and template.thread_id(r.url)]
        profile = REGISTRY.get(engine)()  # type: ignore[misc]
        reader = LearnedForum("bench", template)

        def by_profile(response: HtmlResponse) -> None:
            profile.read(response, PageKind.THREAD, PageCursor(url=response.url), None)

        def by_template(response: HtmlResponse) -> None:
            reader.page(response.url, response.text, "thread", {})

        posts_profile = sum(len(profile.read(r, PageKind.THREAD, PageCursor(url=r.url), None).posts) for r in threads)
        posts_template = sum(len(reader.page(r.url, r.text, "thread", {}).posts) for r in threads)
        a, b = median_ms(by_profile, threads, args.rounds), median_ms(by_template, threads, args.rounds)
        rows.append((engine, len(threads), posts_profile, posts_template, a, b, b / a, learn_ms))
    print(f"{'engine':8} {'pages':>5} {'posts p/t':>10} {'profile ms':>10} {'template ms':>11} {'ratio':>6} {'learn ms':>9}")
    for engine, n, pp, pt, a, b, ratio, learn in rows:
        print(f"{engine:8} {n:5d} {pp:4d}/{pt:<5d} {a:10.2f} {b:11.2f} {ratio:6.2f} {learn:9.0f}")
    total = statistics.mean(r[6] for r in rows)
    print(f"mean ratio template/profile: {total:.2f} (target <= 2.0)")


if __name__ == "__main__":
    main()
