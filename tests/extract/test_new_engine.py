"""scripts/new_engine.py: the scaffold of a new engine passes the end-to-end test as generated."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _copy_project(dest: Path) -> None:
    for name in ("crawler", "scripts"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("scrapy.cfg", "pyproject.toml"):
        shutil.copy(ROOT / name, dest / name)
    (dest / "tests").mkdir()
    shutil.copy(ROOT / "tests" / "__init__.py", dest / "tests" / "__init__.py")
    for name in ("extract", "fixtures"):
        shutil.copytree(ROOT / "tests" / name, dest / "tests" / name, ignore=shutil.ignore_patterns("__pycache__"))


def _run(args: list[str], cwd: Path) -> str:
    proc = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.slow
def test_scaffolded_engine_passes_its_tests(tmp_path: Path) -> None:
    _copy_project(tmp_path)
    out = _run(["scripts/new_engine.py", "punbb", "PunBB"], tmp_path)
    assert "from crawler.profiles.punbb import Punbb" in out
    # Register it the way the script tells a developer to.
    init = tmp_path / "crawler" / "profiles" / "__init__.py"
    text = init.read_text(encoding="utf-8")
    text = text.replace("from crawler.profiles.base import", "from crawler.profiles.punbb import Punbb\nfrom crawler.profiles.base import", 1)
    head, sep, tail = text.partition("PROFILES: tuple[type[ForumProfile], ...] = (")
    body, close, rest = tail.partition(")")
    init.write_text(head + sep + body.rstrip().rstrip(",") + ", Punbb" + close + rest, encoding="utf-8")
    _run(["scripts/update_profile_fixtures.py", "--overwrite-json", "punbb"], tmp_path)
    assert (tmp_path / "tests" / "fixtures" / "profiles" / "punbb" / "expected.json").exists()
    _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "punbb",
          "tests/extract/test_e2e.py", "tests/extract/test_profiles.py", "tests/extract/test_fixtures_wellformed.py"], tmp_path)
