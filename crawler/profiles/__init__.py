"""Engine profiles, in detection order.

Detection tries :data:`PROFILES` in order and takes the first match, so engines with strong
fingerprints (generator meta, unique ids) come before those detected from weaker markers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crawler.profiles.base import ForumProfile, PageCursor, PageKind
from crawler.profiles.discourse import Discourse
from crawler.profiles.discuz import Discuz
from crawler.profiles.flarum import Flarum
from crawler.profiles.generic import Generic
from crawler.profiles.mybb import MyBB
from crawler.profiles.nodebb import NodeBB
from crawler.profiles.phpbb import PhpBB
from crawler.profiles.smf import SMF
from crawler.profiles.vbulletin import VBulletin, VBulletin5
from crawler.profiles.xenforo import XenForo

if TYPE_CHECKING:
    from scrapy.http import Response

__all__ = ["PROFILES", "ForumProfile", "Generic", "PageCursor", "PageKind", "detect_profile", "get_profile"]

PROFILES: tuple[type[ForumProfile], ...] = (
    Discourse,
    Discuz,
    PhpBB,
    XenForo,
    VBulletin,
    VBulletin5,
    MyBB,
    SMF,
    NodeBB,
    Flarum,
)

#: The fallback is looked up by name (requests carry it) but never detected.
_BY_NAME = {profile.name: profile for profile in (*PROFILES, Generic)}


def get_profile(name: str) -> type[ForumProfile] | None:
    return _BY_NAME.get(name)


def detect_profile(response: Response) -> type[ForumProfile] | None:
    """The first profile whose :meth:`~ForumProfile.detect` accepts ``response``, or ``None``."""
    return next((profile for profile in PROFILES if profile.detect(response)), None)
