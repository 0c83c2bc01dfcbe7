"""Issue 39 (still open from the earlier review): every seed is checked exactly as a crawl
checks a start URL (an upper-case scheme, a private address: refused, nothing queued), and
a damaged file of the export is reported as a file error. Real processes (``python -m
crawler``) on a real Redis."""

from __future__ import annotations

from tests.helpers.ops import cli
from tests.ops.test_cli_input_errors import CRAWL, _crawl


def test_seed_refuses_every_url_a_crawl_refuses_and_queues_nothing(r, redis_session) -> None:
    keys = _crawl(r)
    url = ["--redis-url", redis_session.url, "--crawl", CRAWL]
    for bad, why in (
            ("HTTP://127.0.0.1:1/x", "must start with http:// or https://"),
            ("Https://fine.example/", "must start with http:// or https://"),
            ("ftp://fine.example/", "must start with http:// or https://"),
            ("http://127.0.0.1:1/x", "is on 127.0.0.1, a private, loopback or reserved address")):
        run = cli("seed", "http://fine.example/", bad, *url)
        assert run.returncode == 2, (bad, run.stdout + run.stderr)
        assert run.stderr.startswith("error: seed URL ") and why in run.stderr, run.stderr
        assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert not r.keys(keys.queue("*")), "nothing queued"
    # as a crawl started with the setting: allowed
    ok = cli("seed", "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True", "http://127.0.0.1:1/x", *url)
    assert ok.returncode == 0 and "queued 1" in ok.stdout, ok.stdout + ok.stderr


def test_a_damaged_export_cursor_is_a_file_error(r, redis_session, tmp_path) -> None:
    _crawl(r)
    url = ["--redis-url", redis_session.url, "--crawl", CRAWL]
    out = tmp_path / "items.jl"
    out.write_text("")
    for damaged in ("{not json", "[1, 2]", '{"offset": 3}'):
        (tmp_path / "items.jl.cursor").write_text(damaged)
        run = cli("export", "-o", str(out), *url)
        assert run.returncode == 2, run.stderr
        assert run.stderr == (f"error: {tmp_path / 'items.jl.cursor'}: not an export cursor "
                              "(damaged?); export afresh with --restart\n"), run.stderr
