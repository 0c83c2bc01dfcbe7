"""A learned template as a profile module: :func:`render_profile` turns it into a module for
``crawler/profiles/`` (a :class:`~crawler.profiles.template_profile.TemplateProfile` detected by
host) that a developer reviews, adjusts and commits. The template's rules are plain XPath in a
dict: each line says where a field is read. ``python -m crawler learn URL``
(:mod:`crawler.ops.learn`) learns one and prints it.
"""

from __future__ import annotations

import pprint
import re
from dataclasses import asdict
from datetime import UTC, datetime

from crawler.learn.template import Template

__all__ = ["render_profile"]


def render_profile(template: Template, name: str | None = None) -> str:
    name = name or re.sub(r"\W+", "_", template.host).strip("_").lower() or "site"
    if not name[0].isalpha():
        name = f"site_{name}"
    cls = "".join(p.capitalize() for p in name.split("_"))
    data = asdict(template)
    learned_from = data.pop("learned_from")
    body = pprint.pformat(data, indent=4, width=110, sort_dicts=True)
    sources = "\n".join(f"#   {url}" for url in learned_from)
    return (f'''"""Profile of {template.host}, learned by ``python -m crawler learn`` on '''
            f'''{datetime.now(UTC):%Y-%m-%d}.

Review before committing: the post record and each field are XPath rules relative to the record;
``thread_url``/``board_url`` name the page kinds; ``paging`` says how pages are numbered.
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawler.profiles.template_profile import TemplateProfile

# Learned from:
{sources}


class {cls}(TemplateProfile):
    name = {name!r}
    detect_order = 900
    hosts: ClassVar[tuple[str, ...]] = ({template.host!r},)
    TEMPLATE: ClassVar[dict[str, Any]] = {body}
''')
