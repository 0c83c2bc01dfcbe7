"""The login form of an engine: its profile's, or WordPress' (the blog spider has no profile).

Here, not in :mod:`crawler.login.forms`, because profiles import the forms: the registry is
read from above both.
"""

from __future__ import annotations

from crawler.login.forms import WORDPRESS, LoginForm
from crawler.profiles import REGISTRY

__all__ = ["form_of_engine"]


def form_of_engine(engine: str) -> LoginForm | None:
    if engine == "wordpress":
        return WORDPRESS
    profile = REGISTRY.get(engine)
    return profile.login if profile is not None else None
