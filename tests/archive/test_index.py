"""The digest index against a real Redis: lookups sent ahead, entries stored only when told."""

from __future__ import annotations

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from crawler.archive.index import DigestIndex
from crawler.archive.records import Prior

KEY = "crawler:{t}:warc:digests"
A, B, C = (f"http://forum.example/t{i}" for i in range(3))


def test_lookups_sent_ahead_are_answered_without_waiting_at_the_write(r: redis.Redis) -> None:
    r.hset(KEY, A, "sha1:AAA 2026-01-01T00:00:00.000000Z")
    index = DigestIndex(r, KEY)
    index.want(A)
    index.want(B)
    index.send()
    assert index.round_trips == 1
    index.want(C)
    index.send()  # one batch on the wire at a time: sent once the first is answered
    assert index.priors([A, B]) == [Prior("sha1:AAA", "2026-01-01T00:00:00.000000Z", A), None]
    assert index.round_trips == 2  # C went out once A and B's replies were read
    trips = index.round_trips
    assert index.priors([C]) == [None]
    assert index.round_trips == trips  # answered ahead: no lookup at the write


def test_a_url_not_looked_up_ahead_is_looked_up_at_the_write(r: redis.Redis) -> None:
    r.hset(KEY, C, "sha1:CCC 2026-01-02T00:00:00.000000Z")
    index = DigestIndex(r, KEY)
    assert index.priors([C]) == [Prior("sha1:CCC", "2026-01-02T00:00:00.000000Z", C)]
    assert index.round_trips == 1


def test_entries_are_stored_only_once_told_and_with_the_next_batch(r: redis.Redis) -> None:
    index = DigestIndex(r, KEY)
    index.want(A)
    index.send()
    index.store({A: "sha1:AAA 2026-01-03T00:00:00.000000Z"})  # its record is in the file now
    assert r.hget(KEY, A) is None
    index.want(B)
    index.send()
    index.priors([A, B])
    assert r.hget(KEY, A) == b"sha1:AAA 2026-01-03T00:00:00.000000Z"
    index.store({B: "sha1:BBB 2026-01-03T00:00:01.000000Z"})
    assert index.close()
    assert r.hget(KEY, B) == b"sha1:BBB 2026-01-03T00:00:01.000000Z"


def test_redis_down_gives_full_responses_and_keeps_the_entries(redis_server) -> None:
    client = redis.Redis(unix_socket_path=str(redis_server.socket), retry=Retry(NoBackoff(), 0))
    index = DigestIndex(client, KEY)
    index.want(A)
    index.send()
    assert index.priors([A]) == [None]
    index.store({A: "sha1:AAA 2026-01-04T00:00:00.000000Z"})
    redis_server.stop()
    index.want(B)
    index.send()
    assert index.priors([B]) is None  # the caller writes B in full
    assert not index.close()
    assert index.unstored == {A: "sha1:AAA 2026-01-04T00:00:00.000000Z"}  # for the next try
