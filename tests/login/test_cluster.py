"""One session per site for the whole cluster (issue 30, item 3): two nodes on one Redis log
in once, and a node that comes later uses the stored session.

Two forums in one crawl (the members-only one with credentials, a public one without): a
crawl of several sites deduplicates its start requests. (A one-site cluster crawl fetches its
start page once per node; when the second node's copy reaches the owner after the first was
read, crawler/node/revisit.py sends HDEL with no field and the node stalls on "Redis
failing": reported, not this package's to fix.)"""

from __future__ import annotations

import json
import threading
import time

import pytest
from scrapy import Request

from crawler.login.cookiesfile import make_cookie, to_dict
from crawler.frontier.keys import Keys
from crawler.login.session import SessionStore
from crawler.frontier.cluster import Cluster
from tests.helpers.nodes import COMMON, Node
from tests.helpers.redis_server import RedisServer
from tests.login.board import COOKIE, PRIVATE, USERS, Board

pytestmark = pytest.mark.slow


def test_two_nodes_log_in_once(tmp_path):
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    try:
        with Board() as board, Board(cookie="public_sid") as public:
            login = json.dumps({board.netloc: {"username": "alice", "password": USERS["alice"]}})
            settings = {**COMMON, "REDIS_URL": redis.url, "CRAWLER_CRAWL_ID": "members",
                        "CRAWLER_LOGIN": login, "DOWNLOAD_DELAY": 0}
            sites = [board.url, public.url]
            nodes = [Node(name, sites, tmp_path, settings, spider="forum")
                     for name in ("node-a", "node-b")]
            codes = [node.wait(120) for node in nodes]
            assert codes == [0, 0], [n.output()[-3000:] for n in nodes]
            # one login POST for the cluster (under CPU load a node once logged in again: a
            # guest response of a request sent before its session was installed reset its
            # cookie; see crawler/login/logins.py, Logins.renew)
            assert board.login_posts == 1 and public.login_posts == 0, \
                [n.output()[-6000:] for n in nodes]
            logged_in = board.login_posts
            items = [json.loads(line) for n in nodes for line in n.feed_path.read_text().splitlines()]
            assert [i for i in items if "t=201" in json.dumps(i)], "members-only posts read"
            assert not [i for i in items if i.get("title") == "Login"]
            members = {target: n for (target, user), n in board.hits.items() if user == "alice"}
            assert all(members.get(t) == 1 for t in PRIVATE), board.hits
            assert sum(board.hits[t, None] for t in PRIVATE) == 0, "no guest fetch of them"
            posts = int(redis.client().hget(f"crawler:{{members}}:login:{board.netloc}", "posts"))
            assert posts == logged_in
            # a node that joins later: the stored session, no login
            late = Node("node-c", sites, tmp_path, settings, spider="forum")
            assert late.wait(120) == 0, late.output()[-3000:]
            assert board.login_posts == logged_in
            assert "using the session of alice stored by the cluster" in late.output()
            for node in [*nodes, late]:
                assert USERS["alice"] not in node.output()
            assert USERS["alice"].encode() not in b"".join(
                redis.client().dump(k) or b"" for k in redis.client().keys("*"))
    finally:
        redis.stop()


def test_a_wrong_password_is_tried_once_for_the_cluster(tmp_path):
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    try:
        with Board() as board, Board(cookie="public_sid") as public:
            login = json.dumps({board.netloc: {"username": "alice", "password": "not-it-42"}})
            settings = {**COMMON, "REDIS_URL": redis.url, "CRAWLER_CRAWL_ID": "members",
                        "CRAWLER_LOGIN": login, "DOWNLOAD_DELAY": 0}
            nodes = [Node(name, [board.url, public.url], tmp_path, settings, spider="forum")
                     for name in ("node-a", "node-b")]
            codes = [node.wait(120) for node in nodes]
            assert codes == [2, 2], [n.output()[-3000:] for n in nodes]
            assert board.login_posts == 1
            for node in nodes:
                last = node.output().strip().splitlines()[-1]
                assert last.startswith(f"error: login to {board.netloc} as alice failed: "
                                       "You have specified an incorrect password."), last
                assert "not-it-42" not in node.output()
                assert not node.feed_path.exists() or not node.feed_path.read_text().strip()
    finally:
        redis.stop()


def _until(condition, timeout: float) -> bool:
    """Whether *condition* came true within *timeout* s (checked every 50 ms)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_node_waiting_for_another_nodes_login_sends_nothing_as_a_guest(tmp_path):
    # The race behind a second login POST: while a node waited for another node's login, the
    # frontier handed it a page of the site (start requests are held, the frontier's are not);
    # it went out as a guest, its answer came after the session was installed, and its guest
    # cookie replaced the session's in the jar: the next members-only page was a login page,
    # the "renewal" found the node logged out and sent the form again. Here the test is the
    # other node: it holds the login lock, queues the board's index, and stores a session (as
    # a login would) only when the waiting node had time to fetch that page; the board holds
    # guests' answers until the session is in.
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    held = threading.Event()
    try:
        with Board(hold_guests=held) as board, Board(cookie="public_sid") as public:
            site = board.netloc
            store = SessionStore(redis.client(), Keys("members"))
            store.seal_with(site, "alice", USERS["alice"])  # as the node's Logins does
            assert store.acquire(site, "node-x")
            login = json.dumps({site: {"username": "alice", "password": USERS["alice"]}})
            settings = {**COMMON, "REDIS_URL": redis.url, "CRAWLER_CRAWL_ID": "members",
                        "CRAWLER_LOGIN": login, "DOWNLOAD_DELAY": 0}
            node = Node("node-b", [board.url, public.url], tmp_path, settings, spider="forum")
            cluster = Cluster(redis.client(), "members")
            assert _until(lambda: "node-b" in cluster.members(), 60), node.output()[-3000:]
            # (queued for the default callback, as `crawler seed` does: the forum spider has
            # none, so its page is an error in the log; what matters is whether it is fetched)
            queued = cluster.seed([Request(board.url)], dont_filter=True, host_limit=0, vnodes=2000)
            assert queued.queued == 1
            # the old code fetched it within a second; a node that waits fetches nothing
            guest_fetch = _until(lambda: board.hits["/index.php", None], 10)
            agent = "forum-crawler/test (node-x)"
            sid = board.log_in("alice", agent)
            store.save(site, {"cookies": [to_dict(make_cookie("127.0.0.1", COOKIE, sid))],
                              "ua": agent, "engine": "phpbb", "user": "alice"})
            store.release(site, "node-x")
            # the node's start requests go out once its session is in: then the held answers
            assert _until(lambda: sum(public.hits.values()), 60), node.output()[-3000:]
            held.set()
            assert node.wait(120) == 0, node.output()[-3000:]
            assert board.login_posts == 0, (guest_fetch, node.output()[-6000:])
            assert not guest_fetch, "a guest fetch while waiting for the session"
            members = {target: n for (target, user), n in board.hits.items() if user == "alice"}
            assert all(members.get(t) == 1 for t in PRIVATE), board.hits
            assert sum(board.hits[t, None] for t in PRIVATE) == 0, board.hits
    finally:
        held.set()
        redis.stop()
