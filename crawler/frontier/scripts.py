"""The Lua scripts of the frontier: their calling conventions and their replies.

Each script's header (``lua/<name>.lua``) names its fixed KEYS and ARGV; the
:class:`ScriptSpec` here names the same, in the same order, and callers bind
their values by name, so the two cannot drift apart unnoticed (a test compares
them). Every script refuses in one way: a negative status, first in its reply,
from one table of codes (:data:`REFUSALS`), decoded in :func:`check`.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from redis import Redis

LUA = importlib.resources.files("crawler.frontier") / "lua"


class Refused(Exception):
    """A script wrote nothing: the caller's view is out of date."""

    code = 0


class StaleEpoch(Refused):
    """Membership changed since the caller built its ring: refresh and retry."""

    code = -1


class StaleBloom(Refused):
    """Another node started a new Bloom layer: learn it and retry."""

    code = -2


class BatchNotApplied(Refused):
    """Acks sent after a push batch that Redis did not apply: send them again."""

    code = -3


class NodeAlive(Refused):
    """A reclaim meant for a dead node found it beating."""

    code = -4


REFUSALS = {cls.code: cls for cls in (StaleEpoch, StaleBloom, BatchNotApplied, NodeAlive)}


def check(name: str, reply: Any) -> Any:
    """Return *reply*, or raise the :class:`Refused` its status means."""
    status = reply[0] if isinstance(reply, list) and reply else reply
    if isinstance(status, int) and status < 0:
        raise REFUSALS[status](name)
    return reply


@dataclass(frozen=True)
class ScriptSpec:
    """A script's fixed KEYS and ARGV, by name, in the order its header gives them.

    Variable parts (per host, per lease) follow them and are described in prose in
    the header only.
    """

    name: str
    keys: tuple[str, ...]
    argv: tuple[str, ...]

    def bind(self, keys: dict[str, Any], argv: dict[str, Any]) -> tuple[list, list]:
        """The fixed KEYS and ARGV in header order, from values given by name."""
        if set(keys) != set(self.keys) or set(argv) != set(self.argv):
            raise TypeError(f"{self.name}.lua takes KEYS {self.keys} and ARGV {self.argv}, "
                            f"not {tuple(keys)} and {tuple(argv)}")
        return [keys[k] for k in self.keys], [argv[a] for a in self.argv]

    def source(self) -> str:
        return (LUA / f"{self.name}.lua").read_text()


SPECS = {spec.name: spec for spec in (
    ScriptSpec("refill", ("epoch", "totals", "bloom_meta", "push_log", "ready", "leases"),
               ("epoch", "now", "batch", "groups", "acks", "want", "filters", "capacity",
                "size_bits", "host_limit", "max_in_flight", "delay", "park", "backoff_base",
                "backoff_max", "steal_after", "prefix", "host_batch")),
    ScriptSpec("join", ("members", "weights", "epoch"), ("node", "now", "weight")),
    ScriptSpec("reclaim", ("members", "weights", "epoch", "totals", "ready", "leases", "orphans",
                           "dead_letters"),
               ("node", "now", "older_than", "remove", "max_attempts")),
    ScriptSpec("sweep", ("epoch", "source"), ("epoch",)),
    ScriptSpec("revisit", ("epoch", "totals", "due", "ready"),
               ("epoch", "now", "horizon", "again")),
    ScriptSpec("deep", ("epoch", "totals", "marks", "ready"),
               ("epoch", "now", "pass", "passes", "clock", "span")),
)}


def load(client: Redis) -> dict[str, str]:
    """Load every script; return their SHA1s by name (reload after a Redis restart)."""
    return {name: client.script_load(spec.source()) for name, spec in SPECS.items()}
