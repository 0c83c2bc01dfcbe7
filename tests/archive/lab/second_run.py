"""What an incremental second crawl stores in its web archive, against the first crawl, after a
lab phpBB changed by one new reply.

    .venv/bin/python tests/archive/lab/second_run.py --base http://127.0.0.1:18091/ \
        --state /tmp/acceptance/phpbb-big --out /tmp/lab-archive/big25

1. crawl 1: ``scrapy crawl forum`` with the archive on (``CRAWLER_WARC_DIR``), a fresh crawl id
   and state dir (``CRAWLER_CRAWL_ID``, ``CRAWLER_STATE_DIR`` under --out);
2. ``reply.php``: one new reply, now, by a normal user, to the topic of a board crawl 1 read whose
   last post is the oldest (the last row of its board's last page), unless --topic;
3. crawl 2: the same command (same crawl id, state dir and WARC dir): the crawl finished, so this
   run is an incremental pass;
4. reads the WARC files with warcio (run 2's files are those crawl 1 did not leave), runs
   ``warcio check`` on all of them, and writes ``summary.json`` and ``summary.md`` in --out.

Payload bytes are the bytes of the HTTP body stored in ``response`` records (as sent; the lab's
Apache sends no gzip), counted independently of the crawl's own ``warc/payload_bytes`` stat. For
each page run 2 stored, the lines that differ from run 1's copy are counted three ways: as stored,
without the session id (phpBB adds ``sid=`` to the links of a request without its cookie) and
also without what phpBB changes on every visit (view counters, the cron ``<img>``, the clock).

The crawler is the one of ``--code`` (default HEAD), exported with ``git archive`` into --out and
put first on PYTHONPATH, so someone's uncommitted edits in the working tree are not measured
(``--code worktree`` measures them). ``--report`` re-reads an output folder without crawling;
``--no-reply`` makes no change between the crawls (the floor of a pass).
"""
from __future__ import annotations

import argparse
import difflib
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from warcio.archiveiterator import ArchiveIterator

LAB = Path(__file__).resolve().parent
PROJECT = LAB.parents[2]
VENV = PROJECT / ".venv" / "bin"
STATS = ("downloader/request_count", "downloader/response_count", "warc/responses", "warc/revisits",
         "warc/not_modified", "warc/payload_bytes", "warc/files", "warc/skipped/login",
         "warc/skipped/not_content", "revisit/listings", "revisit/not_modified", "revisit/changed",
         "revisit/rows/new", "revisit/rows/changed", "revisit/rows/unchanged", "revisit/items/new",
         "revisit/items/edited", "items/dropped/unchanged", "item_scraped_count", "finish_reason")


def crawl(args, out: Path, run: int, crawl_id: str, code: dict) -> dict:
    cmd = [str(VENV / "scrapy"), "crawl", "forum", "-a", f"start_urls={args.base}",
           "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True",
           "-s", f"CRAWLER_CRAWL_ID={crawl_id}", "-s", f"CRAWLER_STATE_DIR={out / 'state'}",
           "-s", f"CRAWLER_WARC_DIR={out / 'warc'}", "-s", f"CRAWLER_STATS_FILE={out / f'stats{run}.json'}",
           "-s", f"CONCURRENT_REQUESTS={args.concurrency}", "-s", f"CRAWLER_HOST_MAX_INFLIGHT={args.concurrency}",
           "-s", f"DOWNLOAD_DELAY={args.delay}", "-s", f"CLOSESPIDER_TIMEOUT={args.timeout}",
           "-s", f"CLOSESPIDER_PAGECOUNT={args.max_pages}", "-o", str(out / "items.jl")]
    print(f"run {run}: {' '.join(cmd)}", flush=True)
    started = time.monotonic()
    with open(out / f"run{run}.log", "w") as log:
        rc = subprocess.run(cmd, cwd=code["dir"], env=code["env"], stdout=log, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - started
    text = (out / f"run{run}.log").read_text(errors="replace")
    first = next((ln.split("] ", 1)[-1] for ln in text.splitlines()
                  if "Starting a new crawl" in ln or "Resuming crawl" in ln or "finished on" in ln), "")
    stats_file = out / f"stats{run}.json"
    stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    print(f"run {run}: exit {rc}, {wall:.0f} s; {first.strip()}", flush=True)
    return {"command": cmd, "exit": rc, "wall_s": round(wall, 1), "first_line": first.strip(),
            "stats": {k: stats.get(k) for k in STATS if k in stats}}


def kind(url: str) -> str:
    path = urlsplit(url).path.rsplit("/", 1)[-1]
    if path in ("", "index.php"):
        return "index"
    return {"viewforum.php": "board", "viewtopic.php": "thread"}.get(path, "other")


def read_warcs(files: list[Path]) -> list[dict]:
    records = []
    for f in files:
        with open(f, "rb") as fh:
            for rec in ArchiveIterator(fh):
                if rec.rec_type not in ("response", "revisit"):
                    continue
                url = rec.rec_headers.get_header("WARC-Target-URI")
                raw = rec.raw_stream.read()
                body = b""
                if rec.rec_type == "response":
                    body = raw
                    enc = (rec.http_headers.get_header("Content-Encoding") or "").lower() if rec.http_headers else ""
                    if enc == "gzip":
                        body = gzip.decompress(raw)
                records.append({"file": f.name, "type": rec.rec_type, "url": url, "kind": kind(url),
                                "status": rec.http_headers.get_statuscode() if rec.http_headers else None,
                                "profile": rec.rec_headers.get_header("WARC-Profile") or "",
                                "payload": len(raw) if rec.rec_type == "response" else 0, "body": body})
    return records


def run_figures(records: list[dict], files: list[Path]) -> dict:
    resp = [r for r in records if r["type"] == "response"]
    rev = [r for r in records if r["type"] == "revisit"]
    by_kind = defaultdict(lambda: {"responses": 0, "revisits": 0, "payload": 0})
    for r in records:
        k = by_kind[r["kind"]]
        k["responses" if r["type"] == "response" else "revisits"] += 1
        k["payload"] += r["payload"]
    return {"files": [f.name for f in files], "file_bytes": sum(f.stat().st_size for f in files),
            "fetches": len(records), "responses": len(resp), "revisits": len(rev),
            "revisits_identical": sum("identical-payload-digest" in r["profile"] for r in rev),
            "revisits_not_modified": sum("server-not-modified" in r["profile"] for r in rev),
            "payload": sum(r["payload"] for r in resp), "by_kind": dict(by_kind)}


SID = re.compile(r"(\?|&amp;|&)sid=[0-9a-f]{32}(&amp;|&)?")
SID_OTHER = re.compile(r"<input type=\"hidden\" name=\"sid\" value=\"[0-9a-f]{32}\" />|&#x3F;sid&#x3D;[0-9a-f]{32}")
TOKEN = re.compile(r"(name=\"(?:creation_time|form_token)\" value=\")[^\"]*")
NOISE = re.compile(r"(<dd class=\"views\">)\d+|(cron(?:/|&#x2F;))cron\.[\w.]+|(It is currently )[^<]+")  # view counters, phpBB's rotating cron <img>


def changed_lines(old: bytes, new: bytes, strip: bool = False, noise: bool = False) -> tuple[int, list[str]]:
    """Lines that differ; with *strip*, after removing what phpBB writes anew for each visitor
    without a cookie (the session id in links and forms, the login form's time and token), blank
    lines left out; with *noise*, also the view counters, the cron task's <img> and "It is
    currently <time>" (which change on every visit)."""
    a, b = old.decode("utf-8", "replace"), new.decode("utf-8", "replace")
    if strip:
        a, b = (TOKEN.sub(r"\1", SID_OTHER.sub("", SID.sub(lambda m: m.group(1) if m.group(2) else "", x)))
                .replace('?"', '"') for x in (a, b))
    if noise:
        a, b = (NOISE.sub(lambda m: m.group(1) or m.group(2) or m.group(3), x) for x in (a, b))
    a, b = a.splitlines(), b.splitlines()
    if strip:  # lines that only held a session id are blank now
        a, b = [ln for ln in a if ln.strip()], [ln for ln in b if ln.strip()]
    diff = [ln for ln in difflib.unified_diff(a, b, lineterm="", n=0)
            if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    return len(diff), [d.strip()[:160] for d in diff[:6]]


def db(args, sql: str) -> list[list[str]]:
    out = subprocess.run(["mariadb", "-S", f"{args.state}/mysqlrun/mysqld.sock", "-u", "root", "-N", "-B",
                          "--default-character-set=utf8mb4", "phpbb", "-e", sql],
                         check=True, capture_output=True, text=True).stdout
    return [ln.split("\t") for ln in out.splitlines()]


def choose_topic(args, run1: list[dict]) -> dict:
    """The topic whose last post is the oldest among the boards crawl 1 read (the last row of its
    board's last page), or --topic; where it sits on its board before the reply."""
    forums = sorted({int(f) for r in run1 if r["kind"] == "board"
                     for f in parse_qs(urlsplit(r["url"]).query).get("f", [])})
    if args.topic:
        tid = args.topic
    else:
        tid = int(db(args, f"SELECT topic_id FROM phpbb_topics WHERE topic_visibility = 1 AND forum_id IN "
                           f"({','.join(map(str, forums))}) ORDER BY topic_last_post_time, topic_id LIMIT 1")[0][0])
    fid, last, posts, title = db(args, f"SELECT forum_id, topic_last_post_time, topic_posts_approved, topic_title "
                                       f"FROM phpbb_topics WHERE topic_id = {tid}")[0]
    ahead = int(db(args, f"SELECT COUNT(*) FROM phpbb_topics WHERE forum_id = {fid} AND topic_visibility = 1 "
                         f"AND topic_type = 0 AND topic_last_post_time > {last}")[0][0])
    in_board = int(db(args, f"SELECT COUNT(*) FROM phpbb_topics WHERE forum_id = {fid} AND topic_visibility = 1")[0][0])
    tpp = int(db(args, "SELECT config_value FROM phpbb_config WHERE config_name = 'topics_per_page'")[0][0])
    ppp = int(db(args, "SELECT config_value FROM phpbb_config WHERE config_name = 'posts_per_page'")[0][0])
    return {"topic_id": tid, "title": title, "forum_id": int(fid), "posts_before": int(posts),
            "row_before": ahead + 1, "board_page_before": ahead // tpp + 1,
            "board_pages": (in_board + tpp - 1) // tpp, "topics_in_board": in_board,
            "topics_per_page": tpp, "posts_per_page": ppp,
            "reply_opens_new_page": int(posts) % ppp == 0}


def code_under_test(args, out: Path) -> dict:
    """The crawler the crawls run: by default a copy of a commit (HEAD) exported with git archive
    and put first on PYTHONPATH (the venv's editable install would otherwise import the working
    tree, which may hold someone's uncommitted edits); --code worktree runs the working tree."""
    env = dict(os.environ)
    if args.code == "worktree":
        where, commit = PROJECT, git("rev-parse", "HEAD")
        dirty = git("status", "--short", "--", "crawler")
    else:
        commit, where, dirty = git("rev-parse", args.code), out / "code", ""
        where.mkdir()
        archive = subprocess.run(["git", "archive", commit], cwd=PROJECT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
        env["PYTHONPATH"] = str(where) + os.pathsep + env.get("PYTHONPATH", "")
    module = subprocess.run([str(VENV / "python"), "-c", "import crawler; print(crawler.__file__)"], cwd=where,
                            env=env, check=True, capture_output=True, text=True).stdout.strip()
    print(f"crawler code: {args.code} = {commit[:10]}, imported from {module}"
          + (f"; uncommitted changes under crawler/: {dirty.split()}" if dirty else ""), flush=True)
    return {"dir": where, "env": env, "commit": commit, "module": module, "uncommitted": dirty.splitlines()}


def git(*argv: str) -> str:
    return subprocess.run(["git", *argv], cwd=PROJECT, check=True, capture_output=True, text=True).stdout.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", help="the forum's base URL, e.g. http://127.0.0.1:18091/")
    ap.add_argument("--state", help="the instance's state dir, e.g. /tmp/acceptance/phpbb-big")
    ap.add_argument("--out", required=True, type=Path, help="output folder (emptied first)")
    ap.add_argument("--report", action="store_true", help="no crawl: read --out's WARC files and summary.json "
                    "again and rewrite its summary.json and summary.md")
    ap.add_argument("--topic", type=int, help="topic to reply to (default: the oldest by last post)")
    ap.add_argument("--user", default="bob")
    ap.add_argument("--no-reply", action="store_true", help="no change between the crawls (the floor)")
    ap.add_argument("--code", default="HEAD", help="commit whose crawler runs (exported with git archive), "
                    "or 'worktree' for the working tree as it is (default: HEAD)")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--timeout", type=int, default=1800, help="CLOSESPIDER_TIMEOUT of each crawl (safety)")
    ap.add_argument("--max-pages", type=int, default=20000, help="CLOSESPIDER_PAGECOUNT of each crawl (safety)")
    args = ap.parse_args()
    out: Path = args.out.resolve()
    if args.report:
        summary = json.loads((out / "summary.json").read_text())
        names = summary["run1"].get("warc_files") or summary["figures"]["run1"]["files"]
        return analyse(out, summary, [out / "warc" / n for n in names])
    if not (args.base and args.state):
        ap.error("--base and --state are needed to crawl")
    if out.exists():
        shutil.rmtree(out)
    (out / "warc").mkdir(parents=True)
    code = code_under_test(args, out)
    crawl_id = f"lab-{out.name}-{time.strftime('%Y%m%d%H%M%S')}"
    summary = {"base": args.base, "commit": code["commit"], "code": args.code, "crawler_module": code["module"],
               "uncommitted": code["uncommitted"], "crawl_id": crawl_id,
               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

    summary["run1"] = crawl(args, out, 1, crawl_id, code)
    files1 = sorted((out / "warc").glob("*.warc.gz*"))
    summary["run1"]["warc_files"] = [f.name for f in files1]
    if args.no_reply:
        summary["topic"] = summary["reply"] = None
    else:
        summary["topic"] = choose_topic(args, read_warcs(files1))
        reply = subprocess.run(["bash", str(LAB / "php.sh"), args.state, str(LAB / "reply.php"), f"{args.state}/www",
                                str(summary["topic"]["topic_id"]), args.user], check=True, capture_output=True, text=True)
        summary["reply"] = json.loads(reply.stdout.strip().splitlines()[-1])
        print(f"reply: {summary['reply']} ({summary['topic']})", flush=True)
    time.sleep(1)
    summary["run2"] = crawl(args, out, 2, crawl_id, code)
    return analyse(out, summary, files1)


def analyse(out: Path, summary: dict, files1: list[Path]) -> int:
    """Read both runs' WARC files (run 2's: those run 1 did not leave), check them, and add the
    figures to *summary*; writes summary.json and summary.md."""
    recs1 = read_warcs(files1)
    files2 = sorted(f for f in (out / "warc").glob("*.warc.gz*") if f not in files1)
    recs2 = read_warcs(files2)
    check = subprocess.run([str(VENV / "warcio"), "check", "-v", *map(str, files1 + files2)],
                           capture_output=True, text=True)
    summary["warcio_check"] = {"exit": check.returncode,
                               "failed": [ln for ln in check.stdout.splitlines() if "fail" in ln.lower()][:20]}
    f1, f2 = run_figures(recs1, files1), run_figures(recs2, files2)
    summary["figures"] = {"run1": f1, "run2": f2,
                          "ratio_payload": round(f2["payload"] / f1["payload"], 4) if f1["payload"] else None}
    last1 = {r["url"]: r["body"] for r in recs1 if r["type"] == "response"}
    stored = []
    for r in recs2:
        if r["type"] != "response":
            continue
        n, _ = changed_lines(last1[r["url"]], r["body"]) if r["url"] in last1 else (None, [])
        m, sample = changed_lines(last1[r["url"]], r["body"], True) if r["url"] in last1 else (None, [])
        c, _ = changed_lines(last1[r["url"]], r["body"], True, True) if r["url"] in last1 else (None, [])
        stored.append({"url": r["url"], "kind": r["kind"], "status": r["status"], "payload": r["payload"],
                       "share_of_run1": round(r["payload"] / f1["payload"], 4) if f1["payload"] else None,
                       "changed_lines_vs_run1": n, "changed_lines_sid_ignored": m,
                       "changed_lines_noise_ignored": c,
                       "diff_sample": sample})
    summary["run2_responses"] = stored
    summary["run2_revisits"] = [{"url": r["url"], "kind": r["kind"], "profile": r["profile"].rsplit("/", 1)[-1]}
                                for r in recs2 if r["type"] == "revisit"]
    (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))
    (out / "summary.md").write_text(report(summary))
    print(report(summary))
    return 0 if check.returncode == 0 and summary["run1"]["exit"] == 0 and summary["run2"]["exit"] == 0 else 1


def report(s: dict) -> str:
    f1, f2 = s["figures"]["run1"], s["figures"]["run2"]
    code = "the working tree" + (f" with uncommitted changes in {len(s['uncommitted'])} files" if s["uncommitted"] else "") \
        if s["code"] == "worktree" else "exported with git archive"
    t, rp = s["topic"], s["reply"]
    change = "No change between the crawls (--no-reply)." if not rp else (
        f"Reply: topic {t['topic_id']} ({t['title']}), board f={t['forum_id']}, "
        f"row {t['row_before']} of {t['topics_in_board']} = board page {t['board_page_before']} of {t['board_pages']} "
        f"({t['topics_per_page']} topics/page); {t['posts_before']} posts before"
        f"{', the reply opens a new page' if t['reply_opens_new_page'] else ''}; post {rp['post_id']} by "
        f"{rp['user']} at {rp['time']}")
    lines = [f"## {s['base']} (crawler at {s['commit'][:8]}, {code}; crawl id {s['crawl_id']})", "", change, "",
             "| run | exit | wall s | fetches (WARC) | response records | revisit records (identical / 304) "
             "| payload bytes (warcio) | warc/payload_bytes (stat) | warc/responses / revisits (stat) | files, bytes on disk |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n, f in ((1, f1), (2, f2)):
        st = s[f"run{n}"]["stats"]
        lines.append(f"| {n} | {s[f'run{n}']['exit']} | {s[f'run{n}']['wall_s']} | {f['fetches']} | {f['responses']} | "
                     f"{f['revisits']} ({f['revisits_identical']} / {f['revisits_not_modified']}) | {f['payload']:,} | "
                     f"{st.get('warc/payload_bytes', '-')} | {st.get('warc/responses', '-')} / {st.get('warc/revisits', '-')} | "
                     f"{len(f['files'])}, {f['file_bytes']:,} |")
    noise = [r for r in s["run2_responses"] if r.get("changed_lines_noise_ignored") == 0]
    real = [r for r in s["run2_responses"] if r not in noise]
    lines += ["", f"**run 2 / run 1 payload: {s['figures']['ratio_payload']:.2%}**; `warcio check`: "
              f"exit {s['warcio_check']['exit']}. Of run 2's responses, {len(real)} pages "
              f"({sum(r['payload'] for r in real):,} bytes, {sum(r['payload'] for r in real) / f1['payload']:.2%} of run 1) "
              f"changed in content or are new, and {len(noise)} "
              f"({sum(r['payload'] for r in noise):,} bytes, {sum(r['payload'] for r in noise) / f1['payload']:.2%}) "
              "differ from run 1 only by the session id, view counters, the cron <img> and the clock.", "", "Run 2 by page kind (run 1's figure in brackets):", "",
              "| kind | responses | revisits | payload bytes | of run 1's payload |", "|---|---|---|---|---|"]
    for k in ("index", "board", "thread", "other"):
        a = f2["by_kind"].get(k, {"responses": 0, "revisits": 0, "payload": 0})
        b = f1["by_kind"].get(k, {"responses": 0, "revisits": 0, "payload": 0})
        lines.append(f"| {k} | {a['responses']} ({b['responses']}) | {a['revisits']} ({b['revisits']}) | "
                     f"{a['payload']:,} ({b['payload']:,}) | {a['payload'] / f1['payload']:.2%} |")
    lines += ["", "Run 2's response records:", "", "| kind | URL | status | payload bytes | of run 1 | lines changed vs run 1: all / session id ignored "
              "/ also views, cron and clock ignored |", "|---|---|---|---|---|---|"]
    for r in sorted(s["run2_responses"], key=lambda r: ("index board thread other".split().index(r["kind"]), r["url"])):
        changed = (f"{r['changed_lines_vs_run1']} / {r['changed_lines_sid_ignored']} / {r['changed_lines_noise_ignored']}"
                   if r["changed_lines_vs_run1"] is not None else "new URL")
        lines.append(f"| {r['kind']} | {r['url']} | {r['status']} | {r['payload']:,} | {r['share_of_run1']:.2%} | {changed} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
