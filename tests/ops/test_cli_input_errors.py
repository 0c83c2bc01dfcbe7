"""``python -m crawler``: a local file error is reported as one (not as a lost Redis), and
``seed`` refuses the URLs a crawl's start-up check refuses (issue 27, item 18a and 18b).
Real processes (``python -m crawler``) on a real Redis."""

from __future__ import annotations

from pathlib import Path

from crawler.frontier.frontier import Frontier
from crawler.frontier.keys import Keys
from crawler.frontier.membership import Membership
from tests.helpers.ops import cli

CRAWL = "local-errors"


def _crawl(client) -> Keys:
    keys = Keys(CRAWL)
    frontier = Frontier(client, keys, "a", delay_ms=0, max_inflight=1, host_limit=0,
                        bloom_capacity=10_000, bloom_error_rate=1e-4)
    Membership(frontier, weight=1, vnodes=100, timeout_ms=10_000).join()
    return keys


def test_a_local_file_error_is_not_a_lost_redis(r, redis_session, tmp_path: Path) -> None:
    _crawl(r)
    url = ["--redis-url", redis_session.url, "--crawl", CRAWL]
    missing = tmp_path / "no-such-folder" / "failures.jl"
    for command in (["failures", "-o", str(missing)], ["export", "-o", str(tmp_path)]):
        run = cli(*command, *url)
        assert run.returncode == 2, run.stderr
        assert "Redis" not in run.stderr and "Traceback" not in run.stderr, run.stderr
        assert run.stderr.count("\n") == 1 and run.stderr.startswith("error: "), run.stderr
    assert cli("failures", "-o", str(missing), *url).stderr == \
        f"error: {missing}: No such file or directory\n"
    assert cli("export", "-o", str(tmp_path), *url).stderr == f"error: {tmp_path}: Is a directory\n"


def test_seed_refuses_what_a_crawl_refuses_at_its_start(r, redis_session) -> None:
    keys = _crawl(r)
    url = ["--redis-url", redis_session.url, "--crawl", CRAWL]
    for bad, why in (("http://exa mple.com/", "is not a valid URL (spaces or bad characters)"),
                     ("http:///nohost", "has no host name")):
        run = cli("seed", "http://fine.example/", bad, *url)
        assert run.returncode == 2, run.stdout + run.stderr
        assert run.stderr == f"error: seed URL {bad!r} {why}\n"
    # nothing queued, not even the good URL given with a bad one
    assert not r.keys(keys.queue("*")) and not r.exists(keys.queue("fine.example"))
    good = cli("seed", "http://fine.example/", *url)
    assert good.returncode == 0 and "queued 1" in good.stdout, good.stdout + good.stderr
