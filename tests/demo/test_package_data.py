"""The package holds what it runs on (issue 25): every file in ``crawler/`` that is not Python is
declared package data in ``pyproject.toml``, so ``pip install .`` and the container image have
it (the Lua scripts, serve-fixture's sites), every declared pattern matches a file, and no module
reads the checkout's ``tests/`` folder."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path, PurePosixPath

from crawler.demo.fixtures import SITES, available
from tests.helpers import ROOT

PACKAGE = ROOT / "crawler"


def declared() -> dict[Path, list[str]]:
    """Package folder -> its package-data patterns."""
    table = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    return {ROOT.joinpath(*name.split(".")): patterns for name, patterns in table["package-data"].items()}


def matches(path: Path, base: Path, pattern: str) -> bool:
    """Whether setuptools' ``pattern`` (no ``**``) under package folder ``base`` takes ``path``."""
    if not path.is_relative_to(base):
        return False
    relative = PurePosixPath(path.relative_to(base).as_posix())
    return len(relative.parts) == len(PurePosixPath(pattern).parts) and relative.match(pattern)


def data_files() -> list[Path]:
    return [p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and p.suffix not in (".py", ".pyc")]


def test_every_data_file_of_the_package_is_declared() -> None:
    patterns = declared()
    assert all("**" not in p for ps in patterns.values() for p in ps)
    missing = [str(f.relative_to(ROOT)) for f in data_files()
               if not any(matches(f, base, p) for base, ps in patterns.items() for p in ps)]
    assert not missing, f"not declared in pyproject.toml's package-data: {missing[:10]}"


def test_every_declared_pattern_matches_a_file() -> None:
    files = data_files()
    for base, patterns in declared().items():
        for pattern in patterns:
            assert any(matches(f, base, pattern) for f in files), f"{base.name}: {pattern} matches nothing"


def test_the_demo_sites_are_in_the_package_and_small() -> None:
    assert SITES.is_relative_to(PACKAGE)
    assert {"phpbb", "discuz", "wordpress", "hugo"} <= set(available())
    captured = sum(p.stat().st_size for p in PACKAGE.rglob("*")
                   if p.suffix in (".html", ".htm", ".json", ".xml") and p.is_file())
    assert captured <= 1_000_000, f"{captured} bytes of captured pages in the package"


def test_no_module_reads_the_checkouts_tests_folder() -> None:
    # crawler/scaffold/ is `new-engine`, run in a checkout: writing its tests is its job
    reaching = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
                if re.search(r"""/ ["']tests["']""", p.read_text(encoding="utf-8"))
                and not p.is_relative_to(PACKAGE / "scaffold")]
    assert not reaching
