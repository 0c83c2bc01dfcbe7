"""The node-local seen cache in front of the cluster's Bloom filter."""

from __future__ import annotations

import json

import pytest
from scrapy import Request
from scrapy.utils.request import RequestFingerprinter, fingerprint
from scrapy.utils.test import get_crawler

from crawler.frontier.bloom import BloomFilter
from crawler.node.dupefilter import BloomDupeFilter
from tests.helpers.nodes import COMMON, assert_each_page_once
from tests.sitekit.site import SiteServer


class HeaderFingerprinter(RequestFingerprinter):
    """A project's own fingerprinter: it reads a header, so a URL alone is not a key."""

    def fingerprint(self, request: Request) -> bytes:
        return fingerprint(request, include_headers=["X-Lang"])


def dupefilter(cache_size: int = 100, **settings) -> tuple[BloomDupeFilter, list[Request]]:
    settings.setdefault("CRAWLER_SEEN_CACHE_SIZE", cache_size)
    df = BloomDupeFilter.from_crawler(get_crawler(settings_dict=settings))
    hashed: list[Request] = []
    plain = df.fingerprint

    def counted(request: Request) -> str:
        hashed.append(request)
        return plain(request)

    df.fingerprint = counted  # type: ignore[method-assign]
    return df, hashed


def test_a_repeated_link_is_dropped_by_its_exact_url_before_it_is_hashed() -> None:
    df, hashed = dupefilter()
    assert not df.seen_url(Request("http://f.example/t/1"))
    assert df.check(Request("http://f.example/t/1")) is not None
    assert df.seen_url(Request("http://f.example/t/1"))
    assert len(hashed) == 1
    # the same page under another spelling is found by its fingerprint, as before
    assert not df.seen_url(Request("http://f.example/t/1#top"))
    assert df.check(Request("http://f.example/t/1#top")) is None
    assert len(hashed) == 2


def test_the_url_found_before_rewriting_is_what_is_remembered() -> None:
    df, _ = dupefilter()
    found = "http://f.example/t/1?sid=0123456789abcdef0123456789abcdef"
    df.check(Request("http://f.example/t/1"), found)
    assert df.seen_url(Request(found))


def test_only_requests_whose_fingerprint_is_their_url_are_kept_by_url() -> None:
    df, _ = dupefilter()
    df.check(Request("http://f.example/search"))
    assert not df.seen_url(Request("http://f.example/search", method="POST", body=b"q=1"))
    assert not df.seen_url(Request("http://f.example/search", meta={"verbatim_url": True}))
    df.check(Request("http://f.example/form", method="POST", body=b"a=1"))
    assert not df.seen_url(Request("http://f.example/form"))


def test_a_projects_own_fingerprinter_turns_the_url_cache_off() -> None:
    df, hashed = dupefilter(REQUEST_FINGERPRINTER_CLASS=HeaderFingerprinter)
    df.check(Request("http://f.example/t/1", headers={"X-Lang": "en"}))
    assert not df.seen_url(Request("http://f.example/t/1", headers={"X-Lang": "de"}))
    assert df.check(Request("http://f.example/t/1", headers={"X-Lang": "de"})) is not None
    assert len(hashed) == 2


def test_the_url_cache_is_bounded_and_forgotten_with_the_bloom_filter() -> None:
    df, _ = dupefilter(cache_size=3)
    for i in range(5):
        df.check(Request(f"http://f.example/t/{i}"))
    assert not df.seen_url(Request("http://f.example/t/0"))  # the oldest went
    assert df.seen_url(Request("http://f.example/t/4"))
    df.forget()
    assert not df.seen_url(Request("http://f.example/t/4"))


def test_repeated_links_end_as_duplicates_before_the_engine_routes_them(nodes) -> None:
    with SiteServer(hosts=2, pages_per_host=30, seed=5) as site:
        node = nodes("crawler-0", site.base_urls, **COMMON, DOWNLOAD_DELAY=0,
                     DEPTH_STATS_VERBOSE=True,
                     EXTENSIONS=json.dumps({"tests.helpers.signal_counts.SignalCounts": 0}))
        assert node.wait(120) == 0, node.output()[-3000:]
        assert_each_page_once(site)
    counts, stats = node.outcomes(), node.stats()
    assert counts["discovered"] == counts["fetched"] + counts["filtered"] + counts["failed"]
    # every link the engine scheduled was discovered, but most repeats never got there
    most_repeats_dropped = counts["discovered"] - counts["filtered/duplicate"] / 2
    assert counts["fetched"] <= stats["test/request_scheduled"] < most_repeats_dropped
    # nor Scrapy's spider middlewares: the depth middleware counts each link it sees
    through_depth = sum(v for k, v in stats.items() if k.startswith("request_depth_count/"))
    assert counts["fetched"] <= through_depth < most_repeats_dropped


def test_expected_false_positives_follow_the_filters_fill() -> None:
    df, _ = dupefilter()
    bloom = BloomFilter(1000, 1e-3)
    bloom.counts[-1] = 900
    at_900 = bloom.false_positive_rate()
    df.admitted(10, bloom)
    df.admitted(0, bloom)
    assert df.expected_false_positives == pytest.approx(10 * at_900)
    bloom.counts[-1] = 1000
    df.admitted(10, bloom)
    assert df.expected_false_positives == pytest.approx(10 * at_900 + 10 * bloom.false_positive_rate())
    assert bloom.false_positive_rate() > at_900 > 0
