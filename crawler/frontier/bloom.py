"""Bloom filter layers: blocked (one block of bits per URL), bits in Redis.

Each layer is a *blocked* Bloom filter (Putze, Sanders, Singler 2007): a URL's k bits
all lie in one block of :data:`BLOCK_BITS` bits. ``refill.lua`` checks and sets a whole
batch's URLs with one BITFIELD per layer (k one-bit operations per URL in it; issue 42:
a GETRANGE and a SETRANGE of the block per URL cost Redis two commands each). The block comes
from a 64-bit hash of the fingerprint, the k positions in it from pybloom-live's
``make_hashfuncs(k, BLOCK_BITS)``.

The filter grows by layers, as a scalable Bloom filter does: layer *i* holds
``capacity * 2**i`` URLs at error rate ``p / 2**(i+1)``, so the compound false
positive rate stays below ``p`` however far the crawl outgrows its estimate. Blocks
fill unevenly, so a blocked layer needs more bits than a classic one for the same
rate: at the default ``p = 1e-4`` a full first layer costs 22.4 bits (2.8 bytes) per
URL (classic: 20.6); four layers (15 times the configured capacity) average 3.3 bytes.

Layers of crawls started before the blocked layout (their meta has no ``block_bits``)
are :class:`ClassicLayer`: still described (status, error rate), never written to.
"""

from __future__ import annotations

import hashlib
import math
import struct
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property
from typing import TYPE_CHECKING

from pybloom_live.pybloom import make_hashfuncs

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

# 128 bytes. Bits per URL at 5e-5 (a first layer at p = 1e-4): 24.1 at 512 (over 3 bytes),
# 22.4 at 1024, 21.5 at 2048, 20.6 classic: the smaller block that meets 3 bytes per URL
# (chosen when a new URL's block was written whole, by SETRANGE; kept: it is the layout).
BLOCK_BITS = 1024
_MAX_BITS = 2**32 - 2**20  # a Redis string holds at most 2**32 bits


_HEAD = struct.Struct("<IB")


@cache
def _packed_bits(block_bits: int) -> tuple[bytes, ...]:
    """Bit position in a block -> its (byte, mask) as refill.lua reads them."""
    return tuple(bytes((position >> 3, 0x80 >> (position & 7))) for position in range(block_bits))


class BloomLayoutError(ValueError):
    """The crawl's filter was made with another bit layout than this code writes."""


def block_hash(fingerprint: str) -> int:
    """64 bits of *fingerprint* for the block index (independent of pybloom's positions)."""
    return int.from_bytes(hashlib.blake2b(fingerprint.encode(), digest_size=8).digest(), "little")


# -- the blocked false-positive rate ---------------------------------------------------

@cache
def _stirling2(n: int, k: int) -> int:
    if n == k:
        return 1
    if k == 0 or k > n:
        return 0
    return k * _stirling2(n - 1, k) + _stirling2(n - 1, k - 1)


@cache
def _probe_weights(k: int, block_bits: int) -> tuple[float, ...]:
    """h[m]: chance that k uniform probes of a block all fall among m given bits of k
    given ones (the probes' d distinct bits, times the chance those d are among the m)."""
    distinct = [Fraction(_stirling2(k, d) * math.perm(block_bits, d), block_bits**k)
                for d in range(k + 1)]
    return tuple(float(sum(distinct[d] * Fraction(math.comb(m, d), math.comb(k, d))
                           for d in range(m + 1))) for m in range(k + 1))


class _BlockFill:
    """P(a fresh key's k probes all hit set bits | its block holds j keys), j = 0, 1, ...

    Exact for uniform hashes: a Markov chain over how many of k given bits are set as
    the block's j*k bits are thrown, weighted by where the k probes land. All terms are
    positive (no cancellation), so it stays accurate at rates of 1e-12.
    """

    def __init__(self, k: int, block_bits: int) -> None:
        self.k, self.block_bits = k, block_bits
        self.weights = _probe_weights(k, block_bits)
        self.state = [1.0] + [0.0] * k  # P(m of the k given bits set), after the throws so far
        self.by_load = [0.0]

    def at(self, load: int) -> float:
        k, b = self.k, self.block_bits
        while len(self.by_load) <= load:
            for _ in range(k):  # one more key: k more throws
                s = self.state
                self.state = [s[m] * (1 - (k - m) / b) + (s[m - 1] * (k - m + 1) / b if m else 0.0)
                              for m in range(k + 1)]
            self.by_load.append(math.fsum(p * h for p, h in zip(self.state, self.weights)))
        return self.by_load[load]


@cache
def _block_fill(k: int, block_bits: int) -> _BlockFill:
    return _BlockFill(k, block_bits)


def blocked_false_positive_rate(keys: int, blocks: int, k: int, block_bits: int) -> float:
    """Chance that a fresh key looks seen in a blocked filter of *blocks* blocks holding
    *keys* keys: the block fill above, over the binomial load of the key's block."""
    if keys == 0:
        return 0.0
    fill = _block_fill(k, block_bits)
    if blocks == 1:
        return fill.at(keys)
    q = 1 / blocks
    mean = keys * q
    if mean > 700:  # hundreds of keys a block (far past capacity): about all bits set
        return fill.at(round(mean))
    pmf, total, j = math.exp(keys * math.log1p(-q)), 0.0, 0
    while j <= keys and (j <= mean or pmf > 1e-18 * max(total, 1e-300)):
        total += pmf * fill.at(j)
        pmf *= (keys - j) / (j + 1) * q / (1 - q)
        j += 1
    return total


@cache
def blocked_layout(capacity: int, error_rate: float, block_bits: int) -> tuple[int, int]:
    """(blocks, k) with the fewest bits whose rate at *capacity* keys is <= *error_rate*."""
    classic_k = math.ceil(math.log2(1 / error_rate))
    best = None
    for k in range(max(1, classic_k - 4), classic_k + 2):
        low, high = 0, max(1, math.ceil(capacity * classic_k * 1.44 / block_bits / 2))
        while blocked_false_positive_rate(capacity, high, k, block_bits) > error_rate:
            low, high = high, high * 2
        while high - low > 1:  # the rate falls as blocks are added
            middle = (low + high) // 2
            if blocked_false_positive_rate(capacity, middle, k, block_bits) > error_rate:
                low = middle
            else:
                high = middle
        if best is None or high < best[0]:
            best = (high, k)
    return best


# -- layers -------------------------------------------------------------------------

@dataclass(frozen=True)
class BloomLayer:
    """One blocked layer: ``blocks`` blocks of ``block_bits`` bits, ``slices`` bits per URL."""

    index: int
    capacity: int
    error_rate: float
    block_bits: int = BLOCK_BITS
    _hashes: Callable[[str], Iterator[int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hashes", make_hashfuncs(self.slices, self.block_bits)[0])

    @classmethod
    def of(cls, base_capacity: int, base_error_rate: float, index: int,
           block_bits: int = BLOCK_BITS) -> BloomLayer:
        error_rate = base_error_rate / 2 ** (index + 1)
        capacity = base_capacity * 2**index
        # later layers stop doubling at the Redis string limit (bits per URL hardly
        # change with the capacity: one or two tries)
        while (bits := blocked_layout(capacity, error_rate, block_bits)[0] * block_bits) \
                > _MAX_BITS:
            capacity = int(capacity * _MAX_BITS / bits * 0.999)
        return cls(index, capacity, error_rate, block_bits)

    @cached_property
    def blocks(self) -> int:
        return blocked_layout(self.capacity, self.error_rate, self.block_bits)[0]

    @cached_property
    def slices(self) -> int:
        return blocked_layout(self.capacity, self.error_rate, self.block_bits)[1]

    @property
    def block_bytes(self) -> int:
        return self.block_bits // 8

    @property
    def size_bits(self) -> int:
        return self.blocks * self.block_bits

    @property
    def size_bytes(self) -> int:
        return self.size_bits // 8

    def block_offset(self, key: str, hashed: int | None = None) -> int:
        """Byte offset of *key*'s block in the layer's string."""
        return (block_hash(key) if hashed is None else hashed) % self.blocks * self.block_bytes

    def byte_masks(self, key: str) -> list[tuple[int, int]]:
        """(byte in the block, mask of one bit) for each of *key*'s k bits (two may be
        the same bit); bit 0 is a byte's high bit, as in Redis' GETBIT."""
        return [(position >> 3, 0x80 >> (position & 7)) for position in self._hashes(key)]

    def packed_offsets(self, key: str, hashed: int | None = None) -> bytes:
        """What ``refill.lua`` reads for *key* in this layer: the block's byte offset
        (uint32, little-endian), k (uint8), then per bit its byte in the block and its
        mask (uint8 each, so blocks are <= 2048 bits). One bit per mask: ``refill.lua``
        tests and sets it with arithmetic, no bit library call."""
        return (_HEAD.pack(self.block_offset(key, hashed), self.slices)
                + b"".join(map(_packed_bits(self.block_bits).__getitem__, self._hashes(key))))

    def found(self, bits: bytes, key: str) -> bool:
        """Are all of *key*'s bits set in *bits*, the layer's string as Redis holds it?"""
        block = bits[(offset := self.block_offset(key)):offset + self.block_bytes]
        return all(index < len(block) and block[index] & mask == mask
                   for index, mask in self.byte_masks(key))

    def false_positive_rate(self, count: int) -> float:
        """Chance that an unseen key looks seen once *count* keys are in."""
        return blocked_false_positive_rate(count, self.blocks, self.slices, self.block_bits)


@dataclass(frozen=True)
class ClassicLayer:
    """A layer of a crawl made before the blocked layout, as pybloom-live sizes it:
    kept to describe such a crawl (``status``), never written to."""

    index: int
    capacity: int
    error_rate: float
    block_bits: int = 0

    @classmethod
    def of(cls, base_capacity: int, base_error_rate: float, index: int,
           block_bits: int = 0) -> ClassicLayer:
        error_rate = base_error_rate / 2 ** (index + 1)
        bits_per_url = math.log(1 / error_rate) / math.log(2) ** 2
        capacity = min(base_capacity * 2**index, int(_MAX_BITS / bits_per_url))
        return cls(index, capacity, error_rate)

    @cached_property
    def slices(self) -> int:
        return math.ceil(math.log2(1.0 / self.error_rate))

    @cached_property
    def bits_per_slice(self) -> int:
        return math.ceil(self.capacity * abs(math.log(self.error_rate))
                         / (self.slices * math.log(2) ** 2))

    @property
    def size_bytes(self) -> int:
        return (self.slices * self.bits_per_slice + 7) // 8

    def false_positive_rate(self, count: int) -> float:
        return (1.0 - math.exp(-count / self.bits_per_slice)) ** self.slices


class BloomFilter:
    """The crawl's layered filter as a node knows it: the layers and their fill.

    The bits live in Redis (``bloom:<i>``) and are set by ``refill.lua``; the meta
    hash (``bloom``) holds ``capacity``, ``error_rate``, ``block_bits`` (the layout;
    absent: classic layers), ``n`` layers and ``c<i>`` URLs per layer, which is all
    that is needed to know the filter's error rate.
    """

    def __init__(self, capacity: int, error_rate: float, counts: list[int] | None = None,
                 block_bits: int = BLOCK_BITS) -> None:
        self.capacity = capacity
        self.error_rate = error_rate
        self.block_bits = block_bits
        self.layers: list[BloomLayer | ClassicLayer] = []
        self.counts: list[int] = []
        self.grow_to(len(counts or ()) or 1, counts)

    @classmethod
    def from_meta(cls, meta: dict[str, str]) -> BloomFilter | None:
        """The filter that a ``bloom`` meta hash describes (None if there is none)."""
        if "capacity" not in meta:
            return None
        n = int(meta.get("n", 1))
        return cls(int(meta["capacity"]), float(meta["error_rate"]),
                   [int(meta.get(f"c{i}", 0)) for i in range(n)],
                   int(meta.get("block_bits", 0)))

    def grow_to(self, n: int, counts: list[int] | None = None) -> None:
        """Know *n* layers (another node, or this one, started new ones)."""
        kind = BloomLayer if self.block_bits else ClassicLayer
        while len(self.layers) < n:
            i = len(self.layers)
            self.layers.append(kind.of(self.capacity, self.error_rate, i, self.block_bits))
            self.counts.append(counts[i] if counts and i < len(counts) else 0)

    def packed_offsets(self, fingerprint: str) -> bytes:
        """The bits of *fingerprint* in every layer, oldest first, as ``refill.lua`` reads them."""
        hashed = block_hash(fingerprint)
        return b"".join(layer.packed_offsets(fingerprint, hashed) for layer in self.layers)

    def false_positive_rate(self) -> float:
        """Chance that a new URL is wrongly taken for seen, right now."""
        miss = 1.0
        for layer, count in zip(self.layers, self.counts):
            miss *= 1.0 - layer.false_positive_rate(count)
        return 1.0 - miss

    def summary(self) -> dict:
        layers = [{"index": layer.index, "capacity": layer.capacity, "count": count,
                   "bytes": layer.size_bytes} for layer, count in zip(self.layers, self.counts)]
        return {"capacity": self.capacity, "error_rate": self.error_rate,
                "block_bits": self.block_bits, "layers": layers,
                "urls": sum(self.counts), "false_positive_rate": self.false_positive_rate()}



#: The layout of the crawl's queues, kept in the filter's meta (``queues``) since it is
#: read at every start: 2 adds priority levels (a host's ``q<p>:`` queues and its
#: state's ``P``, tagged payloads, refill.lua). A crawl without the field has layout 1
#: (FIFO queues only), which layout 2 reads as it is: it is taken, not refused.
QUEUE_LAYOUT = 2
_QUEUE_LAYOUTS_READ = ("1", "2")

# The meta of a new crawl's filter, written at once with its layout (a crawl of another
# layout keeps its meta as it is). KEYS[1] meta; ARGV capacity, error_rate, block_bits,
# queue layout.
_CREATE_META = """
if redis.call('HEXISTS', KEYS[1], 'capacity') == 0 then
  redis.call('HSET', KEYS[1], 'capacity', ARGV[1], 'error_rate', ARGV[2], 'n', '1',
             'block_bits', ARGV[3], 'queues', ARGV[4])
end
return redis.call('HGETALL', KEYS[1])
"""


def create_or_read(send: Callable, key: str, capacity: int, error_rate: float) -> BloomFilter:
    """The crawl's filter, its meta *key* created if there is none (*send*: a Redis
    command, one round trip). Raises :class:`BloomLayoutError` for a filter of
    another layout: its bits do not mean what ``refill.lua`` reads."""
    reply = send("eval", _CREATE_META, 1, key, capacity, repr(error_rate), BLOCK_BITS,
                 QUEUE_LAYOUT)
    meta = {k.decode(): v.decode() for k, v in zip(reply[::2], reply[1::2])}
    check_layout(meta, key)
    return BloomFilter.from_meta(meta)


def check_layout(meta: dict[str, str], key: str) -> None:
    """Refuse a crawl whose filter (meta hash *key*, read) has another layout than
    this code writes (the frontier's start turns it into one line for the user)."""
    block_bits = int(meta.get("block_bits", 0))
    if "capacity" in meta and block_bits != BLOCK_BITS:
        layout = f"{block_bits}-bit block" if block_bits else "classic"
        raise BloomLayoutError(
            f"this crawl's Bloom filter ({key}) has the {layout} layout of an earlier "
            f"version, which this one does not write; finish the crawl with that version, "
            f"or start afresh (another CRAWLER_CRAWL_ID)")
    queues = meta.get("queues", "1")
    if "capacity" in meta and queues not in _QUEUE_LAYOUTS_READ:
        raise BloomLayoutError(
            f"this crawl's queues ({key}: queues={queues}) have a layout this version does "
            f"not read (it reads {', '.join(_QUEUE_LAYOUTS_READ)}); finish the crawl with the "
            f"version that started it, or start afresh (another CRAWLER_CRAWL_ID)")
