"""Issue 39 (still open from the earlier review): every seed is checked exactly as a crawl
checks a start URL (an upper-case scheme, a private address: refused, nothing queued), and
a damaged file of the export is reported as a file error. Real processes (``python -m
crawler``) on a real Redis."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.attachments.test_store import _can_mount_tmpfs
from tests.helpers import ROOT
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


def _stdout_to(output, *args: str) -> subprocess.CompletedProcess:
    """``python -m crawler ARGS`` with its stdout on *output* (a real file or device)."""
    return subprocess.run([sys.executable, "-m", "crawler", *args], stdout=output,
                          stderr=subprocess.PIPE, text=True, cwd=ROOT, check=False, timeout=60)


def _items(r, n: int) -> None:
    keys = _crawl(r)
    for i in range(n):
        r.xadd(keys.failures, {"url": f"http://fine.example/{i}", "reason": "http/500",
                               "node": "a"})
        r.xadd(keys.items, {"node": "a", "item": json.dumps({"url": f"http://fine.example/{i}",
                                                             "text": "x" * 200})})


def test_a_full_disk_or_a_closed_pipe_is_a_file_error_naming_the_file(r, redis_session,
                                                                       tmp_path) -> None:
    """A full disk (/dev/full, whose every write fails so, and a real 64 KiB tmpfs) names the
    file it was writing; a reader that stops (``| head``) is no lost Redis, and no second line."""
    _items(r, 2000)
    url = ["--redis-url", redis_session.url, "--crawl", CRAWL]
    run = cli("failures", "-o", "/dev/full", *url)
    assert (run.returncode, run.stderr) == (2, "error: /dev/full: No space left on device\n")
    if _can_mount_tmpfs():  # a real 64 KiB disk that the export fills
        disk = tmp_path / "disk"
        disk.mkdir()
        run = subprocess.run(
            ["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {disk} && "
             f"{sys.executable} -m crawler export --keep -o {disk}/items.jl {' '.join(url)}"],
            capture_output=True, text=True, cwd=ROOT, check=False, timeout=60)
        assert (run.returncode, run.stderr) == (
            2, f"error: {disk}/items.jl: No space left on device\n")
    with open("/dev/full", "w") as full:
        for command in (["export", "--keep", "-o", "-"], ["failures", "-o", "-"],
                        ["status", "--json"]):
            run = _stdout_to(full, *command, *url)
            assert (run.returncode, run.stderr) == (2, "error: stdout: No space left on device\n")
    reader = subprocess.Popen([sys.executable, "-m", "crawler", "export", "--keep", "-o", "-",
                               *url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert reader.stdout.read(10)  # then the reader goes away, as `| head -c 10` does
    reader.stdout.close()
    assert reader.wait(60) == 2
    assert reader.stderr.read().decode() == "error: stdout: Broken pipe\n"


def test_seed_queues_no_password_a_crawl_would_strip(r, redis_session) -> None:
    """A crawl takes ``http://user:pw@host/`` as ``http://host/`` (no password in the queue,
    the AOF, items or logs): so does ``seed``."""
    keys = _crawl(r)
    url = ["--redis-url", redis_session.url, "--crawl", CRAWL]
    run = cli("seed", "http://user:s3cret@fine.example/a", *url)
    assert run.returncode == 0 and "queued 1" in run.stdout, run.stdout + run.stderr
    queued = b"".join(r.lrange(keys.queue("fine.example"), 0, -1))
    assert queued and b"s3cret" not in queued and b"user" not in queued, queued
    again = cli("seed", "http://fine.example/a", *url)  # the same page: seen already
    assert "already seen 1" in again.stdout, again.stdout


def test_new_engine_refuses_a_bad_url_in_one_line(tmp_path) -> None:
    run = cli("new-engine", "foo", "--from", "http://exa mple/x")
    assert (run.returncode, run.stderr) == (
        2, "error: --from URL 'http://exa mple/x' is not a valid URL (spaces or bad "
        "characters)\n")


def test_an_empty_seed_is_a_seed_url_error(r, redis_session) -> None:
    _crawl(r)
    run = cli("seed", "", "--redis-url", redis_session.url, "--crawl", CRAWL)
    assert (run.returncode, run.stderr) == (
        2, "error: seed URL '' must start with http:// or https://\n")
