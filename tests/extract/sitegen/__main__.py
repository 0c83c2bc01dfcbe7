"""``python -m tests.extract.sitegen [engine ...]``: rebuild the static fixture sites."""

from __future__ import annotations

import importlib
import sys

ENGINES = (
    "discuz",
    "phpbb",
    "xenforo",
    "vbulletin",
    "vbulletin3",
    "vbulletin5",
    "discourse",
    "mybb",
    "smf",
    "nodebb",
    "flarum",
    "wordpress",
    "fluxbb",
    "ips",
    "hugo",
)
#: Extra sites rendered by a module under another function name.
EXTRA = {"wordpress_html": ("wordpress", "render_html_only")}


def main(argv: list[str]) -> None:
    for name in argv or (*ENGINES, *EXTRA):
        module_name, function = EXTRA.get(name, (name, "render"))
        module = importlib.import_module(f"tests.extract.sitegen.{module_name}")
        root = getattr(module, function)().write()
        print(f"wrote {root}")


if __name__ == "__main__":
    main(sys.argv[1:])
