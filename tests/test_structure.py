"""The package's shape, as its next maintainer feels it: short modules and classes, no import
circle at import time, a reading library that loads no crawl machinery, ops that go through the
node's interface rather than the Redis key layout, and no test code in the package."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "crawler"
MAX_MODULE_LINES = 400
MAX_CLASS_METHODS = 20


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _import_time_imports(name: str, path: Path) -> set[str]:
    """The ``crawler`` modules that importing ``name`` imports at once: module-level imports,
    leaving out those under ``if TYPE_CHECKING`` and those inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for child in ast.walk(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                break
            if isinstance(child, ast.Import):
                found |= {a.name for a in child.names}
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1] + [base]).strip(".")
                submodules = {f"{base}.{a.name}" for a in child.names} & set(MODULES)
                found |= submodules
                if len(submodules) < len(child.names):  # names defined by the module itself
                    found.add(base)
    return {m for m in found if m in MODULES and m != name}


def test_no_module_is_too_long() -> None:
    long = {n: len(p.read_text().splitlines()) for n, p in MODULES.items()}
    assert not {n: k for n, k in long.items() if k > MAX_MODULE_LINES}, \
        f"split these modules (at most {MAX_MODULE_LINES} lines)"


def test_no_class_has_too_many_methods() -> None:
    big = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                methods = [b for b in node.body if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))]
                if len(methods) > MAX_CLASS_METHODS:
                    big[f"{name}.{node.name}"] = len(methods)
    assert not big, f"split these classes (at most {MAX_CLASS_METHODS} methods)"


def test_no_import_circle_runs_at_import_time() -> None:
    graph = {name: _import_time_imports(name, path) for name, path in MODULES.items()}
    circles = []

    def visit(name: str, trail: list[str]) -> None:
        for target in graph[name]:
            if target in trail:
                circles.append(trail[trail.index(target):] + [target])
            elif target not in done:
                visit(target, [*trail, target])
        done.add(name)

    done: set[str] = set()
    for name in graph:
        if name not in done:
            visit(name, [name])
    # A package importing its own submodules is how Python packages work, not a circle.
    real = [c for c in circles if not all(b.startswith(a + ".") or a.startswith(b + ".") for a, b in zip(c, c[1:]))]
    assert not real, f"import circles: {real[:5]}"


@pytest.mark.parametrize("package", ["crawler.learn", "crawler.profiles"])
def test_the_reading_library_loads_no_crawl_machinery(package: str) -> None:
    # Every module of it: the profiles package imports its modules anyway, learn/ does not.
    modules = [n for n in MODULES if n == package or n.startswith(package + ".")]
    code = (f"import sys, {', '.join(modules)}; "
            "print(' '.join(m for m in sys.modules if m.startswith("
            "('crawler.scheduler', 'crawler.node', 'scrapy.core', 'scrapy.crawler', 'twisted.internet.reactor'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert not loaded, f"importing {package} loads {loaded}"


def test_ops_go_through_the_node_not_the_key_layout() -> None:
    readers = [n for n in MODULES if n.startswith("crawler.ops.")
               and "crawler.frontier.keys" in _import_time_imports(n, MODULES[n])]
    assert not readers, f"{readers} import the Redis key layout"


def _all_imports(name: str, path: Path) -> set[str]:
    """The ``crawler`` modules *name* imports anywhere: at module level and inside functions
    (those run later, but a circle through them is still a circle), not for type checking."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    found: set[str] = set()
    for child in ast.walk(tree):
        if isinstance(child, ast.Import):
            found |= {a.name for a in child.names}
        elif isinstance(child, ast.ImportFrom):
            base = child.module or ""
            if child.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - child.level + 1] + [base]).strip(".")
            submodules = {f"{base}.{a.name}" for a in child.names} & set(MODULES)
            found |= submodules
            if len(submodules) < len(child.names):
                found.add(base)
    return {m for m in found if m in MODULES and m != name}


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module: each holds an import circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            component.append(v)
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_even_through_function_level_imports() -> None:
    graph = {name: _all_imports(name, path) for name, path in MODULES.items()}
    # a package importing its own submodules (and they it) is how packages work
    graph = {a: {b for b in targets if not (b.startswith(a + ".") or a.startswith(b + "."))}
             for a, targets in graph.items()}
    assert not _strongly_connected(graph), "import circles"


def test_no_getattr_reaches_into_the_node() -> None:
    reach = re.compile(r"getattr\((?:getattr\()?[\w.]*\bnode\b")
    found = [f"{n}: {m.group()}" for n, p in MODULES.items()
             for m in reach.finditer(p.read_text(encoding="utf-8"))]
    assert not found, "use crawler.node.api.NodeAPI"


#: Scrapy private attributes still read (issue 38 item 5), named in docs/architecture.md.
PRIVATE_READS: dict[str, int] = {}


def test_no_scrapy_private_attribute_is_read() -> None:
    private = re.compile(r"""(?:\b(?:engine|scraper|downloader|slot|cookies|spider|signals|stats"""
                         r"""|process|crawler_process|super\(\))\._[a-z]\w*"""
                         r"""|getattr\([\w.]*(?:engine|scraper|slot|process)[\w.]*,\s*["']_[a-z]\w*)""")
    found = {n: len(private.findall(p.read_text(encoding="utf-8"))) for n, p in MODULES.items()}
    found = {n: k for n, k in found.items() if k}
    assert found == PRIVATE_READS


def test_at_most_a_megabyte_of_captured_pages_in_the_package() -> None:
    captured = sum(p.stat().st_size for p in PACKAGE.rglob("*") if p.is_file()
                   and p.suffix in (".html", ".htm", ".json", ".xml", ".txt"))
    assert captured <= 1_000_000, f"{captured} bytes: fixtures belong in tests/fixtures/"


def test_the_package_holds_no_test_code() -> None:
    assert "crawler.testing" not in MODULES and "crawler.profiles.generic" not in MODULES
    for name, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        assert "from tests" not in text and "import tests" not in text, f"{name} imports the tests"
