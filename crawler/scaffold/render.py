"""The files a new engine adds: its profile module and its test module, as source text."""

from __future__ import annotations

import textwrap
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from string import Template

from crawler.learn.template import Template as LearnedTemplate
from crawler.scaffold.markers import Fingerprint

__all__ = ["class_name", "render_profile", "render_test"]

TEST_TEMPLATE = (Path(__file__).resolve().parents[2] / "scripts" / "templates"
                 / "engine_test.py.tmpl")
#: Generated profiles come after every hand-written engine in detection.
DETECT_ORDER = 900


def class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def render_profile(name: str, url: str, template: LearnedTemplate, fingerprint: Fingerprint,
                   limits: frozenset[str], unsure: list[str],
                   thread_id_in_page: dict[str, str] | None = None) -> str:
    data = asdict(template)
    data.pop("learned_from")
    data["host"] = ""  # read any site of the engine, not the one it was learned on
    body = literal(data, 1)
    notes = "".join("\n" + textwrap.fill(line, 96, initial_indent="* ", subsequent_indent="  ")
                    for line in unsure) or "\n* nothing"
    precision = "day" if template.posts.date_precision == "day" else "time"
    in_page = (f"\n    thread_id_in_page = {literal(thread_id_in_page, 1)}"
               if thread_id_in_page else "")
    return f'''"""{class_name(name)}: an engine profile written by
``python -m crawler new-engine {name}`` on {datetime.now(UTC):%Y-%m-%d} from {url}.

Read with a fixed template (:mod:`crawler.profiles.template_profile`): ``posts.record`` is the
XPath of a post, its fields are XPath rules relative to it; ``thread_url`` and ``board_url``
are the URL patterns of the page kinds (groups ``tid``/``bid``); ``paging`` says how a thread's
pages are numbered, ``board_paging`` a board's. Detected by the engine's markup (``markers``,
``generator_prefixes``), on any host.

Where the command was unsure:{notes}
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawler.profiles.template_profile import TemplateProfile


class {class_name(name)}(TemplateProfile):
    name = {name!r}
    detect_order = {DETECT_ORDER}
    generator_prefixes = {fingerprint.generator!r}
    markers = {fingerprint.markers!r}
    min_markers = {fingerprint.min_markers}
    limits = frozenset({sorted(limits)!r})
    created_precision = {precision!r}{in_page}
    TEMPLATE: ClassVar[dict[str, Any]] = {body}
'''


def literal(value: object, depth: int) -> str:
    """``value`` as Python source, one dict key a line (the template reads as a table)."""
    if isinstance(value, str) and len(value) > WRAP:
        return _wrapped(value, depth)
    if not isinstance(value, dict) or not value:
        return repr(value)
    pad = "    " * (depth + 1)
    rows = "".join(f"{pad}{key!r}: {literal(value[key], depth + 1)},\n" for key in sorted(value))
    return "{\n" + rows + "    " * depth + "}"


#: Strings longer than this are written as adjacent literals, so the profile's lines stay
#: within the linter's 100 characters.
WRAP = 60


def _wrapped(value: str, depth: int) -> str:
    pad = "    " * (depth + 1)
    parts = [value[i:i + WRAP] for i in range(0, len(value), WRAP)]
    return "(\n" + "".join(f"{pad}{part!r}\n" for part in parts) + "    " * depth + ")"


def render_test(name: str) -> str:
    """The engine's test module, from ``scripts/templates/engine_test.py.tmpl`` (the package
    holds no test code)."""
    return Template(TEST_TEMPLATE.read_text(encoding="utf-8")).substitute(name=name)
