"""The crawl's status, read from Redis in a few pipelined round trips."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from crawler.frontier.bloom import BloomFilter

if TYPE_CHECKING:
    import redis

    from crawler.frontier.keys import Keys

_CHUNK = 1000  # commands per pipeline when asking about many hosts
_SAMPLE = 10_000  # hosts looked at for the biggest queues: all of them, up to this many


def _decode(mapping: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in mapping.items()}


def read_status(client: redis.Redis, keys: Keys, *, node_timeout: float,
                top: int = 10) -> dict[str, Any]:
    """Everything ``python -m crawler status`` shows, as plain data (its ``--json``)."""
    pipe = client.pipeline(transaction=False)
    pipe.time()
    pipe.zrange(keys.members, 0, -1, withscores=True)
    for key in (keys.weights, keys.totals, keys.control, keys.bloom, keys.node_stats,
                keys.outcomes):
        pipe.hgetall(key)
    pipe.get(keys.epoch)
    pipe.zcard(keys.orphans)
    pipe.xlen(keys.items)
    pipe.xlen(keys.failures)
    pipe.xrevrange(keys.events, count=5)
    pipe.hkeys(keys.templates)
    pipe.zcard(keys.revisit_due)
    pipe.zrange(keys.revisit_due, 0, 0, withscores=True)
    pipe.get(keys.revisit_pass)
    (sec, usec), members, weights, totals, control, bloom, node_stats, outcomes, epoch, \
        orphans, items, failures, events, templates, revisit_hosts, first_due, revisit_pass \
        = pipe.execute()
    now_ms = sec * 1000 + usec // 1000
    control = _decode(control)
    nodes = _nodes(client, keys, members, _decode(weights), control, _decode(node_stats), now_ms,
                   node_timeout)
    totals = _decode(totals)
    filter_ = BloomFilter.from_meta(_decode(bloom))
    top_hosts, sampled = _top_hosts(client, keys, [n["node"] for n in nodes], top)
    return {
        "crawl": keys.crawl,
        "ring_epoch": int(epoch or 0),
        "paused": bool(control.get("paused")),
        "drain_requested": sorted(k[6:] for k, v in control.items()
                                  if k.startswith("drain:") and v == "1"),
        "nodes": nodes,
        "totals": {
            "queued": int(totals.get("queued", 0)),
            "leased": int(totals.get("leased", 0)),
            "hosts_with_work": sum(n["hosts_owned"] for n in nodes) + orphans,
            "orphan_hosts": orphans,
            "pages_per_s": round(sum(n["pages_per_s"] or 0 for n in nodes
                                     if n["state"] != "dead"), 2),
        },
        "top_hosts": top_hosts,
        "top_hosts_sampled": sampled,  # hosts looked at, or None when all were
        "bloom": filter_.summary() if filter_ else {"layers": []},
        "items_stream": items,
        "rebalances": [{"id": eid.decode(), **_decode(f)} for eid, f in events],
        "outcomes": sum_outcomes(_decode(outcomes)),
        "failures": failures,
        "site_templates": sorted(host.decode() for host in templates),
        "revisits": {
            "hosts": revisit_hosts,
            # negative: overdue (or, without watch mode, revisited by the next run)
            "next_due_in_s": round((first_due[0][1] - now_ms) / 1000, 1) if first_due else None,
            "pass_started_ms": int(revisit_pass) if revisit_pass else None,
        },
    }

def _nodes(client: redis.Redis, keys: Keys, members: list, weights: dict[str, str],
           control: dict[str, str], node_stats: dict[str, str], now_ms: int,
           node_timeout: float) -> list[dict]:
    names = [m.decode() for m, _ in members]
    pipe = client.pipeline(transaction=False)
    for name in names:
        pipe.zcard(keys.ready(name))
        pipe.hlen(keys.leases(name))
    counts = pipe.execute()
    nodes = []
    for i, (name, (_, beat)) in enumerate(zip(names, members)):
        age = max(0.0, (now_ms - beat) / 1000)
        weight = int(weights.get(name, 0))
        sample = json.loads(node_stats[name]) if name in node_stats else {}
        nodes.append({
            "node": name,
            "state": _state(age, weight, control.get(f"drain:{name}") == "1", node_timeout),
            "weight": weight,
            "heartbeat_age_s": round(age, 1),
            "hosts_owned": counts[2 * i],
            "leased": counts[2 * i + 1],
            "pages": sample.get("pages"),
            "items": sample.get("items"),
            "pages_per_s": sample.get("pages_per_s"),
            "items_per_s": sample.get("items_per_s"),
        })
    return nodes

def _top_hosts(client: redis.Redis, keys: Keys, nodes: list[str], top: int
               ) -> tuple[list[dict[str, Any]], int | None]:
    """The biggest host queues, and the sample size they were found in (None: all hosts).

    Past :data:`_SAMPLE` hosts, a random sample of that many (``ZRANDMEMBER``, from each
    ready set in proportion to its size), so the status costs the same at any size."""
    zsets = [keys.orphans, *(keys.ready(n) for n in nodes)]
    pipe = client.pipeline(transaction=False)
    for zset in zsets:
        pipe.zcard(zset)
    counts = pipe.execute()
    total = sum(counts)
    pipe = client.pipeline(transaction=False)
    for zset, count in zip(zsets, counts):
        if total <= _SAMPLE:
            pipe.zrange(zset, 0, -1)
        elif count:
            pipe.zrandmember(zset, max(1, round(_SAMPLE * count / total)))
    ordered = sorted({h.decode() for hosts in pipe.execute() for h in hosts or ()})
    sizes: list[int] = []
    for start in range(0, len(ordered), _CHUNK):
        pipe = client.pipeline(transaction=False)
        for host in ordered[start:start + _CHUNK]:
            pipe.llen(keys.queue(host))
        sizes += pipe.execute()
    biggest = sorted(zip(ordered, sizes), key=lambda hs: (-hs[1], hs[0]))[:top]
    return [{"host": h, "queued": s} for h, s in biggest], (len(ordered) if total > _SAMPLE
                                                            else None)


def sum_outcomes(per_run: dict[str, str]) -> dict[str, int]:
    """Cluster totals of every node run's ``<node>@<run>/<outcome>`` counters."""
    totals: Counter[str] = Counter()
    for field, count in per_run.items():
        totals[field.split("/", 1)[1]] += int(count)
    return dict(sorted(totals.items()))


def _state(age: float, weight: int, drain_flag: bool, node_timeout: float) -> str:
    if age > node_timeout:
        return "dead"
    if drain_flag or weight == 0:
        return "draining"  # asked to (drain), or leaving (SIGTERM)
    return "alive"
