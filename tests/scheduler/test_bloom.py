"""The Bloom filter in Redis: sizing, measured false positives, bytes per URL, layout."""

from __future__ import annotations

import hashlib
import math

import pybloom_live
import pytest

from crawler.frontier.bloom import BLOCK_BITS, BloomFilter, BloomLayer, BloomLayoutError
from crawler.frontier.frontier import DUPLICATE, QUEUED, Pending
from tests.helpers import forked
from tests.helpers.frontier import make_frontier, ready_of

ERROR_RATE = 1e-4


def fingerprints(prefix: str, count: int) -> list[str]:
    return [hashlib.sha1(f"{prefix}{i}".encode()).hexdigest() for i in range(count)]


def poisson_quantiles(mean: float, tail: float) -> tuple[int, int]:
    """(low, high): a Poisson(*mean*) count falls below low, or above high, with
    chance < *tail* each (false positives among many probes are about Poisson)."""
    pmf, cdf, low, k = math.exp(-mean), 0.0, None, 0
    while True:
        cdf += pmf
        if low is None and cdf >= tail:
            low = k
        if 1 - cdf < tail:
            return low, k
        k += 1
        pmf *= mean / k


def fill(f, epoch, urls: list[str], batch: int = 2000) -> None:
    for start in range(0, len(urls), batch):
        f.flush([Pending("h", fp, b"p") for fp in urls[start:start + batch]], [], epoch,
                ready_of("n1"))


@pytest.mark.parametrize("capacity", [1, 1000, 20_000, 1_000_000, 50_000_000])
@pytest.mark.parametrize("index", [0, 1, 3])
def test_each_layer_is_the_smallest_that_meets_its_error_rate(capacity, index) -> None:
    layer = BloomLayer.of(capacity, ERROR_RATE, index)
    assert layer.false_positive_rate(layer.capacity) <= layer.error_rate
    smaller = BloomLayer.of(capacity, ERROR_RATE, index)
    object.__setattr__(smaller, "blocks", layer.blocks - 1)
    assert layer.blocks == 1 or smaller.false_positive_rate(layer.capacity) > layer.error_rate


def test_the_rate_formula_agrees_with_a_simulated_filter() -> None:
    """At a rate high enough to measure in pure Python: 60 blocks, 4,000 keys."""
    layer = BloomLayer(0, 4000, 1e-3)
    blocks = [0] * layer.blocks  # one int per block, bit i = bit i of the block
    for fp in fingerprints("in", 4000):
        offset = layer.block_offset(fp) // layer.block_bytes
        for index, mask in layer.byte_masks(fp):
            blocks[offset] |= mask << 8 * index

    def found(fp: str) -> bool:
        bits = blocks[layer.block_offset(fp) // layer.block_bytes]
        return all(bits >> 8 * index & mask == mask for index, mask in layer.byte_masks(fp))

    probes = 200_000
    expected = layer.false_positive_rate(4000) * probes
    low, high = poisson_quantiles(expected, 1e-6)
    assert low <= sum(found(fp) for fp in fingerprints("out", probes)) <= high


def test_false_positive_rate_in_redis_within_the_configured_rate(r) -> None:
    capacity = 20_000
    f = make_frontier(r, bloom_capacity=capacity, bloom_error_rate=ERROR_RATE)
    epoch = f.join(1)
    seen = fingerprints("seen", capacity - 1)
    fill(f, epoch, seen)
    assert len(f.bloom.layers) == 1
    layer, bits = f.bloom.layers[0], r.get(f.keys.bloom_bits(0))
    # every inserted URL is found again (no false negatives) ...
    assert all(layer.found(bits, fp) for fp in seen)
    # ... and fresh URLs are found as often as the formula says, which is within the
    # layer's share of the configured rate (p/2): bounds that a correct filter leaves
    # with chance < 1e-6 each
    probes = 400_000
    false_positives = sum(layer.found(bits, fp) for fp in fingerprints("fresh", probes))
    predicted = f.bloom.false_positive_rate()
    print(f"measured false-positive rate {false_positives / probes:.2e} "
          f"(predicted {predicted:.2e}, configured {ERROR_RATE:g})")
    assert predicted <= layer.error_rate
    low, high = poisson_quantiles(predicted * probes, 1e-6)
    assert low <= false_positives <= high


def test_bits_stay_inside_the_layer(r) -> None:
    f = make_frontier(r, bloom_capacity=1000)
    epoch = f.join(1)
    layer = f.bloom.layers[0]
    for fp in fingerprints("u", 3000):
        assert 0 <= layer.block_offset(fp) <= layer.size_bytes - layer.block_bytes
        assert all(0 <= i < layer.block_bytes for i, _ in layer.byte_masks(fp))
    fill(f, epoch, fingerprints("u", 900))
    assert r.strlen(f.keys.bloom_bits(0)) == layer.size_bytes  # made at its size, not grown
    assert layer.size_bytes % (BLOCK_BITS // 8) == 0


def test_two_urls_of_one_block_in_one_batch_are_both_kept(r) -> None:
    """The second URL's write starts from the block the first one wrote."""
    f = make_frontier(r, bloom_capacity=1000)
    epoch = f.join(1)
    layer = f.bloom.layers[0]
    candidates = fingerprints("same-block", 200)
    first = candidates[0]
    second = next(fp for fp in candidates[1:] if layer.block_offset(fp) == layer.block_offset(first))
    batch = [Pending("h", fp, b"p") for fp in (first, second, first, second)]
    assert f.flush(batch, [], epoch, ready_of("n1")) == [QUEUED, QUEUED, DUPLICATE, DUPLICATE]
    bits = r.get(f.keys.bloom_bits(0))
    assert layer.found(bits, first) and layer.found(bits, second)
    assert f.flush(batch[:2], [], epoch, ready_of("n1")) == [DUPLICATE, DUPLICATE]


def test_at_most_three_bytes_per_url_at_capacity(r) -> None:
    capacity = 50_000
    f = make_frontier(r, bloom_capacity=capacity, bloom_error_rate=ERROR_RATE)
    epoch = f.join(1)
    fill(f, epoch, fingerprints("u", capacity), batch=5000)
    size = r.memory_usage(f.keys.bloom_bits(0), samples=0)  # what Redis really holds
    print(f"Bloom filter: {size / capacity:.2f} bytes of Redis memory per URL")
    assert size / capacity <= 3


def test_layers_keep_compound_error_below_the_rate() -> None:
    layers = [BloomLayer.of(1_000_000, ERROR_RATE, i) for i in range(4)]
    assert sum(layer.error_rate for layer in layers) < ERROR_RATE
    assert layers[0].size_bytes / layers[0].capacity <= 3  # a crawl within its estimate
    # 15 times the estimate: blocks cost more than classic layers (3.0 bytes per URL)
    total_bytes = sum(layer.size_bytes for layer in layers)
    total_urls = sum(layer.capacity for layer in layers)
    assert total_bytes / total_urls <= 3.4


def test_a_crawl_of_the_classic_layout_is_refused_and_left_as_it_was(r) -> None:
    from crawler.frontier.keys import Keys  # noqa: PLC0415

    meta = {b"capacity": b"1000", b"error_rate": b"0.0001", b"n": b"1", b"c0": b"900"}
    r.hset(Keys("t").bloom, mapping=meta)
    with pytest.raises(BloomLayoutError, match="classic layout"):
        make_frontier(r, bloom_capacity=1000)
    assert r.hgetall(Keys("t").bloom) == meta
    # still described as what it is (status): a classic layer's size and rate
    old = BloomFilter.from_meta({k.decode(): v.decode() for k, v in meta.items()})
    classic = pybloom_live.BloomFilter(1000, ERROR_RATE / 2)
    assert old.summary()["layers"][0]["bytes"] == (classic.num_bits + 7) // 8
    assert 0 < old.false_positive_rate() < ERROR_RATE / 2


def test_scrapy_crawl_refuses_a_classic_crawl_in_one_line(r) -> None:
    from crawler.frontier.keys import Keys  # noqa: PLC0415

    r.hset(Keys("old-crawl").bloom, mapping={"capacity": 1000, "error_rate": "0.0001", "n": 1})
    url = f"unix://{r.connection_pool.connection_kwargs['path']}"
    result = forked.run("scrapy", ["crawl", "follow", "-a", "start_urls=http://x.test/",
                                   "-s", f"REDIS_URL={url}", "-s", "CRAWLER_CRAWL_ID=old-crawl"])
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(
        "error: this crawl's Bloom filter (crawler:{old-crawl}:bloom) has the classic layout")
    assert not r.hexists(Keys("old-crawl").bloom, "block_bits")


def test_an_embedded_crawl_of_the_classic_layout_is_refused_in_one_line(tmp_path) -> None:
    from crawler.embedded_redis import start_embedded, stop_embedded  # noqa: PLC0415
    from crawler.frontier.keys import Keys  # noqa: PLC0415
    from crawler.state import crawl_state_dir  # noqa: PLC0415

    server = start_embedded(str(crawl_state_dir(str(tmp_path), "follow")))
    server.hset(Keys("follow").bloom, mapping={"capacity": 1000, "error_rate": "0.0001", "n": 1})
    stop_embedded(server)
    result = forked.run("scrapy", ["crawl", "follow", "-a", "start_urls=http://x.test/",
                                   "-s", f"CRAWLER_STATE_DIR={tmp_path}",
                                   "-s", "CRAWLER_CRAWL_ID=follow"])
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(
        "error: this crawl's Bloom filter (crawler:{follow}:bloom) has the classic layout")
