"""The Bloom filter in Redis: measured false positives and bytes per URL."""

from __future__ import annotations

import hashlib

from crawler.scheduler.bloom import BloomLayer
from crawler.scheduler.frontier import Pending
from tests.helpers.frontier import make_frontier, ready_of

ERROR_RATE = 1e-4


def fingerprints(prefix: str, count: int) -> list[str]:
    return [hashlib.sha1(f"{prefix}{i}".encode()).hexdigest() for i in range(count)]


def test_false_positive_rate_within_twice_the_configured_rate(r) -> None:
    capacity = 20_000
    f = make_frontier(r, bloom_capacity=capacity, bloom_error_rate=ERROR_RATE)
    epoch = f.join(1)
    seen = fingerprints("seen", capacity - 1)
    for start in range(0, len(seen), 2000):
        f.flush([Pending("h", fp, b"p") for fp in seen[start:start + 2000]], [], epoch, ready_of("n1"))
    assert len(f.bloom.layers) == 1
    # every inserted URL is found again (no false negatives) ...
    bits = r.get(f.keys.bloom_bits(0))
    layer = f.bloom.layers[0]

    def found(fp: str) -> bool:
        return all(bits[o >> 3] >> (7 - (o & 7)) & 1 for o in layer.offsets(fp))

    assert all(found(fp) for fp in seen[:2000])
    # ... and fresh URLs are wrongly found at most at twice the configured rate
    probes = 200_000
    false_positives = sum(found(fp) for fp in fingerprints("fresh", probes))
    rate = false_positives / probes
    print(f"measured false-positive rate {rate:.2e} (configured {ERROR_RATE:g})")
    assert rate <= 2 * ERROR_RATE
    assert abs(f.bloom.false_positive_rate() - rate) < ERROR_RATE


def test_at_most_three_bytes_per_url_at_capacity(r) -> None:
    capacity = 50_000
    f = make_frontier(r, bloom_capacity=capacity, bloom_error_rate=ERROR_RATE)
    epoch = f.join(1)
    urls = fingerprints("u", capacity)
    for start in range(0, capacity, 5000):
        f.flush([Pending("h", fp, b"p") for fp in urls[start:start + 5000]], [], epoch, ready_of("n1"))
    size = r.memory_usage(f.keys.bloom_bits(0), samples=0)  # what Redis really holds
    print(f"Bloom filter: {size / capacity:.2f} bytes of Redis memory per URL")
    assert size / capacity <= 3


def test_layers_keep_compound_error_below_the_rate_and_under_3_bytes() -> None:
    layers = [BloomLayer.of(1_000_000, ERROR_RATE, i) for i in range(4)]
    assert sum(layer.error_rate for layer in layers) < ERROR_RATE
    total_bytes = sum(layer.size_bytes for layer in layers)
    total_urls = sum(layer.capacity for layer in layers)
    assert total_bytes / total_urls <= 3
