"""Each Lua script's header against the Python side that calls it."""

from __future__ import annotations

import re

import pytest

from crawler.frontier import scripts
from crawler.frontier.scripts import LUA, REFUSALS, SPECS, Refused, StaleEpoch

# "KEYS[3] node's leases   KEYS[4] ..." -> (3, "node's leases"); ranges (KEYS[5 .. 4+F]) skipped
_NAMED = re.compile(r"\b(KEYS|ARGV)\[(\d+)\]\s+(.+?)(?=\s{2,}|\s*\b(?:KEYS|ARGV)\[|$)", re.M)


def _header(name: str) -> str:
    source = (LUA / f"{name}.lua").read_text()
    return source[source.index("--[[") : source.index("]]")]


def _named(header: str, kind: str) -> dict[int, set[str]]:
    return {int(index): set(re.findall(r"[a-z0-9]+", text.lower()))
            for k, index, text in _NAMED.findall(header) if k == kind}


def test_every_lua_file_has_a_spec():
    assert {p.name.removesuffix(".lua") for p in LUA.iterdir() if p.name.endswith(".lua")} == set(SPECS)


@pytest.mark.parametrize("name", sorted(SPECS))
@pytest.mark.parametrize("kind", ["KEYS", "ARGV"])
def test_header_names_the_fixed_arguments_the_caller_binds(name: str, kind: str):
    spec = SPECS[name]
    fixed = spec.keys if kind == "KEYS" else spec.argv
    named = _named(_header(name), kind)
    assert sorted(named) == list(range(1, len(fixed) + 1)), \
        f"{name}.lua names {kind} {sorted(named)}; the caller binds {len(fixed)}"
    for position, argument in enumerate(fixed, 1):
        words = set(argument.split("_"))
        assert words <= named[position], \
            f"{name}.lua {kind}[{position}] is {sorted(named[position])}, the caller binds {argument!r}"


def test_every_refusal_a_script_returns_has_one_meaning():
    returned = set()
    for name in SPECS:
        body = (LUA / f"{name}.lua").read_text()
        returned |= {int(code) for code in re.findall(r"return \{?(-\d+)\}?", body)}
    assert returned <= set(REFUSALS)
    assert len({cls.__name__ for cls in REFUSALS.values()}) == len(REFUSALS)


@pytest.mark.parametrize("reply", [-1, [-1]])
def test_check_raises_the_refusal_of_its_code(reply):
    with pytest.raises(StaleEpoch):
        scripts.check("lease", reply)


@pytest.mark.parametrize("reply", [0, 3, [0, -1, b"id"], [1, 0, 1], []])
def test_check_passes_replies_that_are_not_refusals(reply):
    assert scripts.check("push", reply) == reply


def test_bind_refuses_misnamed_arguments():
    with pytest.raises(TypeError, match="sweep.lua takes"):
        SPECS["sweep"].bind({"epoch": "e"}, {"epoch": 1})
    keys, argv = SPECS["sweep"].bind({"source": "s", "epoch": "e"}, {"epoch": 1})
    assert (keys, argv) == (["e", "s"], [1])
    assert issubclass(StaleEpoch, Refused)
