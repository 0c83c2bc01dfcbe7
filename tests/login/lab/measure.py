"""Measure issue 30's targets on the engine lab (../shared/engines): the lab's phpBB and MyBB,
each with board 3 made members-only (``*_members_only.php``), crawled by two nodes on one Redis.

    python -m tests.login.lab.measure credentials   # CRAWLER_LOGIN, 2 nodes
    python -m tests.login.lab.measure cookies       # a curl -c cookies.txt per site, 2 nodes
    python -m tests.login.lab.measure guest         # no credentials, 1 node
    python -m tests.login.lab.measure wrong         # a wrong password, 1 node
    python -m tests.login.lab.measure credentials --engines phpbb --warc /tmp/warcs
                                  # one engine (the lab runs one at a time); the web archive on

Prints one JSON object: per site the recall of members-only and public posts (by post id,
with the right author and thread), login or denial pages emitted as items, login POSTs (the
crawl's Redis counter and the engine's Apache access log), outcomes, exit statuses.
A development tool (the lab is not in CI), kept to repeat the measurement.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from tests.helpers.nodes import COMMON, Node
from tests.helpers.redis_server import RedisServer

LAB = Path(__file__).resolve().parents[4] / "shared" / "engines"
PASSWORD = "Acceptance-Pass-2024!"
WRONG = "not-the-password"
PRIVATE_BOARD = 3
ENGINES = {"phpbb": ("index.php", "ucp.php?mode=login"), "mybb": ("index.php", "member.php")}
LOGIN_MARKS = ("registered and logged in", "not logged in or do not have permission",
               'name="password"', "Login", "You are not authorised")


# Every approved post with its thread, board and author, read from the engine's database:
# the lab's truth.json is dumped for a guest, and phpBB's leaves a members-only board out once
# up.sh runs again after the board was closed; other sessions add posts to the lab too.
TRUTH_SQL = {
    "phpbb": "SELECT p.post_id, p.topic_id, t.forum_id, COALESCE(u.username, p.post_username)"
             " FROM phpbb_posts p JOIN phpbb_topics t ON t.topic_id = p.topic_id"
             " LEFT JOIN phpbb_users u ON u.user_id = p.poster_id"
             " WHERE p.post_visibility = 1 AND t.topic_visibility = 1"
             " ORDER BY p.topic_id, p.post_time, p.post_id",
    "mybb": "SELECT p.pid, p.tid, p.fid, p.username FROM mybb_posts p JOIN mybb_threads t"
            " ON t.tid = p.tid WHERE p.visible = 1 AND t.visible = 1"
            " ORDER BY p.tid, p.dateline, p.pid",
}
POSTS_PER_PAGE = 10  # both engines' default, kept by the lab


def truth(engine: str) -> dict:
    base = json.loads((LAB / engine / "truth.json").read_text())["base_url"]
    out = subprocess.run(["mysql", "-S", f"/tmp/acceptance/{engine}/mysqlrun/mysqld.sock", "-u",
                          "root", "-N", "-B", engine, "-e", TRUTH_SQL[engine]],
                         capture_output=True, text=True, check=True).stdout
    threads: dict[int, dict] = {}
    for line in out.splitlines():
        pid, tid, fid, author = line.split("\t")
        thread = threads.setdefault(int(tid), {"id": int(tid), "board_id": int(fid), "posts": []})
        thread["posts"].append({"id": int(pid), "author": author})
    return {"base_url": base, "threads": list(threads.values())}


def access_log(engine: str) -> Path:
    return Path(f"/tmp/acceptance/{engine}/apache_access.log")


def login_posts_in_log(engine: str, since: int) -> int:
    text = access_log(engine).read_bytes()[since:].decode("latin-1")
    path = ENGINES[engine][1]
    return sum(1 for line in text.splitlines() if f'"POST /{path}' in line)


def curl_cookies(engine: str, base: str, workdir: Path, agent: str) -> Path:
    """Log in with curl, as a browser would, and keep its cookies.txt (curl -c)."""
    jar = workdir / f"{engine}-cookies.txt"
    login = base + ENGINES[engine][1] + ("" if engine == "phpbb" else "?action=login")
    page = subprocess.run(["curl", "-s", "-A", agent, "-c", jar, "-b", jar, login],
                          capture_output=True, text=True, check=True).stdout
    from parsel import Selector

    form = Selector(page).xpath("//form[.//input[@name='password']]")[0]
    fields = {i.attrib["name"]: i.attrib.get("value", "") for i in form.css("input[type=hidden]")}
    user_field = "username"
    fields.update({user_field: "alice", "password": PASSWORD})
    if engine == "phpbb":
        fields["login"] = "Login"
        fields["autologin"] = "on"
        time.sleep(1.1)  # phpBB refuses a login form sent within a second of its creation
    action = base + form.attrib["action"].lstrip("./")
    args = ["curl", "-s", "-A", agent, "-c", jar, "-b", jar, "-o", "/dev/null", action]
    for name, value in fields.items():
        args += ["--data-urlencode", f"{name}={value}"]
    subprocess.run(args, check=True)
    return jar


def warc_report(warc_dir: Path, engine: str, site: dict) -> dict:
    """What the crawl's web archive holds of the login: login pages, denial pages, login POSTs
    (none may be there), and a response record for every page of every members-only thread."""
    from tests.archive.warcs import read_all

    records = [r for r in read_all(warc_dir.glob("*.warc.gz"))
               if r.uri.startswith(site["base"])]
    login_path = ENGINES[engine][1]

    def body(r) -> str:
        data = r.payload
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        return data.decode("utf-8", "replace")

    responses = [r for r in records if r.type == "response"]
    login_pages = [r.uri for r in responses if login_path in r.uri
                   or re.search(r'<input[^>]+name="password"', body(r))]
    denials = [r.uri for r in responses if any(m in body(r) for m in LOGIN_MARKS[:2])]
    posts = [r.uri for r in records if r.type == "request" and r.block.startswith(b"POST ")]

    def key(url: str) -> tuple:  # the crawler's canonical URLs sort the query's fields
        parts = urlsplit(url)
        return parts.path, tuple(sorted(parse_qsl(parts.query)))

    pages: dict[tuple, list[str]] = {}
    for r in responses:
        if r.status == 200:
            pages.setdefault(key(r.uri), []).append(body(r))
    thread_url = "viewtopic.php?t={}" if engine == "phpbb" else "showthread.php?tid={}"
    start = "&start={}" if engine == "phpbb" else "&page={}"
    wanted, missing = 0, []
    for th in site["truth"]["threads"]:
        if th["board_id"] != PRIVATE_BOARD:
            continue
        for n in range(0, len(th["posts"]), POSTS_PER_PAGE):
            wanted += 1
            first = th["posts"][n]["id"]
            mark = f'id="p{first}"' if engine == "phpbb" else f'id="post_{first}"'
            tail = (start.format(n if engine == "phpbb" else n // POSTS_PER_PAGE + 1)) if n else ""
            url = site["base"] + thread_url.format(th["id"]) + tail
            if not any(mark in b for b in pages.get(key(url), [])):
                missing.append(url)
    return {"records": len(records), "responses": len(responses),
            "login_pages": login_pages, "denial_pages": denials, "post_requests": posts,
            "members_only_thread_pages": wanted, "members_only_pages_missing": missing}


def main(mode: str, engines: list[str], warc: str | None = None) -> dict:
    sites = {}
    for engine in engines:
        t = truth(engine)
        sites[engine] = {"base": t["base_url"], "netloc": t["base_url"].split("/")[2], "truth": t}
    workdir = Path(tempfile.mkdtemp(prefix=f"login-lab-{mode}-"))
    redis = RedisServer(workdir / "redis")
    redis.start()
    offsets = {e: access_log(e).stat().st_size for e in engines}
    agent = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
    settings = {**COMMON, "REDIS_URL": redis.url, "CRAWLER_CRAWL_ID": f"lab-{mode}",
                "DOWNLOAD_DELAY": 0, "CONCURRENT_REQUESTS": 8, "CRAWLER_IDLE_CLOSE": 3}
    if mode in ("credentials", "wrong"):
        password = PASSWORD if mode == "credentials" else WRONG
        settings["CRAWLER_LOGIN"] = json.dumps(
            {s["netloc"]: {"username": "alice", "password": password} for s in sites.values()})
    if mode == "cookies":
        jars = [curl_cookies(e, s["base"], workdir, agent) for e, s in sites.items()]
        merged = workdir / "cookies.txt"
        merged.write_text("".join(j.read_text() for j in jars))
        settings |= {"CRAWLER_COOKIES_FILE": str(merged), "USER_AGENT": agent}
        offsets = {e: access_log(e).stat().st_size for e in engines}  # curl's login left out
    if warc:
        settings["CRAWLER_WARC_DIR"] = warc
    starts = [s["base"] + ENGINES[e][0] for e, s in sites.items()]
    names = ["node-a", "node-b"] if mode in ("credentials", "cookies") else ["node-a"]
    began = time.monotonic()
    nodes = [Node(n, starts, workdir, settings, spider="forum") for n in names]
    codes = [node.wait(600) for node in nodes]
    seconds = time.monotonic() - began
    items = [json.loads(line) for n in nodes if n.feed_path.exists()
             for line in n.feed_path.read_text().splitlines() if line]
    report: dict = {"mode": mode, "exit": codes, "seconds": round(seconds, 1), "workdir": str(workdir),
                    "last_stderr_line": [n.output().strip().splitlines()[-1] for n in nodes]}
    outcomes: Counter = Counter()
    for node in nodes:
        if node.stats_path.exists():
            outcomes.update(node.outcomes())
    report["outcomes"] = {k: v for k, v in outcomes.items() if "/" in k}
    for engine, site in sites.items():
        t, netloc = site["truth"], site["netloc"]
        mine = [i for i in items if i.get("site") == netloc]
        posts = {i["post_id"]: i for i in mine if i.get("item_type") == "post"}
        private = [(th, p) for th in t["threads"] if th["board_id"] == PRIVATE_BOARD for p in th["posts"]]
        public = [(th, p) for th in t["threads"] if th["board_id"] != PRIVATE_BOARD for p in th["posts"]]

        def right(pairs, posts=posts):
            ok = [p for th, p in pairs if str(p["id"]) in posts
                  and posts[str(p["id"])]["thread_id"] == str(th["id"])
                  and (posts[str(p["id"])].get("author") or {}).get("name") == p["author"]]
            return len(ok)

        loginish = [i for i in mine if i.get("title") in ("Login", "Login / Register")
                    or any(m in (i.get("body_text") or "") for m in LOGIN_MARKS[:2])]
        stored = redis.client().hget(f"crawler:{{lab-{mode}}}:login:{netloc}", "posts")
        report[engine] = {
            "members_only_posts": len(private), "members_only_right": right(private),
            "members_only_recall": round(right(private) / len(private), 4),
            "public_posts": len(public), "public_right": right(public),
            "public_recall": round(right(public) / len(public), 4),
            "items": len(mine), "login_or_denial_items": len(loginish),
            "login_posts_redis": int(stored or 0),
            "login_posts_access_log": login_posts_in_log(engine, offsets[engine]),
        }
        if warc:
            report[engine]["warc"] = warc_report(Path(warc), engine, site)
    report["password_in_logs"] = sum(p in n.output() for n in nodes for p in (PASSWORD, WRONG))
    # every file the crawl wrote: logs, feeds, stats, the embedded Redis's state and dump
    files = [f for f in workdir.rglob("*") if f.is_file() and f.name != "cookies.txt"]
    files += list(Path(warc).rglob("*")) if warc else []
    report["password_in_files"] = [str(f) for f in files if f.is_file() and any(
        p.encode() in f.read_bytes() for p in (PASSWORD, WRONG))]
    redis.stop()
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", nargs="?", default="credentials",
                        choices=["credentials", "cookies", "guest", "wrong"])
    parser.add_argument("--engines", default=",".join(ENGINES),
                        help="comma-separated, of " + ",".join(ENGINES))
    parser.add_argument("--warc", help="CRAWLER_WARC_DIR for the crawl; checked afterwards")
    args = parser.parse_args()
    print(json.dumps(main(args.mode, args.engines.split(","), args.warc), indent=1,
                     ensure_ascii=False))
