"""``python -m crawler`` against raw frontier state with known sizes, on a real Redis."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from scrapy import Request
from scrapy.utils.request import RequestFingerprinter

from crawler.frontier import codec
from crawler.frontier.cluster import Cluster
from crawler.frontier.frontier import Frontier, Pending
from crawler.frontier.keys import Keys
from crawler.frontier.membership import Membership
from crawler.frontier.ring import Ring
from crawler.ops.cli import main
from tests.helpers.frontier import lease
from tests.helpers.ops import cli

CRAWL = "shop"
QUEUES = {"big.example": 7, "mid.example": 4, "small.example": 1, "tiny.example": 2}


def node(client, name: str, weight: int = 1) -> tuple[Frontier, Membership]:
    frontier = Frontier(client, Keys(CRAWL), name, delay_ms=0, max_inflight=1, host_limit=0,
                        bloom_capacity=10_000, bloom_error_rate=1e-4)
    membership = Membership(frontier, weight=weight, vnodes=1000, timeout_ms=10_000)
    membership.join()
    return frontier, membership


def push(frontier: Frontier, membership: Membership, urls: list[str]) -> None:
    fingerprint = RequestFingerprinter().fingerprint  # what a node's dupefilter uses
    pending = [Pending(host := Request(u).url.split("/")[2], fingerprint(Request(u)).hex(),
                       codec.encode(Request(u), None, host)) for u in urls]
    membership.with_ring(lambda e: frontier.flush(pending, [], e, membership.ready_key))


@pytest.fixture
def crawl(r):
    """Nodes a and b (weight 1 and 2) and a dead node c; known queues; a few leases."""
    a, b, c = node(r, "a"), node(r, "b", weight=2), node(r, "c")
    for _, m in (a, b, c):
        m.refresh()
    urls = [f"http://{h}/{i}" for h, n in QUEUES.items() for i in range(n)]
    push(*a, urls)
    leased, _ = lease(a[0], 10, a[1].epoch)
    # c's last heartbeat is a minute old: dead (nobody reclaimed it yet)
    r.zadd(Keys(CRAWL).members, {"c": a[0].now_ms() - 60_000})
    return {"a": a, "b": b, "leased": Counter(lease.host for lease in leased)}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_status_json_matches_the_known_state(crawl, redis_session, capsys):
    code, out, _ = run(capsys, "status", "--json", "--redis-url", redis_session.url)
    assert code == 0
    status = json.loads(out)
    weights = {"a": 1, "b": 2, "c": 1}
    owners = Counter(Ring(weights, 1000).owner(h) for h in QUEUES)
    nodes = {n["node"]: n for n in status["nodes"]}
    assert set(nodes) == {"a", "b", "c"}
    assert {n: nodes[n]["state"] for n in nodes} == {"a": "alive", "b": "alive", "c": "dead"}
    assert {n: nodes[n]["weight"] for n in nodes} == weights
    # hosts leased to their limit stay in the ready set, parked until settled
    assert {n: nodes[n]["hosts_owned"] for n in nodes} == {n: owners[n] for n in weights}
    leased = sum(crawl["leased"].values())
    assert leased == owners["a"]  # one per host of a's (CRAWLER_HOST_MAX_INFLIGHT 1)
    assert nodes["a"]["leased"] == leased and nodes["b"]["leased"] == 0
    assert status["totals"]["queued"] == sum(QUEUES.values()) - leased
    assert status["totals"]["leased"] == leased
    expected_top = sorted(((n - crawl["leased"][h], h) for h, n in QUEUES.items()),
                          key=lambda qh: (-qh[0], qh[1]))
    assert [(t["queued"], t["host"]) for t in status["top_hosts"]] == expected_top
    assert status["bloom"]["urls"] == sum(QUEUES.values())
    assert len(status["bloom"]["layers"]) == 1
    assert status["ring_epoch"] == int(redis_session.client().get(Keys(CRAWL).epoch))


def test_status_text_and_top(crawl, redis_session, capsys):
    code, out, _ = run(capsys, "status", "--top", "2", "--redis-url", redis_session.url)
    assert code == 0
    assert f"crawl {CRAWL} at unix://" in out
    lines = out.splitlines()
    top = lines[lines.index("biggest host queues:") + 1:][:3]
    assert top[0].split()[1] == "big.example" and top[1].split()[1] == "mid.example"
    assert top[2] == ""  # only --top 2
    assert any(line.startswith("c ") and "dead" in line for line in lines)


def test_status_shows_the_learned_site_templates(crawl, redis_session, r, capsys):
    templates = Cluster(r, CRAWL).templates
    assert templates.get("big.example") is None
    templates.put("big.example", '{"post": ".msg"}')
    templates.put("mid.example", '{"post": "article"}')
    assert Cluster(r, CRAWL).templates.get("big.example") == '{"post": ".msg"}'  # any node reads it
    url = ["--redis-url", redis_session.url]
    status = json.loads(run(capsys, "status", "--json", *url)[1])
    assert status["site_templates"] == ["big.example", "mid.example"]
    assert "learned site templates: 2 (big.example, mid.example)" in run(capsys, "status", *url)[1]


def test_pause_resume_drain_undrain_set_the_switches(crawl, redis_session, r, capsys):
    url = ["--redis-url", redis_session.url]
    control = Keys(CRAWL).control
    # the crawl's live members (a, b; c is dead) are no nodes: none acknowledges the pause
    code, _, err = run(capsys, "pause", "--timeout", "0", *url)
    assert code == 2 and "but a, b did not acknowledge within 0 s" in err, err
    assert r.hget(control, "paused") == b"1"
    assert json.loads(run(capsys, "status", "--json", *url)[1])["paused"] is True
    assert run(capsys, "resume", *url)[0] == 0
    assert not r.hexists(control, "paused")
    assert run(capsys, "drain", "b", *url)[0] == 0
    assert r.hget(control, "drain:b") == b"1"
    nodes = {n["node"]: n for n in json.loads(run(capsys, "status", "--json", *url)[1])["nodes"]}
    assert nodes["b"]["state"] == "draining"
    code, _, err = run(capsys, "drain", "zz", *url)
    assert code == 2 and "unknown node 'zz'" in err and "members: a, b, c" in err
    assert run(capsys, "undrain", "b", *url)[0] == 0
    assert not r.hexists(control, "drain:b")


def test_seed_routes_like_a_node_and_skips_seen_urls(crawl, redis_session, r, capsys):
    url = ["--redis-url", redis_session.url]
    code, out, _ = run(capsys, "seed", "http://new.example/", "http://big.example/0", *url)
    assert code == 0 and "queued 1, already seen 1" in out
    owner = Ring({"a": 1, "b": 2, "c": 1}, 1000).owner("new.example")
    assert r.zscore(Keys(CRAWL).ready(owner), "new.example") is not None
    payload = r.lrange(Keys(CRAWL).queue("new.example"), 0, -1)
    assert payload == [b'2{"t":"/"}']  # stored without its host, the queue's
    assert [codec.decode(p, None, "new.example").url for p in payload] == ["http://new.example/"]
    code, out, _ = run(capsys, "seed", "--dont-filter", "http://big.example/0", *url)
    assert code == 0 and "queued 1" in out
    code, _, err = run(capsys, "seed", "ftp://x.example/", *url)
    assert code == 2 and "must start with http:// or https://" in err


def test_seed_with_no_node_waits_in_orphans(r, redis_session, capsys):
    _, membership = node(r, "solo")
    membership.leave()
    code, out, _ = run(capsys, "seed", "http://later.example/", "--redis-url",
                       redis_session.url, "--crawl", CRAWL)
    assert code == 0 and "wait until a node joins" in out
    assert r.zscore(Keys(CRAWL).orphans, "later.example") is not None


def test_bad_input_gives_one_line_and_status_2(crawl, redis_session):
    unreachable = cli("status", "--redis-url", "redis://:s3cret@127.0.0.1:1/0",
                      "--connect-timeout", "0.2")
    assert unreachable.returncode == 2
    assert unreachable.stderr.count("\n") == 1 and "cannot reach Redis" in unreachable.stderr
    assert "s3cret" not in unreachable.stderr
    unknown = cli("status", "--redis-url", redis_session.url, "--crawl", "nope")
    assert unknown.returncode == 2
    assert unknown.stderr == f"error: unknown crawl 'nope' at {redis_session.url} " \
                             f"(crawls there: {CRAWL})\n"
    assert cli("bogus").returncode == 2  # argparse


def test_purge_needs_yes_and_no_live_nodes(crawl, redis_session, r, capsys):
    url = ["--redis-url", redis_session.url]
    code, _, err = run(capsys, "purge", *url)
    assert code == 2 and "add --yes" in err
    code, _, err = run(capsys, "purge", "--yes", *url)
    assert code == 2 and "live nodes (a, b)" in err
    r.set("unrelated", 1)
    r.set("crawler:{shop2}:epoch", 1)
    code, _, err = run(capsys, "purge", "--yes", "--force", *url)
    assert code == 2 and "several crawls in this Redis (shop, shop2)" in err
    code, out, _ = run(capsys, "purge", "--yes", "--force", "--crawl", CRAWL, *url)
    assert code == 0 and out.startswith("deleted ")
    assert sorted(r.keys("*")) == [b"crawler:{shop2}:epoch", b"unrelated"]


def test_export_is_incremental_and_idempotent(r, redis_session, tmp_path, capsys):
    node(r, "a")
    stream = Keys(CRAWL).items
    for i in range(5):
        r.xadd(stream, {"node": "a", "item": json.dumps({"i": i})})
    out = tmp_path / "items.jl"
    args = ["export", "-o", str(out), "--redis-url", redis_session.url]

    def lines() -> list[int]:
        return [json.loads(line)["i"] for line in out.read_text().splitlines()]

    assert run(capsys, *args, "--keep")[0] == 0
    assert lines() == [0, 1, 2, 3, 4] and r.xlen(stream) == 5
    assert run(capsys, *args)[0] == 0
    assert lines() == [0, 1, 2, 3, 4]  # again: nothing new, nothing doubled
    assert r.xlen(stream) == 0  # by default, what was exported leaves Redis (issue 27)
    for i in range(5, 8):
        r.xadd(stream, {"node": "b", "item": json.dumps({"i": i})})
    with open(out, "a") as f:  # a run that died after writing, before its cursor
        f.write('{"i": 5}\n{"i": 6')
    assert run(capsys, *args)[0] == 0
    assert lines() == list(range(8))
    assert run(capsys, *args, "--trim")[0] == 0
    assert r.xlen(stream) == 0 and lines() == list(range(8))
    r.xadd(stream, {"node": "a", "item": json.dumps({"i": 8})})
    assert run(capsys, *args, "--keep")[0] == 0
    assert lines() == list(range(9))
    assert run(capsys, *args, "--restart")[0] == 0
    assert lines() == [8]  # rewritten from what the stream still holds


def test_embedded_state_dir(tmp_path, capsys):
    from crawler.embedded_redis import start_embedded

    server = start_embedded(str(tmp_path / "state" / CRAWL))
    try:
        node(server, "a")
        code, out, _ = run(capsys, "status", "--json", "--state-dir", str(tmp_path / "state"))
        assert code == 0
        assert [n["node"] for n in json.loads(out)["nodes"]] == ["a"]
        code, _, err = run(capsys, "status", "--state-dir", str(tmp_path / "state"),
                           "--crawl", "other")
        assert code == 2 and f"crawls there: {CRAWL}" in err
    finally:
        server.shutdown(nosave=True)


def test_drain_warns_when_it_leaves_no_node_owning_hosts(crawl, redis_session, capsys):
    url = ["--redis-url", redis_session.url]
    code, _, err = run(capsys, "drain", "b", *url)
    assert code == 0 and "warning" not in err  # a still owns hosts
    code, out, err = run(capsys, "drain", "a", *url)
    assert code == 0 and "node a draining" in out
    assert "warning: a was the last live node owning hosts" in err and "undrain a" in err


def test_failures_to_stdout_says_how_many(crawl, redis_session, r, capsys):
    url = ["--redis-url", redis_session.url]
    code, out, err = run(capsys, "failures", "-o", "-", *url)
    assert code == 0 and out == "" and "0 failed URLs" in err
    r.xadd(Keys(CRAWL).failures, {"url": "http://dead.example/", "reason": "ConnectionRefusedError",
                                  "node": "a"})
    code, out, err = run(capsys, "failures", "-o", "-", *url)
    assert code == 0 and "1 failed URLs" in err
    assert [json.loads(line)["url"] for line in out.splitlines()] == ["http://dead.example/"]


def test_export_says_why_the_stream_is_empty(crawl, redis_session, tmp_path, capsys):
    code, out, err = run(capsys, "export", "-o", str(tmp_path / "x.jl"), "--redis-url",
                         redis_session.url)
    assert code == 0 and "exported 0 new items" in out
    assert "item stream of crawl shop is empty" in err and "CRAWLER_ITEMS_STREAM=True" in err
    code, _, err = run(capsys, "export", "-o", "-", "--redis-url", redis_session.url)
    assert code == 0 and "CRAWLER_ITEMS_STREAM=True" in err


def test_state_dir_may_be_the_crawls_own_folder_and_purge_removes_it(tmp_path):
    """Each command in its own process, as an operator runs them."""
    from crawler.embedded_redis import start_embedded, stop_embedded

    folder = tmp_path / "state" / CRAWL
    server = start_embedded(str(folder))
    node(server, "a")
    server.zadd(Keys(CRAWL).members, {"a": 0})  # long dead: purge needs no --force
    stop_embedded(server)
    result = cli("status", "--json", "--state-dir", str(folder))  # the folder as the crawl logs it
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["crawl"] == CRAWL
    result = cli("purge", "--yes", "--state-dir", str(folder))
    assert result.returncode == 0, result.stderr
    assert f"and its state folder {folder}" in result.stdout
    assert not folder.exists()
