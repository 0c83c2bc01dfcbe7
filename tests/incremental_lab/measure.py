"""Does an incremental pass find a new reply and a new thread on a real engine? (not a test of the suite)

    .venv/bin/python tests/incremental_lab/measure.py --site mybb --code 9994f4c \
        --reply-board General --new-board "Off Topic" --out /tmp/incremental-lab/mybb-9994f4c

1. crawl 1: ``scrapy crawl forum`` as a guest on the engine lab's install, a fresh crawl id and
   state dir under --out, the archive on (``CRAWLER_WARC_DIR``: the pages as fetched, to read the
   index rows again), items to ``items1.jl``, stats to ``stats1.json``;
2. ``change_<site>``: through the engine's own code, one reply by bob to the thread of
   --reply-board whose last post is the oldest (the last row of the board's last page: the reply
   moves it to the top of page 1) and one new thread by bob in --new-board;
3. crawl 2: the same command (same crawl id, state and WARC dir; items to ``items2.jl``): the
   crawl finished, so it is an incremental pass;
4. report (``summary.json``, ``summary.md``): requests of both runs, run 2's URLs by kind, the
   items expected (the reply's post, the new thread and its post) against those run 2 wrote, and
   each board's row on the index (``link_rows``, through the profile's own ``read``) in run 1
   and run 2.

The crawler is that of --code (a commit) exported with ``git archive`` into --out and put first on
PYTHONPATH, so nobody's uncommitted edits are measured.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
import zlib
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from warcio.archiveiterator import ArchiveIterator

LAB = Path(__file__).resolve().parent
PROJECT = LAB.parents[1]
VENV = PROJECT / ".venv" / "bin"
ENGINES = Path("/work/shared/engines")
SITES = {  # base URL, state dir, profile name
    "mybb": ("http://127.0.0.1:18087/", "/tmp/acceptance/mybb", "mybb"),
    "smf": ("http://127.0.0.1:18088/", "/tmp/acceptance/smf", "smf"),
    "discuz": ("http://127.0.0.1:18089/", "/tmp/acceptance/discuz", "discuz"),
    "nodebb": ("http://127.0.0.1:18083/", "/tmp/acceptance/nodebb", "nodebb"),
    "phpbb": ("http://127.0.0.1:18090/", "/tmp/acceptance/phpbb", "phpbb"),
}
STATS = ("downloader/request_count", "downloader/response_count", "downloader/response_status_count/200",
         "downloader/response_status_count/304", "revisit/listings", "revisit/not_modified", "revisit/unchanged",
         "revisit/changed", "revisit/rows/new", "revisit/rows/changed", "revisit/rows/unchanged",
         "revisit/items/new", "revisit/items/edited", "items/dropped/unchanged", "item_scraped_count",
         "finish_reason")


def kind(site: str, url: str) -> str:
    """index / board / thread / robots / other, from the engine's URL scheme."""
    parts = urlsplit(url)
    q = parse_qs(parts.query.replace(";", "&"))
    name = parts.path.rsplit("/", 1)[-1]
    if name == "robots.txt":
        return "robots"
    if site == "mybb":
        return {"": "index", "index.php": "index", "forumdisplay.php": "board", "showthread.php": "thread"}.get(name, "other")
    if site == "phpbb":
        return {"": "index", "index.php": "index", "viewforum.php": "board", "viewtopic.php": "thread"}.get(name, "other")
    if site == "smf":
        if name in ("", "index.php"):
            return "board" if "board" in q else "thread" if "topic" in q else "other" if q else "index"
        return "other"
    if site == "discuz":
        if name in ("", "forum.php", "index.php"):
            mod = q.get("mod", [""])[0]
            return {"": "index", "forumdisplay": "board", "viewthread": "thread"}.get(mod, "other")
        return "other"
    if site == "nodebb":
        path = parts.path[4:] if parts.path.startswith("/api/") else parts.path  # the profile reads the JSON API
        if path in ("/", "/categories"):
            return "index"
        return "board" if path.startswith("/category/") else "thread" if path.startswith("/topic/") else "other"
    return "other"


def crawl(args, out: Path, run: int, crawl_id: str, code: dict) -> dict:
    cmd = [str(VENV / "scrapy"), "crawl", "forum", "-a", f"start_urls={args.base}",
           "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True",
           "-s", f"CRAWLER_CRAWL_ID={crawl_id}", "-s", f"CRAWLER_STATE_DIR={out / 'state'}",
           "-s", f"CRAWLER_WARC_DIR={out / 'warc'}", "-s", f"CRAWLER_STATS_FILE={out / f'stats{run}.json'}",
           "-s", f"CONCURRENT_REQUESTS={args.concurrency}", "-s", f"CRAWLER_HOST_MAX_INFLIGHT={args.concurrency}",
           "-s", f"DOWNLOAD_DELAY={args.delay}", "-s", "CLOSESPIDER_TIMEOUT=900",
           "-s", "CLOSESPIDER_PAGECOUNT=5000", *[a for kv in args.set for a in ("-s", kv)],
           "-o", str(out / f"items{run}.jl")]
    print(f"run {run}: {' '.join(cmd)}", flush=True)
    started = time.monotonic()
    with open(out / f"run{run}.log", "w") as log:
        rc = subprocess.run(cmd, cwd=code["dir"], env=code["env"], stdout=log, stderr=subprocess.STDOUT,
                            check=False).returncode
    wall = time.monotonic() - started
    text = (out / f"run{run}.log").read_text(errors="replace")
    first = next((ln.split("] ", 1)[-1] for ln in text.splitlines()
                  if "Starting a new crawl" in ln or "Resuming crawl" in ln or "finished on" in ln), "")
    stats_file = out / f"stats{run}.json"
    stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    print(f"run {run}: exit {rc}, {wall:.0f} s, {stats.get('downloader/request_count')} requests; {first.strip()}",
          flush=True)
    return {"command": cmd, "exit": rc, "wall_s": round(wall, 1), "first_line": first.strip(),
            "stats": {k: stats.get(k) for k in STATS if k in stats}}


def change(args, tag: str) -> dict:
    """The reply and the new thread, through the engine's own code; its JSON line."""
    if args.site == "nodebb":
        cmd = ["node", str(LAB / "change_nodebb.js"), f"{args.state}/app", args.reply_board, args.new_board, tag]
        cwd = f"{args.state}/app"
    else:
        sock = f"{args.state}/mysqlrun/mysqld.sock"
        root = f"{args.state}/www"
        cmd = ["runuser", "-u", "www-data", "--", "php", "-d", f"mysqli.default_socket={sock}",
               "-d", f"pdo_mysql.default_socket={sock}", "-d", "date.timezone=UTC", "-d", "memory_limit=512M",
               "-d", "display_errors=stderr", "-d", "log_errors=0",
               str(LAB / f"change_{args.site}.php"), root, args.reply_board, args.new_board, tag]
        cwd = "/"
    done = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True)
    if done.stderr.strip():
        print(done.stderr.strip()[-2000:], flush=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def code_under_test(args, out: Path) -> dict:
    env = dict(os.environ)
    commit, where = git("rev-parse", args.code), out / "code"
    where.mkdir()
    archive = subprocess.run(["git", "archive", commit], cwd=PROJECT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    env["PYTHONPATH"] = str(where) + os.pathsep + env.get("PYTHONPATH", "")
    module = subprocess.run([str(VENV / "python"), "-c", "import crawler; print(crawler.__file__)"], cwd=where,
                            env=env, check=True, capture_output=True, text=True).stdout.strip()
    print(f"crawler code: {args.code} = {commit[:10]}, imported from {module}", flush=True)
    return {"dir": where, "env": env, "commit": commit, "module": module}


def git(*argv: str) -> str:
    return subprocess.run(["git", *argv], cwd=PROJECT, check=True, capture_output=True, text=True).stdout.strip()


def decoded(rec) -> bytes:
    """The body as the page's HTML (warcio's content_stream fails on brotli with the venv's brotli)."""
    raw = rec.raw_stream.read()
    enc = (rec.http_headers.get_header("Content-Encoding") or "").lower() if rec.http_headers else ""
    if enc == "gzip":
        return gzip.decompress(raw)
    if enc == "deflate":
        return zlib.decompress(raw)
    if enc == "br":
        import brotli
        return brotli.decompress(raw)
    return raw


def read_warcs(site: str, files: list[Path]) -> list[dict]:
    records = []
    for f in files:
        with open(f, "rb") as fh:
            for rec in ArchiveIterator(fh):
                if rec.rec_type not in ("response", "revisit"):
                    continue
                url = rec.rec_headers.get_header("WARC-Target-URI")
                body = decoded(rec) if rec.rec_type == "response" else b""
                records.append({"type": rec.rec_type, "url": url, "kind": kind(site, url),
                                "status": rec.http_headers.get_statuscode() if rec.http_headers else None,
                                "profile": (rec.rec_headers.get_header("WARC-Profile") or "").rsplit("/", 1)[-1],
                                "body": body})
    return records


def items(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


def item_key(it: dict) -> tuple:
    return (it.get("item_type"), str(it.get("thread_id")), str(it.get("post_id")) if it.get("post_id") else None)


def rows_code_dir(args, out: Path) -> dict:
    """The code that reads the rows: --rows-code (a commit with link_rows, 9994f4c or later), so
    that a run of an older commit (ff6ff72) is read the same way."""
    where = out / "rows-code"
    if not where.exists():
        where.mkdir()
        archive = subprocess.run(["git", "archive", git("rev-parse", args.rows_code)], cwd=PROJECT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return {"dir": where}


def index_rows(code: dict, profile_name: str, records: list[dict]) -> dict:
    """For each index page with a body: board URL -> its row text, as the profile's read() gives it
    (``Follow.said``, from ``link_rows``)."""
    sys.path.insert(0, str(code["dir"]))
    from scrapy.http import HtmlResponse

    from crawler.profiles import REGISTRY, PageCursor, PageKind
    profile = REGISTRY.get(profile_name)()
    rows = {}
    for r in records:
        if r["kind"] != "index" or r["type"] != "response" or not r["body"]:
            continue
        response = HtmlResponse(url=r["url"], body=r["body"], encoding="utf-8")
        try:
            result = profile.read(response, PageKind.INDEX, PageCursor(url=r["url"]), None)
        except Exception as exc:  # noqa: BLE001 - a report, not a test
            rows[r["url"]] = {"error": repr(exc)}
            continue
        rows[r["url"]] = {f.cursor.url: f.said for f in result.follow if f.kind.name == "BOARD"}
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", required=True, choices=sorted(SITES))
    ap.add_argument("--code", default="HEAD", help="commit whose crawler runs (exported with git archive)")
    ap.add_argument("--out", required=True, type=Path, help="output folder (emptied first)")
    ap.add_argument("--reply-board", default="General", help="substring of the name of the board of the reply")
    ap.add_argument("--new-board", default="Off Topic", help="substring of the name of the board of the new thread")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--delay", type=float, default=0.1)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="another Scrapy setting for both crawls (e.g. USER_AGENT=...)")
    ap.add_argument("--rows-code", default="efd7da4", help="commit whose link_rows reads the index rows")
    ap.add_argument("--third", type=float, default=None, metavar="SECONDS",
                    help="then a third pass, SECONDS after the second, with no change (what a quiet pass costs)")
    ap.add_argument("--report", action="store_true", help="no crawl: re-read --out and rewrite its summary")
    args = ap.parse_args()
    args.base, args.state, args.profile = SITES[args.site]
    out: Path = args.out.resolve()
    if args.report:
        summary = json.loads((out / "summary.json").read_text())
        code = {"dir": out / "code"}
        return analyse(args, out, summary, code)
    if out.exists():
        shutil.rmtree(out)
    (out / "warc").mkdir(parents=True)
    code = code_under_test(args, out)
    crawl_id = f"inc-{args.site}-{time.strftime('%Y%m%d%H%M%S')}"
    summary = {"site": args.site, "base": args.base, "commit": code["commit"], "code": args.code,
               "crawl_id": crawl_id, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    summary["run1"] = crawl(args, out, 1, crawl_id, code)
    summary["run1"]["warc_files"] = sorted(f.name for f in (out / "warc").glob("*.warc.gz*"))
    summary["change"] = change(args, f"{args.site}-{code['commit'][:7]}-{time.strftime('%H%M%S')}")
    print(f"change: {json.dumps(summary['change'], ensure_ascii=False)}", flush=True)
    time.sleep(1.5)
    summary["run2"] = crawl(args, out, 2, crawl_id, code)
    if args.third is not None:
        summary["run2"]["warc_files"] = sorted(f.name for f in (out / "warc").glob("*.warc.gz*"))
        time.sleep(args.third)
        summary["run3"] = crawl(args, out, 3, crawl_id, code)
    (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))
    return analyse(args, out, summary, code)


def analyse(args, out: Path, summary: dict, code: dict) -> int:
    files1 = [out / "warc" / n for n in summary["run1"]["warc_files"]]
    files2 = sorted(f for f in (out / "warc").glob("*.warc.gz*") if f.name not in summary["run1"]["warc_files"]
                    and f.name in summary["run2"].get("warc_files", [f.name]))
    recs1, recs2 = read_warcs(args.site, files1), read_warcs(args.site, files2)
    items1, items2 = items(out / "items1.jl"), items(out / "items2.jl")
    ch = summary["change"]
    expected = {("post", ch["reply"]["thread_id"], ch["reply"]["post_id"]): "the reply's post",
                ("thread", ch["new_thread"]["thread_id"], None): "the new thread"}
    for pid in ch["new_thread"]["post_ids"]:
        expected[("post", ch["new_thread"]["thread_id"], pid)] = "the new thread's post"
    got = {item_key(it): it for it in items2}
    summary["items"] = {
        "run1": dict(Counter(it.get("item_type") for it in items1)),
        "run2": dict(Counter(it.get("item_type") for it in items2)),
        "expected": [{"key": list(k), "what": w, "found": k in got} for k, w in expected.items()],
        "unexpected": [{"key": list(k), "revision": it.get("revision"), "url": it.get("url")}
                       for k, it in got.items() if k not in expected],
    }
    by_kind = defaultdict(list)
    for r in recs2:
        by_kind[r["kind"]].append(f"{r['url']} ({r['status']}{', ' + r['profile'] if r['type'] == 'revisit' else ''})")
    summary["run2_urls"] = dict(by_kind)
    summary["run1_kinds"] = dict(Counter(r["kind"] for r in recs1))
    summary["run2_kinds"] = dict(Counter(r["kind"] for r in recs2))
    rows_code = rows_code_dir(args, out)
    rows1, rows2 = index_rows(rows_code, args.profile, recs1), index_rows(rows_code, args.profile, recs2)
    summary["index_rows"] = {"run1": rows1, "run2": rows2}
    if "run3" in summary:
        files3 = sorted(f for f in (out / "warc").glob("*.warc.gz*") if f.name not in summary["run2"]["warc_files"])
        recs3 = read_warcs(args.site, files3)
        summary["run3_urls"] = [f"{r['kind']}: {r['url']} ({r['status']})" for r in recs3]
        summary["items"]["run3"] = [list(item_key(it)) for it in items(out / "items3.jl")]
        summary["index_rows"]["run3"] = index_rows(rows_code, args.profile, recs3)
    (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))
    (out / "summary.md").write_text(report(summary))
    print(report(summary))
    return 0


def report(s: dict) -> str:
    ch, it = s["change"], s["items"]
    r1, r2 = s["run1"]["stats"], s["run2"]["stats"]
    found = sum(e["found"] for e in it["expected"])
    lines = [f"## {s['site']} {s['base']} (crawler {s['commit'][:8]}; crawl id {s['crawl_id']})", "",
             (f"Change ({ch['time']}, {ch['user']}): reply post {ch['reply']['post_id']} to thread "
              f"{ch['reply']['thread_id']} ({ch['reply']['title']}), board {ch['reply']['board']} "
              f"(row {ch['reply']['row_before']} of {ch['reply']['threads_in_board']} = page "
              f"{ch['reply']['board_page_before']} before); new thread {ch['new_thread']['thread_id']} in "
              f"{ch['new_thread']['board']} (posts {', '.join(ch['new_thread']['post_ids'])})"), "",
             "| run | exit | wall s | requests | responses | 200 / 304 | items | revisit rows new/changed/unchanged | items dropped unchanged |",
             "|---|---|---|---|---|---|---|---|---|"]
    for n, st in ((1, r1), (2, r2)):
        lines.append(f"| {n} | {s[f'run{n}']['exit']} | {s[f'run{n}']['wall_s']} | {st.get('downloader/request_count')} | "
                     f"{st.get('downloader/response_count')} | {st.get('downloader/response_status_count/200', 0)} / "
                     f"{st.get('downloader/response_status_count/304', 0)} | {st.get('item_scraped_count', 0)} "
                     f"{it[f'run{n}']} | {st.get('revisit/rows/new', 0)}/{st.get('revisit/rows/changed', 0)}/"
                     f"{st.get('revisit/rows/unchanged', 0)} | {st.get('items/dropped/unchanged', 0)} |")
    lines += ["", f"**Expected new items found: {found} / {len(it['expected'])}**", ""]
    lines += [f"- {e['what']} {tuple(e['key'])}: {'found' if e['found'] else '**MISSED**'}" for e in it["expected"]]
    lines += ["", f"Other items in run 2: {len(it['unexpected'])}"]
    lines += [f"- {u['key']} revision={u['revision']} {u['url']}" for u in it["unexpected"]]
    lines += ["", f"Fetches by kind (WARC records): run 1 {s['run1_kinds']}, run 2 {s['run2_kinds']}", "",
              "Run 2's URLs by kind:", ""]
    for k in ("robots", "index", "board", "thread", "other"):
        for u in s["run2_urls"].get(k, []):
            lines.append(f"- {k}: {u}")
    if "run3" in s:
        st = s["run3"]["stats"]
        lines += ["", (f"Run 3 (no change, {s['run3']['wall_s']} s): exit {s['run3']['exit']}, "
                       f"{st.get('downloader/request_count')} requests, items {s['items']['run3']}; URLs:"), ""]
        lines += [f"- {u}" for u in s["run3_urls"]]
    lines += ["", "Board rows on the index (link_rows through the profile's read), run 1 -> run 2:", ""]
    rows1, rows2 = s["index_rows"]["run1"], s["index_rows"]["run2"]
    for url in sorted(set(rows1) | set(rows2)):
        a, b = rows1.get(url, {}), rows2.get(url, {})
        lines.append(f"- index {url}:")
        for board in sorted(set(a) | set(b)):
            ra, rb = a.get(board), b.get(board)
            mark = "CHANGED" if ra != rb else "same"
            lines.append(f"  - {board} [{mark}]\n    - run 1: `{ra}`\n    - run 2: `{rb}`")
            if "run3" in s["index_rows"]:
                lines.append(f"    - run 3: `{s['index_rows']['run3'].get(url, {}).get(board)}`")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
