"""schema.org JSON-LD, walked in one place for the blog readers and the learned forum reader."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["GRAPH", "NESTED", "objects", "parse_scripts", "types"]

#: Only the top level and ``@graph``: the entities a page declares about itself.
GRAPH = ("@graph",)
#: Also the entities nested in them: a thread's posts hang under ``comment``, ``hasPart``, ...
NESTED = ("@graph", "mainEntity", "comment", "hasPart", "suggestedAnswer", "acceptedAnswer",
          "itemListElement")


def parse_scripts(texts: Iterable[str]) -> list[Any]:
    """The ``application/ld+json`` script texts of a page, parsed; broken ones are skipped."""
    found = []
    for text in texts:
        try:
            found.append(json.loads(text or ""))
        except ValueError:
            continue
    return found


def objects(data: Any, into: tuple[str, ...] = GRAPH) -> Iterator[dict[str, Any]]:
    """Every object of ``data`` (a parsed script, or a list of them), depth first, and the
    objects under the keys ``into``."""
    if isinstance(data, list):
        for item in data:
            yield from objects(item, into)
    elif isinstance(data, dict):
        yield data
        for key in into:
            if key in data:
                yield from objects(data[key], into)


def types(obj: dict[str, Any]) -> set[str]:
    """An object's ``@type`` names, without a vocabulary prefix (``http://schema.org/Comment``)."""
    value = obj.get("@type")
    return {str(v).rsplit("/", 1)[-1] for v in (value if isinstance(value, list) else [value]) if v}
