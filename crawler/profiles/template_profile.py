"""A committed profile made from a learned template (``python -m crawler learn URL`` writes one).

A learned template is site-specific; once reviewed and committed under ``crawler/profiles/`` it
is read like any engine: detected by host, or by the engine's markup when the class sets
``markers``/``generator_prefixes`` (``python -m crawler new-engine`` writes such engine
profiles), then every page is read with the template's rules (no learning). Subclasses set
:attr:`TemplateProfile.hosts` or the fingerprints, :attr:`TemplateProfile.TEMPLATE` (the
template's JSON form as a dict) and ``detect_order``; :attr:`TemplateProfile.thread_id_in_page`
when the thread URLs carry no id and the pages write it (:mod:`crawler.learn.page_ids`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from crawler.learn.page_ids import page_thread_id
from crawler.learn.template import Template
from crawler.profiles.base import PageCursor, PageKind
from crawler.profiles.learned import Learned, page_result
from crawler.profiles.records import PageResult, ThreadRef

if TYPE_CHECKING:
    from scrapy.http import Response, TextResponse

__all__ = ["TemplateProfile", "page_thread_id"]


class TemplateProfile(Learned, register=False):
    """Reads a site with a fixed, reviewed template."""

    fallback_order: ClassVar[int | None] = None
    hosts: ClassVar[tuple[str, ...]] = ()
    TEMPLATE: ClassVar[dict[str, Any]] = {}
    #: ``xpath`` (attribute values) and ``regex`` (one group): the thread id a thread page
    #: writes in its markup, for URLs that name the thread by a slug.
    thread_id_in_page: ClassVar[dict[str, str] | None] = None

    @classmethod
    def detect(cls, response: Response) -> bool:
        if cls.markers or cls.generator_prefixes:
            return cls.fingerprint_matches(response)
        return urlsplit(response.url).netloc in cls.hosts

    @classmethod
    def template(cls) -> Template:
        import json

        return Template.from_json(json.dumps(cls.TEMPLATE))

    def read(
        self, response: TextResponse, kind: PageKind, cursor: PageCursor, ref: ThreadRef | None
    ) -> PageResult:
        host = urlsplit(response.url).netloc
        reader = self.store.learner(f"{self.name}:{host}")
        if reader.template is None:
            reader.template = self.template()
        state = {**cursor.extra, "page": cursor.page} if cursor.page != 1 or cursor.extra else {}
        result = page_result(reader.page(response.url, response.text, str(kind), state))
        if self.thread_id_in_page and (tid := page_thread_id(self.thread_id_in_page, response)):
            own = reader.template.thread_id(response.url)
            for record in [result.thread, *result.posts]:
                if record is not None and record.thread_id == own:
                    record.thread_id = tid
        return result
