#!/usr/bin/env python
"""Scaffold a new forum engine: profile, fixture site, expected output.

    python scripts/new_engine.py punbb "PunBB"

writes ``crawler/profiles/punbb.py`` and ``tests/extract/sitegen/punbb.py`` from the templates
in ``scripts/templates/``, builds the placeholder fixture site and, once you have registered the
profile (the script prints the two lines), its ``expected.json``. The placeholder profile and
site agree with each other, so the end-to-end test passes from the start; then replace the
markup and the selectors with the engine's real ones. See docs/adding-an-engine.md.
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


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("name", help="engine id: lowercase letters, digits, underscores (the spider name)")
    parser.add_argument("title", help='display name, also the placeholder generator meta ("PunBB")')
    options = parser.parse_args()
    if not re.fullmatch(r"[a-z][a-z0-9_]*", options.name):
        parser.error(f"name {options.name!r} must be lowercase letters, digits and underscores")
    values = {
        "name": options.name,
        "title": options.title,
        "cls": "".join(p.capitalize() for p in options.name.split("_")),
    }
    targets = {
        ROOT / "crawler" / "profiles" / f"{options.name}.py": TEMPLATES / "profile.py.tmpl",
        ROOT / "tests" / "extract" / "sitegen" / f"{options.name}.py": TEMPLATES / "sitegen.py.tmpl",
    }
    for target in targets:
        if target.exists():
            parser.error(f"{target.relative_to(ROOT)} exists; pick another name or delete it first")
    for target, template in targets.items():
        target.write_text(Template(template.read_text(encoding="utf-8")).substitute(values), encoding="utf-8")
        print(f"wrote {target.relative_to(ROOT)}")
    subprocess.run([sys.executable, "-m", "tests.extract.sitegen", options.name], cwd=ROOT, check=True)
    print(
        "\nNow register the profile in crawler/profiles/__init__.py:\n"
        f"    from crawler.profiles.{options.name} import {values['cls']}\n"
        f"    PROFILES = (..., {values['cls']})\n"
        f'add "{options.name}" to ENGINES in tests/extract/sitegen/__main__.py, then run\n'
        f"    python scripts/update_profile_fixtures.py --overwrite-json {options.name}\n"
        "    python -m pytest tests/extract -q"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
