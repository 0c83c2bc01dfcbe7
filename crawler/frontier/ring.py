"""Host -> node ownership: a consistent-hash ring (uhashring) over the live members."""

from __future__ import annotations

from uhashring import HashRing


class Ring:
    """Identical on every node that sees the same membership.

    ``vnodes`` points per unit of weight: 2000 keeps each node's share, and the
    share that moves when a node joins, within about 3% of the ideal (40,
    uhashring's default, is off by up to 25%).
    """

    def __init__(self, weights: dict[str, int], vnodes: int) -> None:
        self.weights = dict(weights)
        self._ring = HashRing(
            nodes={node: {"weight": int(w), "vnodes": vnodes} for node, w in weights.items()}
        )

    def __bool__(self) -> bool:
        return bool(self.weights)

    def owner(self, host: str) -> str:
        # a host's slot queue (host#slot, keys.queue_host) goes with its host
        return self._ring.get_node(host.split("#", 1)[0])
