"""Trap rules and session-id stripping, URL by URL."""

from __future__ import annotations

import pytest

from crawler.node.traps import TrapRules, strip_session_ids

RULES = TrapRules(max_url_length=200, max_repeated_segment=3, max_query_params=5)


@pytest.mark.parametrize(("url", "reason"), [
    ("https://f.example/forum/thread-1-2-1.html", None),
    ("https://f.example/a/b/a/b/a/b/a/b/x", "repeated_path_segment"),
    ("https://f.example/a/b/a/b/a/b/x", None),  # three times is still fine
    ("https://f.example/s?" + "&".join(f"p{i}=1" for i in range(6)), "query_params"),
    ("https://f.example/" + "x" * 300, "url_length"),
    ("https://f.example/cal?y=2024&m=3&d=1", None),
])
def test_trap_rules(url: str, reason: str | None) -> None:
    assert RULES.reason(url) == reason


def test_rules_can_be_turned_off() -> None:
    off = TrapRules(max_url_length=0, max_repeated_segment=0, max_query_params=0)
    assert off.reason("https://f.example/a/a/a/a/a?" + "&".join(f"p{i}=1" for i in range(30))) is None


@pytest.mark.parametrize(("url", "clean"), [
    ("http://f/viewtopic.php?t=1&sid=0123456789abcdef0123456789abcdef", "http://f/viewtopic.php?t=1"),
    ("http://f/showthread.php?s=0123456789abcdef0123456789abcdef&t=5", "http://f/showthread.php?t=5"),
    ("http://f/index.php?PHPSESSID=abc&topic=3.15", "http://f/index.php?topic=3.15"),
    ("http://f/a;jsessionid=ABC?x=1", "http://f/a?x=1"),
    ("http://f/x?s=hello&page=2", "http://f/x?s=hello&page=2"),  # not a session id
    ("http://f/x?page=2#p5", "http://f/x?page=2#p5"),
])
def test_session_ids_are_stripped(url: str, clean: str) -> None:
    assert strip_session_ids(url) == clean


def test_per_host_memory_is_bounded() -> None:
    from crawler.node.politeness import remember  # noqa: PLC0415

    memory: dict[str, int] = {}
    evicted = [old for i in range(10) for old in remember(memory, f"h{i}", i, cap=4)]
    assert list(memory) == ["h6", "h7", "h8", "h9"] and evicted == [f"h{i}" for i in range(6)]
    remember(memory, "h6", 60, cap=4)  # refreshed: now the newest
    assert list(memory) == ["h7", "h8", "h9", "h6"]
