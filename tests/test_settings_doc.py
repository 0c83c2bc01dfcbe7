"""docs/settings.md documents every CRAWLER_* default, and nothing else by that prefix."""

from __future__ import annotations

import re
from pathlib import Path

from crawler.settings_defaults import DEFAULTS

DOC = Path(__file__).resolve().parent.parent / "docs" / "settings.md"


def documented() -> dict[str, str]:
    rows = re.findall(r"^\| `([A-Z_]+)` \| `?([^|`]*)`? \|", DOC.read_text(), re.MULTILINE)
    return dict(rows)


def test_every_default_is_documented_with_its_value() -> None:
    doc = documented()
    missing = sorted(set(DEFAULTS) - set(doc))
    assert not missing, f"add rows for {missing} to docs/settings.md"
    for name, value in DEFAULTS.items():
        shown = doc[name].replace(" ", "")
        assert shown == repr(value).replace("_", "").replace("'", '"').replace(" ", ""), (
            f"docs/settings.md shows {name} = {doc[name]!r}, "
            f"crawler/settings_defaults.py says {value!r}: make them agree")


def test_no_undocumented_crawler_settings() -> None:
    extra = sorted(n for n in documented() if n.startswith("CRAWLER_") and n not in DEFAULTS)
    assert not extra, f"{extra} are documented but have no default in settings_defaults.py"
