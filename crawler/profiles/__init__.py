"""Forum profiles: one module per engine, plus the fallbacks for forums without one.

Importing this package imports every module in it, and each profile class registers itself in
:data:`~crawler.profiles.registry.REGISTRY` as it is defined (``detect_order`` for an engine,
``fallback_order`` for a fallback). So adding an engine is adding its module: there is no list
to keep in step, here or in the spiders (one ``<engine>`` spider per registered engine).

Layout: :mod:`~crawler.profiles.base` (the interface the spider uses),
:mod:`~crawler.profiles.html` (selector-driven engines), :mod:`~crawler.profiles.jsonapi`
(JSON API engines), :mod:`~crawler.profiles.records` (what profiles return),
:mod:`~crawler.profiles.registry`, :mod:`~crawler.profiles.learned` (the fallback: a site template
learned with :mod:`crawler.learn`), :mod:`~crawler.profiles.learned_store` (its templates, in
Redis during a crawl) and :mod:`~crawler.profiles.template_profile` (a learned template
committed as a profile).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

from crawler.profiles.base import ForumProfile, PageCursor, PageKind
from crawler.profiles.html import HtmlForumProfile
from crawler.profiles.jsonapi import JsonApiProfile
from crawler.profiles.records import (
    Follow,
    PageResult,
    PostRecord,
    ThreadPage,
    ThreadRecord,
    ThreadRef,
)
from crawler.profiles.registry import REGISTRY, ProfileRegistry

if TYPE_CHECKING:
    from scrapy.http import Response

__all__ = [
    "REGISTRY",
    "Follow",
    "ForumProfile",
    "HtmlForumProfile",
    "JsonApiProfile",
    "PageCursor",
    "PageKind",
    "PageResult",
    "PostRecord",
    "ProfileRegistry",
    "ThreadPage",
    "ThreadRecord",
    "ThreadRef",
    "detect_profile",
    "get_profile",
]

# The package's own modules, found on disk as Scrapy finds SPIDER_MODULES: importing them is
# what registers their profiles. Private modules (``_utils``) hold no profiles.
for _module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")


def get_profile(name: str) -> type[ForumProfile] | None:
    """The engine or fallback registered as ``name`` (requests and items carry the name)."""
    return REGISTRY.get(name)


def detect_profile(response: Response) -> type[ForumProfile] | None:
    """The first engine, in detection order, that recognises ``response``; fallbacks left out."""
    return REGISTRY.detect(response)
