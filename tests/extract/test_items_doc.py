"""docs/items.md documents every item field, and nothing that does not exist."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from crawler.items import Article, Attachment, Comment, Post, Thread

DOC = Path(__file__).resolve().parents[2] / "docs" / "items.md"


def documented(section: str) -> set[str]:
    text = DOC.read_text(encoding="utf-8")
    body = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for row in re.findall(r"^\| ([^|]+) \|", body, re.MULTILINE):
        if row.strip() in ("Field", "---"):
            continue
        for part in row.split(","):
            for name in part.split("/"):
                names.add(name.replace("**R**", "").strip())
    return names - {""}


@pytest.mark.parametrize("cls", [Thread, Post, Attachment, Article, Comment])
def test_every_field_documented(cls: type) -> None:
    names = {f.name for f in fields(cls)} - {"item_type"}
    section = "Article (blog)" if cls is Article else "Comment (blog)" if cls is Comment else cls.__name__
    doc = documented(section)
    assert names - doc == set(), f"add rows to docs/items.md ## {section}"
    assert doc - names == set(), f"docs/items.md ## {section} names fields that do not exist"
