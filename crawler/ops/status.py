"""The human form of ``python -m crawler status`` (the data: :meth:`Cluster.status`)."""

from __future__ import annotations

from typing import Any


def render(status: dict[str, Any], url: str) -> str:
    """The status of :meth:`crawler.frontier.cluster.Cluster.status`, for people."""
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
    sampled = status.get("top_hosts_sampled")
    lines += ["", "biggest host queues:" if sampled is None
              else f"biggest host queues (of {sampled} hosts sampled at random):"]
    lines += [f"  {h['queued']:>8}  {h['host']}" for h in status["top_hosts"]] or ["  (none)"]
    b = status["bloom"]
    if b["layers"]:
        layers = ", ".join(f"{lay['count']}/{lay['capacity']}" for lay in b["layers"])
        lines += ["", (f"bloom filter: {len(b['layers'])} layer(s) [{layers}], "
                       f"false-positive rate {b['false_positive_rate']:.2e} "
                       f"(limit {b['error_rate']:g})")]
    lines.append(f"items in stream: {status['items_stream']}")
    if templates := status["site_templates"]:
        more = f" and {len(templates) - 5} more" if len(templates) > 5 else ""
        shown = ", ".join(templates[:5]) + more
        lines.append(f"learned site templates: {len(templates)} ({shown})")
    r = status["revisits"]
    if r["hosts"]:
        lines.append(f"revisits: listing pages of {r['hosts']} host(s) kept; next due in "
                     f"{r['next_due_in_s']:g}s")
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
