"""Read py-spy collapsed stacks (bench/profile_ours.sh): inclusive share of samples per
frame, for frames matching a filter, so two profiles can be compared side by side.

    python bench/profile_top.py work/profile/ours.txt [--match crawler/] [--top 25]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter


def inclusive(path: str, match: str) -> tuple[Counter, int]:
    counts: Counter = Counter()
    total = 0
    for line in open(path):
        stack, _, n = line.rpartition(" ")
        total += int(n)
        frames = {re.sub(r":\d+\)$", ")", f) for f in stack.split(";") if match in f}
        for frame in frames:  # each frame once per sample, however deep it recurses
            counts[frame] += int(n)
    return counts, total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("profile")
    parser.add_argument("--match", default="")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    counts, total = inclusive(args.profile, args.match)
    print(f"{total} samples")
    for frame, n in counts.most_common(args.top):
        print(f"{100 * n / total:5.1f}%  {frame}")


if __name__ == "__main__":
    main()
