"""Build a Frontier on a real Redis for script-level tests."""

from __future__ import annotations

from crawler.frontier.frontier import Frontier, LeaseAsk
from crawler.frontier.keys import Keys


def make_frontier(client, node: str = "n1", **options) -> Frontier:
    defaults = dict(delay_ms=0, max_inflight=1, host_limit=0, bloom_capacity=10_000,
                    bloom_error_rate=1e-4)
    return Frontier(client, Keys("t"), node, **{**defaults, **options})


def ready_of(node: str):
    return lambda host: Keys("t").ready(node)


def lease(frontier: Frontier, want: int, epoch: int, steal_from=(), steal_after_ms: int = 0):
    """Lease as a node's refill does (:meth:`Frontier.send` with a :class:`LeaseAsk`),
    pushing and acking nothing: the leased requests and the next due time."""
    ask = LeaseAsk(want, tuple(steal_from), steal_after_ms)
    return frontier.send([], [], epoch, None, lease=ask)[1]
