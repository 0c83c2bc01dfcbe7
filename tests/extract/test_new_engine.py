"""scripts/new_engine.py: a scaffolded engine passes the tests as generated, with nothing else edited.

The scaffold runs in a throwaway copy of the project under a name no one will pick, so it never
collides with an engine a developer is adding in the real tree (by the same README steps).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


def _copy_project(dest: Path) -> None:
    for name in ("crawler", "scripts"):
        shutil.copytree(ROOT / name, dest / name, ignore=IGNORE)
    for name in ("scrapy.cfg", "pyproject.toml"):
        shutil.copy(ROOT / name, dest / name)
    (dest / "tests").mkdir()
    shutil.copy(ROOT / "tests" / "__init__.py", dest / "tests" / "__init__.py")
    for name in ("extract", "fixtures", "helpers", "sitekit"):
        shutil.copytree(ROOT / "tests" / name, dest / "tests" / name, ignore=IGNORE)


def _files(root: Path) -> dict[Path, bytes]:
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def _run(args: list[str], cwd: Path) -> str:
    proc = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.slow
def test_scaffolded_engine_passes_its_tests_as_generated() -> None:
    name = f"scaffold_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="new-engine-") as tmp:
        project = Path(tmp)
        _copy_project(project)
        before = _files(project)
        out = _run(["scripts/new_engine.py", name, f"Scaffold{name[-8:]}"], project)
        assert f"scrapy crawl {name}" in out
        changed = {path for path, body in _files(project).items() if before.get(path) != body}
        # One profile module, its site builder, its fixture site and expected output; no list edited.
        assert changed and all(
            path in (Path("crawler/profiles", f"{name}.py"), Path("tests/extract/sitegen", f"{name}.py"))
            or path.parts[:3] in (("tests", "fixtures", "profiles"), ("tests", "fixtures", "sites"))
            and path.parts[3] == name
            for path in changed
        ), sorted(map(str, changed))
        assert (project / "tests" / "fixtures" / "profiles" / name / "expected.json").exists()
        # The new engine end to end, and every test that looks across engines: detection of each
        # fixture page (the placeholder claims no other site, no engine claims its pages), one
        # fixture site per engine, one generated spider per engine, well-formed fixtures.
        _run(
            ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/extract/test_profiles.py",
             "tests/extract/test_spiders.py", "tests/extract/test_fixtures_wellformed.py",
             "tests/extract/test_e2e.py", "-k", f"{name} or not test_e2e"],
            project,
        )
        again = _run(["scripts/update_profile_fixtures.py", name], project)
        assert f"{name}: unchanged" in again
    assert not project.exists()
