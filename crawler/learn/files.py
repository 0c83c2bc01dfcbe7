"""A post's attachments, for the learned reader: attachment links anywhere in the post's
record, not only in its body (forums list a post's files below the body, in the same record).

Which links are attachments is :mod:`crawler.attachments.links`' to say (the URL patterns the
engine profiles use too); this module only hands it the record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lxml import etree

from crawler.attachments.links import body_attachments

if TYPE_CHECKING:
    from crawler.items import Attachment

__all__ = ["record_attachments"]


def record_attachments(rows: list[etree._Element], url: str) -> list[Attachment]:
    """The attachments linked from a post's record (its rows, in page order)."""
    html = "".join(etree.tostring(row, encoding="unicode", method="html", with_tail=False)
                   for row in rows)
    return body_attachments(html, url)
