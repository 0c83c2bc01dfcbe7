"""The one registry of forum profiles: engines in detection order, then fallbacks.

Profiles register themselves when their class is defined (:meth:`ForumProfile.__init_subclass__`):

* an **engine** sets ``detect_order``: detection tries engines by ascending ``detect_order``
  (ties by name), so strong fingerprints (generator meta, unique ids) take low numbers;
* a **fallback** sets ``fallback_order``: when no engine matches a start page, the forum spider
  takes the first fallback, by ascending ``fallback_order``, whose ``detect`` accepts the page.
  A fallback that needs something first (a learned template for the host) says no otherwise.

``crawler/profiles/__init__.py`` imports every module of the package, so a new engine is one
module there: no list to edit. The ``<engine>`` spiders are generated from :attr:`engines`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy.http import Response

    from crawler.profiles.base import ForumProfile

__all__ = ["REGISTRY", "ProfileRegistry"]


class ProfileRegistry:
    """Profiles by name. Engines and fallbacks share the namespace: requests carry the name."""

    def __init__(self) -> None:
        self._by_name: dict[str, type[ForumProfile]] = {}

    def add(self, profile: type[ForumProfile]) -> None:
        if not profile.name:
            raise TypeError(f"{profile.__qualname__} registers as a profile but has no name")
        known = self._by_name.get(profile.name)
        if known is not None and known is not profile:
            raise ValueError(
                f"profile name {profile.name!r} of {profile.__module__}.{profile.__qualname__}"
                f" is taken by {known.__module__}.{known.__qualname__}; pick another name,"
                " or remove() the old one first"
            )
        self._by_name[profile.name] = profile

    def remove(self, name: str) -> type[ForumProfile]:
        """Unregister ``name`` (to replace a fallback, say); returns the class."""
        return self._by_name.pop(name)

    def get(self, name: str) -> type[ForumProfile] | None:
        return self._by_name.get(name)

    @property
    def engines(self) -> tuple[type[ForumProfile], ...]:
        """Engine profiles in detection order."""
        found = [p for p in self._by_name.values() if p.detect_order is not None]
        return tuple(sorted(found, key=lambda p: (p.detect_order, p.name)))

    @property
    def fallbacks(self) -> tuple[type[ForumProfile], ...]:
        """Fallback profiles in the order they are tried."""
        found = [p for p in self._by_name.values() if p.fallback_order is not None]
        return tuple(sorted(found, key=lambda p: (p.fallback_order, p.name)))

    def detect(self, response: Response) -> type[ForumProfile] | None:
        """The first engine whose :meth:`~ForumProfile.detect` accepts ``response``, or ``None``."""
        return next((profile for profile in self.engines if profile.detect(response)), None)

    def fallback(
        self, response: Response, names: Iterable[str] | None = None
    ) -> type[ForumProfile] | None:
        """The first fallback that accepts ``response``: among ``names`` in that order when
        given, else among all fallbacks in ``fallback_order``."""
        candidates = (
            self.fallbacks if names is None else tuple(self.named_fallback(n) for n in names)
        )
        return next((profile for profile in candidates if profile.detect(response)), None)

    def named_fallback(self, name: str) -> type[ForumProfile]:
        """The fallback called ``name``; ``ValueError`` naming the known ones otherwise."""
        profile = self._by_name.get(name)
        if profile is None or profile.fallback_order is None:
            known = ", ".join(p.name for p in self.fallbacks)
            raise ValueError(
                f"fallback {name!r} is not a registered forum fallback (known: {known})"
            )
        return profile


#: The registry every profile class joins when it is defined.
REGISTRY = ProfileRegistry()
