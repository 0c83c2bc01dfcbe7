"""Microseconds to encode and decode one queued follow-spider request, and its size.

    python bench/codec_cost.py [--links 20000]

A figure, not a test: the codec's cost per discovered link (tests assert its size).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crawler.frontier import codec  # noqa: E402
from crawler.frontier.keys import host_of  # noqa: E402
from tests.helpers.forum_links import ForumSpider, follow_request, typical_forum_links  # noqa: E402


def measure(links: int) -> tuple[float, float, float]:
    spider = ForumSpider()
    requests = [(host_of(r), r) for r in (follow_request(u, p, spider, d)
                                          for u, p, d in typical_forum_links(links))]
    started = time.perf_counter()
    payloads = [(h, codec.encode(r, spider, h)) for h, r in requests]
    encoded = time.perf_counter()
    back = [codec.decode(p, spider, h) for h, p in payloads]
    decoded = time.perf_counter()
    assert [b.url for b in back] == [r.url for _, r in requests]
    return ((encoded - started) / links * 1e6, (decoded - encoded) / links * 1e6,
            sum(len(p) for _, p in payloads) / links)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    runs = [measure(args.links) for _ in range(args.runs)]
    encode, decode = (statistics.median(r[i] for r in runs) for i in (0, 1))
    print(f"codec per follow request (median of {args.runs}): encode {encode:.1f} us, "
          f"decode {decode:.1f} us, payload {runs[0][2]:.1f} bytes")


if __name__ == "__main__":
    main()
