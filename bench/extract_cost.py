#!/usr/bin/env python
"""Cost of reading a thread page with a learned template vs with the engine's profile.

    python bench/extract_cost.py [--rounds 20]

Same pages both ways: the thread pages captured from the lab engines
(``tests/fixtures/sites/learned_<engine>``), read by the engine's profile
(``profile.read(response, THREAD, ...)``: posts, thread, next page) and by the template learned
on that site (the ``learned`` fallback's page reader with the template fixed: posts, thread, next
page, links). Learning itself happens once per site and is timed apart. Prints per-page
milliseconds (median of rounds) and the ratio; the target is at most 2x.

``--spider`` adds the whole ``forum`` spider on the same fixture forums, served on loopback:
pages per second per core (pages fetched / CPU seconds of the crawl process and its children,
less the CPU of a crawl that fetches nothing: start-up, Redis, idle close), once with the
engine's profile detected and once with ``-a profile=none``: learning included, and reading
alone (the crawl's ``learn/cpu_ms`` stat, the pages read while learning, subtracted).

Results go to ``bench/work/results/extract_cost.json`` for the report (RESULTS.md section 9).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import save  # noqa: E402
from scrapy.http import HtmlResponse  # noqa: E402

from tests.sitekit import SITES  # noqa: E402
from crawler.learn.dom import parse  # noqa: E402
from crawler.learn.learner import Page, learn_site  # noqa: E402
from crawler.learn.paging import page_number  # noqa: E402
from crawler.learn.strategy import LearnedForum  # noqa: E402
from crawler.learn.template import Template  # noqa: E402
from crawler.profiles import REGISTRY, PageCursor, PageKind  # noqa: E402

ORIGIN = "http://fixture.invalid"


def pages_of(engine: str) -> tuple[list[HtmlResponse], list[HtmlResponse]]:
    site = SITES / f"learned_{engine}"
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


def spider_rates(engine: str, repeat: int) -> dict[str, float]:
    """Pages per CPU second of ``scrapy crawl forum`` on ``learned_<engine>``: with the profile,
    learned (learning included), and learned reading alone (the ``learn/cpu_ms`` stat subtracted)."""
    import resource
    import tempfile

    from crawler.demo.fixture_server import FixtureServer
    from tests.helpers.crawl import run_crawl

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def crawl(url: str, args: dict[str, str]) -> tuple[int, float, float]:
        """Pages, CPU seconds and learning CPU seconds: the run of median CPU of ``repeat``
        (one crawl costs ~1 s of start-up)."""
        runs = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as tmp:
                before = cpu()
                result = run_crawl("forum", url, Path(tmp) / "out.jl", args=args, fork=False)
                runs.append((cpu() - before, int(result.stats.get("downloader/response_count", 0)),
                             result.stats.get("learn/cpu_ms", 0) / 1000))
        seconds, pages, learning = sorted(runs)[len(runs) // 2]
        return pages, seconds, learning

    site = SITES / f"learned_{engine}"
    start = json.loads((site / "routes.json").read_text(encoding="utf-8"))["start"]
    with FixtureServer(site) as server:
        _, fixed, _ = crawl(server.base_url + "/no-such-page-for-the-bench", {"profile": "none"})
        n_profile, c_profile, _ = crawl(server.base_url + start, {})
        n_learned, c_learned, learning = crawl(server.base_url + start, {"profile": "none"})
    return {"engine": engine, "pages_profile": n_profile, "pages_learned": n_learned,
            "profile_per_core": n_profile / max(0.01, c_profile - fixed),
            "learned_per_core": n_learned / max(0.01, c_learned - fixed),
            "reading_per_core": n_learned / max(0.01, c_learned - fixed - learning),
            "learning_cpu_s": learning}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    # NodeBB's profile reads its JSON API, not these HTML pages: no like-for-like comparison.
    parser.add_argument("--engines", default="mybb,smf,discuz,phpbb")
    parser.add_argument("--spider", action="store_true", help="also the forum spider's pages/s per core, both ways")
    parser.add_argument("--repeat", type=int, default=3, help="--spider: crawls per figure (median)")
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

        def walked(response: HtmlResponse) -> dict[str, int]:
            """The cursor of a page reached by the walk from its thread's first page."""
            number = page_number(template.paging, response.url)
            return {"page": number} if number > 1 else {}

        def by_template(response: HtmlResponse) -> None:
            reader.page(response.url, response.text, "thread", walked(response))

        posts_profile = sum(len(profile.read(r, PageKind.THREAD, PageCursor(url=r.url), None).posts) for r in threads)
        posts_template = sum(len(reader.page(r.url, r.text, "thread", walked(r)).posts) for r in threads)
        a, b = median_ms(by_profile, threads, args.rounds), median_ms(by_template, threads, args.rounds)
        rows.append((engine, len(threads), posts_profile, posts_template, a, b, b / a, learn_ms))
    print(f"{'engine':8} {'pages':>5} {'posts p/t':>10} {'profile ms':>10} {'template ms':>11} {'ratio':>6} {'learn ms':>9}")
    for engine, n, pp, pt, a, b, ratio, learn in rows:
        print(f"{engine:8} {n:5d} {pp:4d}/{pt:<5d} {a:10.2f} {b:11.2f} {ratio:6.2f} {learn:9.0f}")
    total = statistics.mean(r[6] for r in rows)
    print(f"mean ratio template/profile: {total:.2f} (target <= 2.0)")
    result = {"rounds": args.rounds, "pages": [
        {"engine": e, "pages": n, "posts_profile": pp, "posts_template": pt, "profile_ms": a,
         "template_ms": b, "learn_ms": learn} for e, n, pp, pt, a, b, _, learn in rows]}
    if args.spider:
        print(f"\nforum spider, pages/s per core (CPU, start-up subtracted)\n{'engine':8} {'pages p/l':>10} "
              f"{'profile':>8} {'learned':>8} {'reading':>8} {'learn s':>8} {'ratio':>6}")
        result["spider"] = []
        for engine in args.engines.split(","):
            r = spider_rates(engine, args.repeat)
            print(f"{engine:8} {r['pages_profile']:4d}/{r['pages_learned']:<5d} {r['profile_per_core']:8.1f} "
                  f"{r['learned_per_core']:8.1f} {r['reading_per_core']:8.1f} {r['learning_cpu_s']:8.2f} "
                  f"{r['profile_per_core'] / r['reading_per_core']:6.2f}")
            result["spider"].append(r)
        result["repeat"] = args.repeat
    save("extract_cost", result)


if __name__ == "__main__":
    main()
