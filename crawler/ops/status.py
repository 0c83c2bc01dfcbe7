"""The crawl as an operator wants to see it, read from Redis in a few pipelined round trips."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from crawler.scheduler.bloom import BloomLayer

if TYPE_CHECKING:
    import redis

    from crawler.scheduler.keys import Keys

_CHUNK = 1000  # commands per pipeline when asking about every host


def read_status(client: redis.Redis, keys: Keys, *, node_timeout: float,
                top: int = 10) -> dict[str, Any]:
    """Everything ``python -m crawler status`` shows, as plain data (its ``--json``)."""
    pipe = client.pipeline(transaction=False)
    pipe.time()
    pipe.zrange(keys.members, 0, -1, withscores=True)
    pipe.hgetall(keys.weights)
    pipe.get(keys.epoch)
    pipe.hgetall(keys.totals)
    pipe.zcard(keys.orphans)
    pipe.hgetall(keys.control)
    pipe.hgetall(keys.bloom)
    pipe.hgetall(keys.node_stats)
    pipe.exists(keys.items)
    pipe.hgetall(keys.outcomes)
    pipe.xlen(keys.failures)
    (sec, usec), members, weights, epoch, totals, orphans, control, bloom, node_stats, \
        has_items, outcomes, failures = pipe.execute()
    now_ms = sec * 1000 + usec // 1000
    control = _decode(control)
    nodes = _nodes(client, keys, members, _decode(weights), control, _decode(node_stats),
                   now_ms, node_timeout)
    totals = _decode(totals)
    status: dict[str, Any] = {
        "crawl": keys.crawl,
        "ring_epoch": int(epoch or 0),
        "paused": control.get("paused") == "1",
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
        "top_hosts": _top_hosts(client, keys, [n["node"] for n in nodes], top),
        "bloom": _bloom(_decode(bloom)),
        "items_stream": client.xlen(keys.items) if has_items else 0,
        "rebalances": _events(client, keys),
        "outcomes": sum_outcomes(_decode(outcomes)),
        "failures": failures,
    }
    return status


def sum_outcomes(per_run: dict[str, str]) -> dict[str, int]:
    """Cluster totals of every node run's ``<node>@<run>/<outcome>`` counters."""
    totals: dict[str, int] = {}
    for field, count in per_run.items():
        outcome = field.split("/", 1)[1]
        totals[outcome] = totals.get(outcome, 0) + int(count)
    return dict(sorted(totals.items()))


def _decode(mapping: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in mapping.items()}


def _nodes(client: redis.Redis, keys: Keys, members: list, weights: dict[str, str],
           control: dict[str, str], node_stats: dict[str, str], now_ms: int,
           node_timeout: float) -> list[dict[str, Any]]:
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


def _state(age: float, weight: int, drain_flag: bool, node_timeout: float) -> str:
    if age > node_timeout:
        return "dead"
    if drain_flag or weight == 0:
        return "draining"  # asked to (drain), or leaving (SIGTERM)
    return "alive"


def _top_hosts(client: redis.Redis, keys: Keys, nodes: list[str],
               top: int) -> list[dict[str, Any]]:
    hosts: set[str] = set()
    for zset in [keys.orphans, *(keys.ready(n) for n in nodes)]:
        hosts.update(h.decode() for h in client.zrange(zset, 0, -1))
    ordered = sorted(hosts)
    sizes: list[int] = []
    for start in range(0, len(ordered), _CHUNK):
        pipe = client.pipeline(transaction=False)
        for host in ordered[start:start + _CHUNK]:
            pipe.llen(keys.queue(host))
        sizes += pipe.execute()
    biggest = sorted(zip(ordered, sizes), key=lambda hs: (-hs[1], hs[0]))[:top]
    return [{"host": h, "queued": s} for h, s in biggest]


def _bloom(meta: dict[str, str]) -> dict[str, Any]:
    if "capacity" not in meta:
        return {"layers": []}
    capacity, error_rate = int(meta["capacity"]), float(meta["error_rate"])
    layers, miss = [], 1.0
    for i in range(int(meta.get("n", 1))):
        layer = BloomLayer.of(capacity, error_rate, i)
        count = int(meta.get(f"c{i}", 0))
        miss *= 1.0 - layer.false_positive_rate(count)
        layers.append({"index": i, "capacity": layer.capacity, "count": count,
                       "bytes": layer.size_bytes})
    return {"capacity": capacity, "error_rate": error_rate, "layers": layers,
            "urls": sum(lay["count"] for lay in layers), "false_positive_rate": 1.0 - miss}


def _events(client: redis.Redis, keys: Keys, count: int = 5) -> list[dict[str, Any]]:
    entries = client.xrevrange(keys.events, count=count)
    return [{"id": eid.decode(), **_decode(fields)} for eid, fields in entries]


def render(status: dict[str, Any], url: str) -> str:
    """The human form of :func:`read_status`."""
    t = status["totals"]
    lines = [
        f"crawl {status['crawl']} at {url}   ring epoch {status['ring_epoch']}"
        + ("   PAUSED" if status["paused"] else ""),
        (f"queued {t['queued']}   leased {t['leased']}   hosts with work "
         f"{t['hosts_with_work']} ({t['orphan_hosts']} orphaned)   pages/s {t['pages_per_s']:g}"),
        "",
        (f"{'node':<24} {'state':<9} {'weight':>6} {'beat':>6} {'hosts':>6} {'leased':>6} "
         f"{'pages':>8} {'pages/s':>8}"),
    ]
    for n in status["nodes"]:
        lines.append(
            f"{n['node']:<24} {n['state']:<9} {n['weight']:>6} {n['heartbeat_age_s']:>5.1f}s "
            f"{n['hosts_owned']:>6} {n['leased']:>6} {_opt(n['pages']):>8} "
            f"{_opt(n['pages_per_s']):>8}")
    if not status["nodes"]:
        lines.append("(no nodes)")
    if status["drain_requested"]:
        lines.append(f"drain requested: {', '.join(status['drain_requested'])}")
    lines += ["", "biggest host queues:"]
    lines += [f"  {h['queued']:>8}  {h['host']}" for h in status["top_hosts"]] or ["  (none)"]
    b = status["bloom"]
    if b["layers"]:
        layers = ", ".join(f"{lay['count']}/{lay['capacity']}" for lay in b["layers"])
        lines += ["", (f"bloom filter: {len(b['layers'])} layer(s) [{layers}], "
                       f"false-positive rate {b['false_positive_rate']:.2e} "
                       f"(limit {b['error_rate']:g})")]
    lines.append(f"items in stream: {status['items_stream']}")
    outcomes = status["outcomes"]
    if outcomes:
        lines += ["", (f"outcomes: {outcomes.get('discovered', 0)} URLs discovered, "
                       f"{outcomes.get('fetched', 0)} fetched, {outcomes.get('filtered', 0)} "
                       f"filtered, {outcomes.get('failed', 0)} failed "
                       f"({status['failures']} in the failure list: `python -m crawler "
                       "failures -o failures.jl`)")]
        lines += [f"  {count:>8}  {name}" for name, count in outcomes.items() if "/" in name]
    if status["rebalances"]:
        lines += ["", "recent rebalances:"]
        lines += [(f"  epoch {e.get('epoch', '?')}: {e.get('node', '?')} moved "
                   f"{e.get('away', '?')} away, claimed {e.get('claimed', '?')}")
                  for e in status["rebalances"]]
    return "\n".join(lines)


def _opt(value: Any) -> str:
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
