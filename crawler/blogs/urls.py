"""A blog URL's identity: :func:`w3lib.url.canonicalize_url`, except for a query that is not
``key=value`` pairs (``index.php?/archives/1-title.html``): that is a path in disguise, and
canonicalizing it as a key without a value (``?%2Farchives%2F1-title.html=``) breaks the link."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from w3lib.url import canonicalize_url, safe_url_string

__all__ = ["canonical"]


def canonical(url: str) -> str:
    parts = urlsplit(url)
    if not parts.query or "=" in parts.query:
        return canonicalize_url(url)
    path_only = canonicalize_url(urlunsplit(parts._replace(query="", fragment="")))
    return safe_url_string(f"{path_only}?{parts.query}")
