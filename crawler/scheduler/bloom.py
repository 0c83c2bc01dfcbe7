"""Bloom filter layers: sizing and bit positions from pybloom-live, bits in Redis.

The filter grows by layers, as a scalable Bloom filter does: layer *i* holds
``capacity * 2**i`` URLs at error rate ``p / 2**(i+1)``, so the compound false
positive rate stays below ``p`` however far the crawl outgrows its estimate. At
the default ``p = 1e-4`` a full first layer costs 20.6 bits (2.6 bytes) per URL;
the average stays under 3 bytes per URL up to 15 times the configured capacity.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterator

from pybloom_live.pybloom import make_hashfuncs


@dataclass(frozen=True)
class BloomLayer:
    """One layer, sized as ``pybloom_live.BloomFilter(capacity, error_rate)`` is."""

    index: int
    capacity: int
    error_rate: float
    _hashes: Callable[[str], Iterator[int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hashes", make_hashfuncs(self.slices, self.bits_per_slice)[0])

    @classmethod
    def of(cls, base_capacity: int, base_error_rate: float, index: int) -> BloomLayer:
        error_rate = base_error_rate / 2 ** (index + 1)
        capacity = base_capacity * 2**index
        # a Redis string holds at most 2**32 bits: later layers stop doubling there
        bits_per_url = math.log(1 / error_rate) / math.log(2) ** 2
        capacity = min(capacity, int((2**32 - 2**20) / bits_per_url))
        return cls(index, capacity, error_rate)

    @cached_property
    def slices(self) -> int:
        return int(math.ceil(math.log(1.0 / self.error_rate, 2)))

    @cached_property
    def bits_per_slice(self) -> int:
        return int(math.ceil(self.capacity * abs(math.log(self.error_rate))
                             / (self.slices * math.log(2) ** 2)))

    @property
    def size_bytes(self) -> int:
        return (self.slices * self.bits_per_slice + 7) // 8

    def offsets(self, key: str) -> list[int]:
        """Absolute bit offsets of *key*: one bit in each slice."""
        m = self.bits_per_slice
        return [i * m + h for i, h in enumerate(self._hashes(key))]

    def packed_offsets(self, key: str) -> bytes:
        """:meth:`offsets` as little-endian uint32 (a Redis string has < 2**32 bits)."""
        return struct.pack(f"<{self.slices}I", *self.offsets(key))

    def false_positive_rate(self, count: int) -> float:
        """Chance that an unseen key looks seen once *count* keys are in."""
        fill = 1.0 - math.exp(-count / self.bits_per_slice)
        return fill**self.slices


class BloomFilter:
    """The crawl's layered filter as a node knows it: the layers and their fill.

    The bits live in Redis (``bloom:<i>``) and are set by ``push.lua``; the meta
    hash (``bloom``) holds ``capacity``, ``error_rate``, ``n`` layers and ``c<i>``
    URLs per layer, which is all that is needed to know the filter's error rate.
    """

    def __init__(self, capacity: int, error_rate: float, counts: list[int] | None = None) -> None:
        self.capacity = capacity
        self.error_rate = error_rate
        self.layers: list[BloomLayer] = []
        self.counts: list[int] = []
        self.grow_to(len(counts or ()) or 1, counts)

    @classmethod
    def from_meta(cls, meta: dict[str, str]) -> BloomFilter | None:
        """The filter that a ``bloom`` meta hash describes (None if there is none)."""
        if "capacity" not in meta:
            return None
        n = int(meta.get("n", 1))
        return cls(int(meta["capacity"]), float(meta["error_rate"]),
                   [int(meta.get(f"c{i}", 0)) for i in range(n)])

    def grow_to(self, n: int, counts: list[int] | None = None) -> None:
        """Know *n* layers (another node, or this one, started new ones)."""
        while len(self.layers) < n:
            i = len(self.layers)
            self.layers.append(BloomLayer.of(self.capacity, self.error_rate, i))
            self.counts.append(counts[i] if counts and i < len(counts) else 0)

    def packed_offsets(self, fingerprint: str) -> bytes:
        """The bits of *fingerprint* in every layer, oldest first, as ``push.lua`` reads them."""
        return b"".join(layer.packed_offsets(fingerprint) for layer in self.layers)

    def false_positive_rate(self) -> float:
        """Chance that a new URL is wrongly taken for seen, right now."""
        miss = 1.0
        for layer, count in zip(self.layers, self.counts):
            miss *= 1.0 - layer.false_positive_rate(count)
        return 1.0 - miss

    def summary(self) -> dict:
        layers = [{"index": layer.index, "capacity": layer.capacity, "count": count,
                   "bytes": layer.size_bytes} for layer, count in zip(self.layers, self.counts)]
        return {"capacity": self.capacity, "error_rate": self.error_rate, "layers": layers,
                "urls": sum(self.counts), "false_positive_rate": self.false_positive_rate()}
