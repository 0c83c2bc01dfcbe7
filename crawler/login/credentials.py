"""Credentials per site: :setting:`CRAWLER_LOGIN` (a JSON object site -> ``{"username",
"password"}``; the ``CRAWLER_LOGIN`` environment variable when the setting is not set, so a
Kubernetes Secret works unchanged), or ``-a username=... -a password=...`` for the one site of
a crawl. A site is ``host[:port]``, as the items' ``site`` field spells it (a URL is accepted).

No error message here shows a value of the setting: it holds passwords.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

SHAPE = '{"bbs.example.org": {"username": "alice", "password": "..."}}'


class CredentialsError(ValueError):
    """Bad credentials settings, in one line without any password."""


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str = field(repr=False)

    def __repr__(self) -> str:
        return f"Credentials(username={self.username!r}, password='***')"


def site_key(text: str) -> str:
    """``host[:port]`` of a site given as itself or as a URL, lowercased."""
    text = text.strip()
    if "://" in text:
        text = urlsplit(text).netloc
    return text.rstrip("/").lower()


def from_settings(settings: BaseSettings, environ: dict[str, str] | None = None
                  ) -> dict[str, Credentials]:
    """The credentials of :setting:`CRAWLER_LOGIN` (else the environment variable)."""
    environ = os.environ if environ is None else environ
    raw: Any = settings.get("CRAWLER_LOGIN")
    name = "CRAWLER_LOGIN"
    if raw in (None, "", "None", "none"):
        raw = environ.get("CRAWLER_LOGIN")
        name = "the CRAWLER_LOGIN environment variable"
    if raw in (None, ""):
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise CredentialsError(f"{name} is not JSON (its value is not shown: it holds "
                                   f"passwords); write it as {SHAPE}") from None
    if not isinstance(raw, dict):
        raise CredentialsError(f"{name} must be a JSON object of site -> credentials, as {SHAPE}")
    found = {}
    for site, entry in raw.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("username"), str) \
                or not isinstance(entry.get("password"), str) or not entry["username"]:
            raise CredentialsError(f"{name}: site {site!r} needs a \"username\" and a "
                                   f"\"password\" (strings), as {SHAPE}")
        found[site_key(str(site))] = Credentials(entry["username"], entry["password"])
    return found


def from_arguments(spider: Any, sites: list[str]) -> dict[str, Credentials]:
    """``-a username=... -a password=...``: the one site of the crawl's. The spider keeps
    neither (Scrapy made them attributes)."""
    username = spider.__dict__.pop("username", None)
    password = spider.__dict__.pop("password", None)
    if username is None and password is None:
        return {}
    if not username or password is None:
        raise CredentialsError("-a username=... and -a password=... go together")
    if len(sites) != 1:
        raise CredentialsError(f"-a username/password are for a crawl of one site; this one has "
                               f"{len(sites)}: give CRAWLER_LOGIN, as {SHAPE}")
    return {sites[0]: Credentials(str(username), str(password))}
