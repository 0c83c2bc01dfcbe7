"""A blog URL's identity: :func:`w3lib.url.canonicalize_url`, except for a query that is not
``key=value`` pairs (``index.php?/archives/1-title.html``): that is a path in disguise, and
canonicalizing it as a key without a value (``?%2Farchives%2F1-title.html=``) breaks the link.
:func:`path_in_query` and :func:`where_in` read such a path."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from w3lib.url import canonicalize_url, safe_url_string

__all__ = ["canonical", "path_in_query", "where_in"]


def canonical(url: str) -> str:
    parts = urlsplit(url)
    if not parts.query or "=" in parts.query:
        return canonicalize_url(url)
    path_only = canonicalize_url(urlunsplit(parts._replace(query="", fragment="")))
    return safe_url_string(f"{path_only}?{parts.query}")


def path_in_query(query: str) -> bool:
    """A query that is a path in disguise (``?u=/2024/01/05/post/``, ``?/archives/1.html``)."""
    return any(value.startswith("/") or name.startswith("/")
               for name, value in parse_qsl(query, keep_blank_values=True))


def where_in(url: str) -> str:
    """*url*'s path and query, decoded: a path in a query (``?u=/page/2/``) reads as a path."""
    parts = urlsplit(url)
    return unquote(parts.path + ("?" + parts.query if parts.query else ""))
