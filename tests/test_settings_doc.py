"""docs/settings.md shows the one settings table, and the code reads no setting outside it."""

from __future__ import annotations

import re
from pathlib import Path

from crawler.settings_defaults import BEGIN, BY_NAME, DEFAULTS, END, doc_table

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "settings.md"


def documented() -> dict[str, str]:
    rows = re.findall(r"^\| `([A-Z_]+)` \| `?([^|`]*)`? \|", DOC.read_text(), re.MULTILINE)
    return dict(rows)


def test_the_doc_shows_the_generated_table() -> None:
    text = DOC.read_text()
    table = text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    assert table == doc_table(), "run `python -m crawler.settings_defaults` to regenerate " \
                                 "the table in docs/settings.md"


def test_every_default_is_documented_with_its_value() -> None:
    doc = documented()
    for name, value in DEFAULTS.items():
        assert doc[name].replace(" ", "") == repr(value).replace("'", '"').replace(" ", "")


def test_every_crawler_setting_the_code_names_is_in_the_table() -> None:
    named = set()
    for path in (ROOT / "crawler").rglob("*.py"):
        named |= set(re.findall(r"\b(CRAWLER_[A-Z_]+[A-Z])\b", path.read_text()))
    # environment-only names of the pod entry point and test helpers are not settings
    missing = sorted(n for n in named - set(BY_NAME) if not n.startswith("CRAWLER_ENV"))
    assert not missing, f"add {missing} to TABLE in crawler/settings_defaults.py"


def test_every_setting_has_a_reader_and_a_meaning() -> None:
    for setting in BY_NAME.values():
        assert setting.read_by and setting.meaning.endswith((".", ")")), setting.name
