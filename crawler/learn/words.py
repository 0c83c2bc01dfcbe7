"""Month names and "today"/"yesterday" words of every language dateparser knows, as regex
alternations, for spotting display dates in any language ("14. Juni 2020", "5 Juil 2018",
"Heute, 10:23", "Aujourd'hui à 09:12"), and the languages each word belongs to, so that
dateparser is asked for those languages only (detecting the language costs ten times more).
Read once from dateparser's own locale data: the words come from the library that parses them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import cache

from dateparser.languages.loader import default_loader

__all__ = ["day_words", "languages_of", "month_words"]

_MONTH_KEYS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)
#: dateparser's keys for "today" and "yesterday" in its relative-type table.
_DAY_KEYS = ("0 day ago", "1 day ago")
_LETTERS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def _words(values: list[str], min_len: int) -> set[str]:
    out = set()
    for value in values:
        word = value.strip(". ").lower()
        # Two-letter abbreviations ("mo") and numbered forms are no month names to spot.
        if len(word) >= min_len and not any(ch.isdigit() for ch in word) and "(" not in word:
            out.add(word)
    return out


def _alternation(words: set[str]) -> str:
    """One regex for thousands of words, as a trie (``j(?:an(?:uar|vier)?|uil(?:let)?)``): a
    flat alternation is tried word by word at every position, a trie fails on the first letter."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    return _trie_regex(trie)


def _trie_regex(node: dict[str, dict]) -> str:
    ends = "" in node
    branches = [_char(ch) + _trie_regex(child) for ch, child in sorted(node.items()) if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if ends:
        # Longest first: the optional rest is greedy, so "juillet" is not cut to "juil".
        return f"(?:{body})?" if len(branches) > 1 or len(body) > 1 else f"{body}?"
    return body


def _char(ch: str) -> str:
    return r"\s+" if ch == " " else re.escape(ch)


def _collect() -> tuple[str, str, dict[str, list[str]]]:
    months: set[str] = set()
    days: set[str] = set()
    owners: dict[str, set[str]] = defaultdict(set)
    for locale in default_loader.get_locales(languages=None):
        info = locale.info
        found = set()
        for key in _MONTH_KEYS:
            found |= _words(info.get(key, []), 3)
        months |= found
        relative = info.get("relative-type", {})
        for key in _DAY_KEYS:
            found |= (day_words := _words(relative.get(key, []), 3))
            days |= day_words
        for word in found:
            owners[word].add(locale.shortname)
    return (_alternation(months), _alternation(days),
            {w: sorted(langs) for w, langs in owners.items()})


@cache
def _collected() -> tuple[str, str, dict[str, list[str]]]:
    """Read once, on first use: loading every dateparser locale takes a while."""
    return _collect()


def month_words() -> str:
    """An alternation of every language's month names and abbreviations."""
    return _collected()[0]


def day_words() -> str:
    """An alternation of every language's words for today and yesterday."""
    return _collected()[1]


def languages_of(text: str) -> tuple[str, ...] | None:
    """dateparser languages whose month or day words ``text`` uses; ``None`` when it uses none."""
    found: set[str] = set()
    owners = _collected()[2]
    for word in _LETTERS.findall(text.lower()):
        found.update(owners.get(word, ()))
    return tuple(sorted(found)) if found else None
