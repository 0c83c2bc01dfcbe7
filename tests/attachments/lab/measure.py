"""Issue 40's "done when" on the engine lab: crawl a lab forum twice with FILES_STORE and a
1 MiB cap, and check every attachment against the engine's own database and files.

    python -m tests.attachments.lab.measure phpbb mybb smf discuz [--robots-off] [--out DIR]

Needs the lab sites up (``/work/shared/engines``; state in ``/tmp/acceptance/<site>``). The
truth is read with ``mysql`` from the engine's database: per attachment its id, post, name,
size and the bytes of the file the engine keeps. Requests are counted in the site's own
Apache log (the crawler's user agent only): attachment requests per run, and the bytes the
server sent for the 3 MiB file. Prints one Markdown row per engine and run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

STATE = Path("/tmp/acceptance")
CAP = 1024 * 1024
UA = "forum-crawler/0.1 (+"
#: engine -> (start URL, SQL: id, post id, name, size, file under the docroot; attachment URL)
ENGINES = {
    "phpbb": ("http://127.0.0.1:18090/", "phpbb",
              "SELECT attach_id, post_msg_id, real_filename, filesize,"
              " CONCAT('files/', physical_filename) FROM phpbb_attachments",
              r"download/file\.php\?id=(\d+)"),
    "mybb": ("http://127.0.0.1:18087/", "mybb",
             "SELECT aid, pid, filename, filesize, CONCAT('uploads/', attachname)"
             " FROM mybb_attachments", r"attachment\.php\?aid=(\d+)"),
    "smf": ("http://127.0.0.1:18088/", "smf",
            "SELECT id_attach, id_msg, filename, size,"
            " CONCAT('attachments/', id_attach, '_', file_hash, '.dat')"
            " FROM smf_attachments WHERE attachment_type = 0",
            r"action=dlattach;attach=(\d+)"),
    "discuz": ("http://127.0.0.1:18089/", "discuz",
               "SELECT aid, pid, filename, filesize,"
               " CONCAT('data/attachment/forum/', attachment) FROM pre_forum_attachment_1",
               r"mod=attachment&aid=([^& ]+)|data/attachment/forum/(\S+)"),
}


def truth(engine: str) -> dict[str, dict]:
    _, database, sql, _ = ENGINES[engine]
    rows = subprocess.run(["mysql", "-S", str(STATE / engine / "mysqlrun" / "mysqld.sock"),
                           "-u", "root", "-N", "-B", database, "-e", sql],
                          capture_output=True, text=True, check=True).stdout
    found = {}
    for line in rows.splitlines():
        aid, post, name, size, path = line.split("\t")
        body = (STATE / engine / "www" / path).read_bytes()
        found[aid] = {"post": post, "name": name, "size": int(size),
                      "sha256": hashlib.sha256(body).hexdigest()}
    return found


def log_lines(engine: str) -> list[str]:
    return (STATE / engine / "apache_access.log").read_text(errors="replace").splitlines()


def crawl(engine: str, work: Path, name: str, extra: list[str]) -> tuple[int, list[dict]]:
    command = [sys.executable, "-m", "scrapy", "crawl", "forum", "-a",
               f"start_urls={ENGINES[engine][0]}", "-o", f"{work / name}.jl:jsonlines"]
    for key, value in {"FILES_STORE": work / "files", "CRAWLER_ATTACHMENT_MAXSIZE": CAP,
                       "CRAWLER_STATE_DIR": work / "state", "DOWNLOAD_DELAY": 0,
                       "CRAWLER_ALLOW_PRIVATE_ADDRESSES": True, "CRAWLER_IDLE_CLOSE": 0.3,
                       "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "INFO"}.items():
        command += ["-s", f"{key}={value}"]
    done = subprocess.run(command + extra, capture_output=True, text=True, check=False)
    (work / f"{name}.log").write_text(done.stderr)
    items = [json.loads(line) for line in (work / f"{name}.jl").read_text().splitlines() if line]
    return done.returncode, items


def attachment_hits(engine: str, lines: list[str]) -> list[tuple[str, str, int]]:
    """(method, target, bytes sent) of the crawler's attachment requests in *lines*."""
    pattern = re.compile(ENGINES[engine][3])
    hits = []
    for line in lines:
        request = re.search(r'"(GET|HEAD) (\S+) HTTP/[\d.]+" (\d+) (\d+|-)', line)
        if UA in line and request and pattern.search(request.group(2)):
            sent = request.group(4)
            hits.append((request.group(1), request.group(2), int(sent) if sent != "-" else 0))
    return hits


def measure(engine: str, extra: list[str], work: Path) -> None:
    expected = truth(engine)
    before = len(log_lines(engine))
    rc1, items = crawl(engine, work, "first", extra)
    middle = len(log_lines(engine))
    rc2, _ = crawl(engine, work, "again", extra)
    lines = log_lines(engine)
    first_hits = attachment_hits(engine, lines[before:middle])
    second_hits = attachment_hits(engine, lines[middle:])
    found = {a["id"]: {**a, "post": p["post_id"]} for p in items if p["item_type"] == "post"
             for a in p["attachments"]}
    stored = [p for p in (work / "files").rglob("*") if p.is_file() and ".partial" not in p.parts]
    right, wrong = [], []
    for aid, true in expected.items():
        got = found.get(aid)
        same_bytes = [other for other, a in found.items()
                      if a["sha256"] == true["sha256"] and a["post"] == true["post"]]
        if got is None and same_bytes:  # Discuz! shows robots an image without its id
            right.append(f"{aid}: stored under the id {same_bytes[0]!r}")
        elif got is None:
            wrong.append(f"{aid}: not found")
        elif got["status"] == "stored":
            same = (got["sha256"] == true["sha256"] and got["post"] == true["post"]
                    and got["name"] == true["name"] and got["size"] == true["size"]
                    and (work / "files" / got["path"]).is_file())
            (right if same else wrong).append(f"{aid}: {got['status']}"
                                              + ("" if same else f" {got} != {true}"))
        else:
            right.append(f"{aid}: {got['status']} ({true['size']} B)")
    distinct = {got["sha256"] for got in found.values() if got["status"] == "stored"}
    html = [p.name for p in stored if b"<html" in p.read_bytes()[:512].lower()]
    too_large = {aid for aid, got in found.items() if got["status"] == "too_large"}
    big = [sent for method, target, sent in first_hits
           if method == "GET" and target_id(engine, target) in too_large]
    print(f"| {engine} | {' '.join(extra) or '-'} | {rc1}, {rc2} | {'; '.join(right)} | "
          f"{len(stored)} ({len(distinct)} distinct contents stored) | {html or 'none'} | "
          f"{_count(first_hits)} / {_count(second_hits)} | "
          f"{big or 'no GET'} | {'; '.join(wrong) or '-'} |")


def _count(hits: list[tuple[str, str, int]]) -> str:
    methods = [method for method, _, _ in hits]
    return f"{len(hits)} ({methods.count('GET')} GET, {methods.count('HEAD')} HEAD)"


def target_id(engine: str, target: str) -> str | None:
    found = re.search(ENGINES[engine][3], target)
    if not found:
        return None
    raw = found.group(1) or ""
    if engine == "discuz" and raw:
        from crawler.attachments.links import discuz_id  # noqa: PLC0415 - a lab tool
        return discuz_id(raw)
    return raw


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("engines", nargs="+", choices=sorted(ENGINES))
    parser.add_argument("--robots-off", action="store_true")
    args = parser.parse_args()
    extra = ["-s", "ROBOTSTXT_OBEY=False"] if args.robots_off else []
    print("| engine | settings | exit (run 1, 2) | outcome per attachment id | stored files | "
          "HTML stored | attachment requests (run 1 / run 2) | bytes sent for too_large | "
          "wrong |")
    print("|---|---|---|---|---|---|---|---|---|")
    for engine in args.engines:
        with tempfile.TemporaryDirectory() as tmp:
            measure(engine, extra, Path(tmp))


if __name__ == "__main__":
    main()
