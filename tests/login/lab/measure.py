"""Measure issue 30's targets on the engine lab (../shared/engines): the lab's phpBB and MyBB,
each with board 3 made members-only (``*_members_only.php``), crawled by two nodes on one Redis.

    python -m tests.login.lab.measure credentials   # CRAWLER_LOGIN, 2 nodes
    python -m tests.login.lab.measure cookies       # a curl -c cookies.txt per site, 2 nodes
    python -m tests.login.lab.measure guest         # no credentials, 1 node
    python -m tests.login.lab.measure wrong         # a wrong password, 1 node

Prints one JSON object: per site the recall of members-only and public posts (by post id,
with the right author and thread), login or denial pages emitted as items, login POSTs (the
crawl's Redis counter and the engine's Apache access log), outcomes, exit statuses.
A development tool (the lab is not in CI), kept to repeat the measurement.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.helpers.nodes import COMMON, Node
from tests.helpers.redis_server import RedisServer

LAB = Path(__file__).resolve().parents[4] / "shared" / "engines"
PASSWORD = "Acceptance-Pass-2024!"
PRIVATE_BOARD = 3
ENGINES = {"phpbb": ("index.php", "ucp.php?mode=login"), "mybb": ("index.php", "member.php")}
LOGIN_MARKS = ("registered and logged in", "not logged in or do not have permission",
               'name="password"', "Login", "You are not authorised")


def truth(engine: str) -> dict:
    return json.loads((LAB / engine / "truth.json").read_text())


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


def main(mode: str) -> dict:
    sites = {}
    for engine in ENGINES:
        t = truth(engine)
        sites[engine] = {"base": t["base_url"], "netloc": t["base_url"].split("/")[2], "truth": t}
    workdir = Path(tempfile.mkdtemp(prefix=f"login-lab-{mode}-"))
    redis = RedisServer(workdir / "redis")
    redis.start()
    offsets = {e: access_log(e).stat().st_size for e in ENGINES}
    agent = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
    settings = {**COMMON, "REDIS_URL": redis.url, "CRAWLER_CRAWL_ID": f"lab-{mode}",
                "DOWNLOAD_DELAY": 0, "CONCURRENT_REQUESTS": 8, "CRAWLER_IDLE_CLOSE": 3}
    if mode in ("credentials", "wrong"):
        password = PASSWORD if mode == "credentials" else "not-the-password"
        settings["CRAWLER_LOGIN"] = json.dumps(
            {s["netloc"]: {"username": "alice", "password": password} for s in sites.values()})
    if mode == "cookies":
        jars = [curl_cookies(e, s["base"], workdir, agent) for e, s in sites.items()]
        merged = workdir / "cookies.txt"
        merged.write_text("".join(j.read_text() for j in jars))
        settings |= {"CRAWLER_COOKIES_FILE": str(merged), "USER_AGENT": agent}
        offsets = {e: access_log(e).stat().st_size for e in ENGINES}  # curl's login left out
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

        def right(pairs):
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
    passwords = sum(PASSWORD in n.output() for n in nodes)
    report["password_in_logs"] = passwords
    redis.stop()
    return report


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1] if len(sys.argv) > 1 else "credentials"), indent=1,
                     ensure_ascii=False))
