"""Settings read and checked against the one table (:mod:`crawler.settings_defaults`).

:func:`value` reads one ``CRAWLER_*`` setting with its default as fallback, so every
component works without the add-on; :func:`validate` checks them all at once and
names unknown settings that look like typos. Errors are :class:`ConfigError`, one
line naming the setting, the value, and what is expected.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from crawler.settings_defaults import BY_NAME, Setting

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

CRAWL_ID = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


class ConfigError(ValueError):
    """A bad setting, in one line."""


def value(settings: BaseSettings, name: str) -> Any:
    """The checked value of *name*, or its default when it is not set."""
    return parse(BY_NAME[name], settings.get(name))


def parse(setting: Setting, raw: Any) -> Any:
    name = setting.name
    if raw is None:
        return setting.default
    if setting.none and isinstance(raw, str) and raw.strip() in ("", "None", "none"):
        return None
    kind = setting.kind
    if kind in ("int", "float"):
        return _number(setting, raw)
    if kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE | _FALSE:
            return text in _TRUE
        raise ConfigError(f"{name} ({raw!r}) must be true or false"
                          + (" (or None)" if setting.none else ""))
    if kind == "codes":
        return _codes(name, raw)
    if kind == "zones":
        return _zones(name, raw)
    if kind == "zone":
        return check_zone(name, raw)
    if kind == "crawl_id":
        if not CRAWL_ID.match(str(raw)):
            raise ConfigError(f"{name} ({raw!r}) must be 1 to 100 letters, digits, '.', '_' "
                              "or '-' (it is part of every Redis key name)")
        return str(raw)
    return str(raw)


def _number(setting: Setting, raw: Any) -> float | int:
    name = setting.name
    try:
        number = float(raw)
        if setting.kind == "int":
            if isinstance(raw, str):
                number = int(raw.strip())
            elif number != int(number):
                raise ValueError
            else:
                number = int(number)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{name} ({raw!r}) must be a number ({setting.type_text})") from None
    if not math.isfinite(number):
        raise ConfigError(f"{name} ({raw!r}) must be a finite number ({setting.type_text})")
    low, high = setting.low, setting.high
    if (low is not None and number < low) or (high is not None and number > high):
        if high is None:
            raise ConfigError(f"{name} ({number!r}) must be >= {low:g}")
        raise ConfigError(f"{name} ({number!r}) must be between {low:g} and {high:g}")
    return number


def _codes(name: str, raw: Any) -> list[int]:
    items = raw.split(",") if isinstance(raw, str) else raw
    try:
        codes = [int(str(c).strip().strip("[]")) for c in items if str(c).strip("[] ")]
    except (TypeError, ValueError):
        raise ConfigError(f"{name} ({raw!r}) must be HTTP statuses, e.g. 429,503") from None
    if any(not 100 <= c <= 599 for c in codes):
        raise ConfigError(f"{name} ({raw!r}) must be HTTP statuses between 100 and 599")
    return codes


def _zones(name: str, raw: Any) -> dict[str, str]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise ConfigError(f"{name} ({raw!r}) must be a JSON object of site -> IANA time "
                              'zone, e.g. {"bbs.example.cn": "Asia/Shanghai"}') from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{name} ({raw!r}) must be an object of site -> IANA time zone")
    for site, zone in dict(raw).items():
        check_zone(f"{name}: {site!r}", zone)
    return dict(raw)


def check_zone(name: str, raw: Any) -> str:
    """An IANA time zone name, or ConfigError naming ``name``."""
    from zoneinfo import ZoneInfo  # noqa: PLC0415

    try:
        ZoneInfo(str(raw))
    except (ValueError, KeyError, OSError):
        raise ConfigError(
            f"{name} ({raw!r}) is not an IANA time zone, e.g. Asia/Shanghai") from None
    return str(raw)


def known_names(settings: BaseSettings) -> set[str]:
    from scrapy.settings import default_settings  # noqa: PLC0415

    return {n for n in dir(default_settings) if n.isupper()} | set(BY_NAME)


def unknown(settings: BaseSettings, names: Any = None) -> list[str]:
    """One line for each set name that is ours but unknown, or close to a known name."""
    known = known_names(settings)
    found = []
    for name in sorted(names if names is not None else dict(settings)):
        if not isinstance(name, str) or name in known or not name.isupper():
            continue
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.85)
        if name.startswith("CRAWLER_") or close:
            hint = f"; did you mean {close[0]}?" if close else ""
            found.append(f"unknown setting {name}{hint}")
    return found


def validate(settings: BaseSettings, names: Any = None) -> None:
    """Check every ``CRAWLER_*`` setting and Scrapy's that the frontier relies on."""
    if problems := unknown(settings, names):
        raise ConfigError(problems[0])
    for setting in BY_NAME.values():
        value(settings, setting.name)
    for name, low in (("DOWNLOAD_DELAY", 0), ("DEPTH_LIMIT", 0), ("CONCURRENT_REQUESTS", 1),
                      ("DOWNLOAD_MAXSIZE", 0), ("DOWNLOAD_WARNSIZE", 0)):
        number_setting(settings, name, low)


def number_setting(settings: BaseSettings, name: str, low: float) -> float:
    """One of Scrapy's numeric settings, checked (finite, at least *low*)."""
    kind = "float" if name == "DOWNLOAD_DELAY" else "int"
    raw = settings.get(name)
    return _number(Setting(name, kind, 0, "", "", low=low), 0 if raw in (None, "") else raw)


def check_url(url: str, what: str = "start URL") -> str:
    """An absolute http(s) URL with a valid host, or ConfigError in one line."""
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"{what} {url!r} must start with http:// or https://")
    try:
        parts = urlsplit(url)
        host, _port = parts.hostname, parts.port
    except ValueError as exc:
        raise ConfigError(f"{what} {url!r} is not a valid URL: {exc}") from None
    if not host:
        raise ConfigError(f"{what} {url!r} has no host name")
    if any(c.isspace() for c in url) or not re.fullmatch(r"[^\s/?#@\\<>\"{}|^`]+", host):
        raise ConfigError(f"{what} {url!r} is not a valid URL (spaces or bad characters)")
    return url
