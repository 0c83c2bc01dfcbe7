#!/usr/bin/env python
"""Crawl each engine's fixture site and compare with (or rewrite) its expected.json.

    python scripts/update_profile_fixtures.py                 # report differences, exit 1 if any
    python scripts/update_profile_fixtures.py --overwrite-json discuz phpbb

This is the only writer of ``tests/fixtures/profiles/<engine>/expected.json``. Review the diff
(``git diff tests/fixtures``) before committing: the file is the test's ground truth.
The static sites themselves are rebuilt with ``python -m tests.extract.sitegen``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers.expected import all_sites, crawl_fixture, dump_expected, expected_path


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("engines", nargs="*", help="fixture sites to update (default: all)")
    parser.add_argument(
        "--overwrite-json", action="store_true", help="write expected.json instead of comparing"
    )
    options = parser.parse_args()
    changed = 0
    for engine in options.engines or all_sites():
        items, _, _ = crawl_fixture(engine)
        text = dump_expected(engine, items)
        path = expected_path(engine)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old == text:
            print(f"{engine}: unchanged ({len(items)} items)")
            continue
        changed += 1
        if options.overwrite_json:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"{engine}: wrote {path} ({len(items)} items)")
        else:
            print(f"{engine}: differs from {path}; rerun with --overwrite-json to accept")
    return 1 if changed and not options.overwrite_json else 0


if __name__ == "__main__":
    sys.exit(main())
