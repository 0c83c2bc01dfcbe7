#!/usr/bin/env python
"""Scaffold a hand-written forum engine: profile, fixture site, expected output.

    python scripts/new_engine.py punbb "PunBB"
    python scripts/new_engine.py punbb --from THREAD_URL    # = python -m crawler new-engine

With ``--from`` (and the command's other options) this is ``python -m crawler new-engine``: the
profile is learned from a live thread (docs/adding-an-engine.md). Without it:

writes ``crawler/profiles/punbb.py`` and ``tests/extract/sitegen/punbb.py`` from the templates
in ``scripts/templates/``, builds the placeholder fixture site (``tests/fixtures/sites/punbb/``)
and writes its ``tests/fixtures/profiles/punbb/expected.json`` through
``scripts/update_profile_fixtures.py``. Nothing needs registering: the profile registers itself
and the fixture site is found on disk. The placeholder profile and site agree with each other,
so the tests pass from the start; then replace the markup and the selectors with the engine's
real ones. See docs/adding-an-engine.md.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from string import Template

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = Path(__file__).resolve().parent / "templates"
sys.path.insert(0, str(ROOT))


def taken_names() -> set[str]:
    """Profile and spider names in use: a new engine's name becomes both."""
    from scrapy.utils.misc import walk_modules_iter  # noqa: PLC0415 (after the sys.path insert)
    from scrapy.utils.spider import iter_spider_classes  # noqa: PLC0415

    from crawler.profiles import REGISTRY  # noqa: PLC0415

    spiders = {cls.name for module in walk_modules_iter("crawler.spiders") for cls in iter_spider_classes(module)}
    return spiders | {p.name for p in (*REGISTRY.engines, *REGISTRY.fallbacks)}


def main() -> int:
    if "--from" in sys.argv[1:]:
        from crawler.ops.cli import main as cli

        return cli(["new-engine", *sys.argv[1:]])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("name", help="engine id: lowercase letters, digits, underscores (the spider name)")
    parser.add_argument("title", help='display name, also the placeholder generator meta ("PunBB")')
    options = parser.parse_args()
    if not re.fullmatch(r"[a-z][a-z0-9_]*", options.name):
        parser.error(f"name {options.name!r} must be lowercase letters, digits and underscores")
    if options.name in taken_names():
        parser.error(f"name {options.name!r} is already a profile or spider name; pick another")
    values = {
        "name": options.name,
        "title": options.title,
        "cls": "".join(p.capitalize() for p in options.name.split("_")),
    }
    targets = {
        ROOT / "crawler" / "profiles" / f"{options.name}.py": TEMPLATES / "profile.py.tmpl",
        ROOT / "tests" / "extract" / "sitegen" / f"{options.name}.py": TEMPLATES / "sitegen.py.tmpl",
    }
    fixture = ROOT / "tests" / "fixtures" / "profiles" / options.name
    site = ROOT / "tests" / "fixtures" / "sites" / options.name
    for target in (*targets, fixture, site):
        if target.exists():
            parser.error(f"{target.relative_to(ROOT)} exists; pick another name or delete it first")
    for target, template in targets.items():
        target.write_text(Template(template.read_text(encoding="utf-8")).substitute(values), encoding="utf-8")
        print(f"wrote {target.relative_to(ROOT)}")
    subprocess.run([sys.executable, "-m", "tests.extract.sitegen", options.name], cwd=ROOT, check=True)
    subprocess.run(
        [sys.executable, "scripts/update_profile_fixtures.py", "--overwrite-json", options.name],
        cwd=ROOT,
        check=True,
    )
    print(
        f"\n{values['cls']} is registered (detect_order) and `scrapy crawl {options.name}` exists.\n"
        "Now replace the placeholder markup and selectors with the engine's real ones, then run\n"
        f"    python -m tests.extract.sitegen {options.name}\n"
        f"    python scripts/update_profile_fixtures.py --overwrite-json {options.name}\n"
        "    python -m pytest tests/extract -q"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
