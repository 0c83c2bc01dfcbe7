"""The digest index's lookups, sent as requests go out and read at the flush (issue 42):
on a real Redis, counting the round trips."""

from __future__ import annotations

import redis

from crawler.archive.index import DigestIndex
from crawler.archive.records import Prior

KEY = "crawler:{t}:warc:digests"


def test_a_flush_finds_the_lookups_sent_before_it_and_waits_for_no_round_trip(
        r: redis.Redis) -> None:
    r.hset(KEY, "http://a.example/1", "sha1:AAA 2026-11-29T10:00:00.000000Z")
    index = DigestIndex(r, KEY)
    one, two = index.ask("http://a.example/1"), index.ask("http://a.example/2")
    index.send()
    assert index.round_trips == 1
    priors = index.priors([("http://a.example/1", one), ("http://a.example/2", two)])
    assert priors == [Prior("sha1:AAA", "2026-11-29T10:00:00.000000Z", "http://a.example/1"),
                      None]
    assert (index.round_trips, index.late) == (1, 0), "the flush waited for a lookup"


def test_a_fetch_whose_lookup_is_not_known_is_looked_up_at_its_flush(r: redis.Redis) -> None:
    r.hset(KEY, "http://a.example/1", "sha1:AAA 2026-11-29T10:00:00.000000Z")
    index = DigestIndex(r, KEY)
    asked = index.ask("http://a.example/1?sid=secret")  # the URL masked after it was sent
    never = index.ask("http://a.example/3")
    index.store["http://a.example/3"] = "sha1:CCC 2026-11-29T11:00:00.000000Z"
    priors = index.priors([("http://a.example/1", asked), ("http://a.example/2", None)])
    assert priors[0] == Prior("sha1:AAA", "2026-11-29T10:00:00.000000Z", "http://a.example/1")
    assert priors[1] is None
    assert (index.round_trips, index.late) == (1, 2)
    assert not index.store, "the waiting entries went with that round trip"
    assert r.hget(KEY, "http://a.example/3") == b"sha1:CCC 2026-11-29T11:00:00.000000Z"
    assert not never.known


def test_an_entry_stored_after_a_lookup_went_out_still_makes_its_url_a_revisit(
        r: redis.Redis) -> None:
    index = DigestIndex(r, KEY)
    url = "http://a.example/t"
    early = index.ask(url)  # a second fetch of the URL, sent before the first was written
    index.send()
    index.store[url] = "sha1:TTT 2026-11-29T12:00:00.000000Z"  # the first, written
    later = index.ask(url)
    index.send()  # stores it
    index.forget(early.seq)  # the early lookup is still out: the entry is kept
    stored = Prior("sha1:TTT", "2026-11-29T12:00:00.000000Z", url)
    assert index.priors([(url, early)]) == [stored], "Redis had not the entry for it"
    assert index.priors([(url, later)]) == [stored]
    assert index.late == 0
    index.forget(None)  # no lookup out: every later one sees the entry in Redis
    assert index.priors([(url, early)]) == [None], "forgotten: the lookup's own answer"
