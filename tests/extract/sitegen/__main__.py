"""``python -m tests.extract.sitegen [site ...]``: rebuild the static fixture sites.

Every module of this package with a ``render()`` builds the site named after it, so a new
engine's builder (``scripts/new_engine.py`` writes one) needs no list entry here.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from types import ModuleType

import tests.extract.sitegen as package

#: Extra sites rendered by a module under another function name.
EXTRA = {"wordpress_html": ("wordpress", "render_html_only")}


def builders() -> dict[str, ModuleType]:
    """Site name -> the module whose ``render()`` builds it."""
    modules = (importlib.import_module(f"{package.__name__}.{m.name}") for m in pkgutil.iter_modules(package.__path__))
    return {module.__name__.rsplit(".", 1)[1]: module for module in modules if hasattr(module, "render")}


def main(argv: list[str]) -> None:
    found = builders()
    for name in argv or (*sorted(found), *EXTRA):
        module_name, function = EXTRA.get(name, (name, "render"))
        module = found.get(module_name) or importlib.import_module(f"{package.__name__}.{module_name}")
        root = getattr(module, function)().write()
        print(f"wrote {root}")


if __name__ == "__main__":
    main(sys.argv[1:])
