"""Deep revisits (crawler/node/deep.py, deep.lua) against a real Redis: each sweep
promotes the threads whose phase the pass cycle or the time cycle went past, once."""

from __future__ import annotations

from scrapy.utils.test import get_crawler

from crawler.frontier.membership import Membership
from crawler.node.deep import phase
from crawler.node.outcomes import Outcomes
from crawler.node.revisit import Revisits
from tests.helpers.frontier import make_frontier

HOST = "forum.test"
KEYS = [f"t{i}" for i in range(60)]


def _revisits(r, passes: int, days: float) -> Revisits:
    frontier = make_frontier(r, node="n1")
    membership = Membership(frontier, weight=1, vnodes=160, timeout_ms=10_000)
    membership.join()
    return Revisits(frontier, membership, Outcomes("n1", get_crawler().stats), watch=0,
                    min_interval=1, max_interval=100, deep_passes=passes, deep_days=days)


def _sweep(v: Revisits, pass_number: int, clock_ms: int) -> set[str]:
    """The threads one sweep at *pass_number* and *clock_ms* queues."""
    queue = v.keys.queue(HOST)
    before = v.frontier.link.command("llen", queue)
    v.deep.pass_number = pass_number
    v.deep.sweep(v.frontier.now_ms(), clock_ms)
    payloads = v.frontier.link.command("lrange", queue, before, -1)
    return {p.decode() for p in payloads}


def _kept(r, passes: int, days: float) -> tuple[Revisits, int]:
    """Revisits with KEYS kept for deep revisits in pass 0; and the time (ms) the host's
    cycles start at."""
    v = _revisits(r, passes, days)
    v.deep.every = 0  # sweep at every call
    for key in KEYS:
        v.keep_deep(HOST, key, key.encode())  # the payload is the key: what was queued
    v.flush()
    mark = r.hget(v.keys.revisit_deep, HOST).decode()
    assert mark.startswith("0 ")
    return v, int(mark.split()[1])


def test_the_pass_cycle_reads_each_thread_once_in_n_passes(r):
    v, start = _kept(r, passes=3, days=0)
    shares = [_sweep(v, n, start) for n in (1, 2, 3)]
    assert all(0 < len(s) < len(KEYS) for s in shares)
    assert set.union(*shares) == set(KEYS) and sum(map(len, shares)) == len(KEYS)
    assert shares[0] == {k for k in KEYS if phase(k) < 1 / 3}
    assert _sweep(v, 3, start) == set()  # the same pass again (another node, a restart)
    assert _sweep(v, 4, start) == shares[0]  # the next cycle


def test_the_time_cycle_reads_the_share_of_the_days_gone_by(r):
    day = 86_400_000
    v, start = _kept(r, passes=0, days=1)
    offset = start / day % 1  # where the cycle stands at the start
    quarter = _sweep(v, 1, start + day // 4)
    assert quarter == {k for k in KEYS if 0 <= (phase(k) - offset) % 1 < 0.25}
    assert 0 < len(quarter) < len(KEYS)
    rest = _sweep(v, 2, start + day)
    assert rest == set(KEYS) - quarter  # within a day, every thread
    assert _sweep(v, 3, start + day) == set()  # no time went by
    assert _sweep(v, 4, start + 3 * day) == set(KEYS)  # a long gap: every thread, once
