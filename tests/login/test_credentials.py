"""CRAWLER_LOGIN, its environment variable, -a username/password; the session store."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from scrapy.settings import Settings

from crawler.login.credentials import (
    Credentials,
    CredentialsError,
    from_arguments,
    from_settings,
)
from crawler.frontier.keys import Keys
from crawler.login.session import SessionStore
from tests.helpers.redis_server import RedisServer

ONE = {"bbs.example.org": {"username": "alice", "password": "s3cret-pw"}}


def test_the_setting_wins_over_the_environment():
    env = {"CRAWLER_LOGIN": json.dumps({"other.example": {"username": "bob", "password": "x"}})}
    assert from_settings(Settings({"CRAWLER_LOGIN": json.dumps(ONE)}), env) == {
        "bbs.example.org": Credentials("alice", "s3cret-pw")}
    assert set(from_settings(Settings(), env)) == {"other.example"}
    assert from_settings(Settings(), {}) == {}
    # a dict in settings.py, a URL or an upper-case host as the key
    given = {"https://BBS.example.org:8443/forum/": {"username": "a", "password": "b"}}
    assert set(from_settings(Settings({"CRAWLER_LOGIN": given}), {})) == {"bbs.example.org:8443"}


@pytest.mark.parametrize("raw", ['{"bbs": s3cret-pw', '["s3cret-pw"]',
                                 '{"bbs": {"username": "alice"}}', '{"bbs": {"password": "s3cret-pw"}}'])
def test_bad_values_are_one_line_without_the_password(raw):
    with pytest.raises(CredentialsError) as error:
        from_settings(Settings({"CRAWLER_LOGIN": raw}), {})
    assert "s3cret-pw" not in str(error.value) and "\n" not in str(error.value)


def test_credentials_never_show_their_password():
    assert "s3cret-pw" not in repr(Credentials("alice", "s3cret-pw"))
    assert "s3cret-pw" not in str([Credentials("alice", "s3cret-pw")])


def test_spider_arguments_are_for_one_site_and_leave_the_spider():
    spider = SimpleNamespace(username="alice", password="s3cret-pw")
    assert from_arguments(spider, ["bbs.example.org"]) == {"bbs.example.org": Credentials("alice", "s3cret-pw")}
    assert not hasattr(spider, "password") and not hasattr(spider, "username")
    with pytest.raises(CredentialsError, match="one site"):
        from_arguments(SimpleNamespace(username="a", password="b"), ["a.example", "b.example"])
    with pytest.raises(CredentialsError, match="go together"):
        from_arguments(SimpleNamespace(username="a"), ["a.example"])
    assert from_arguments(SimpleNamespace(), ["a.example"]) == {}


def test_the_store_locks_versions_and_remembers_a_failure_briefly(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    try:
        store = SessionStore(server.client(), Keys("c"))
        store.seal_with("bbs", "alice", "pw-1")
        assert store.load("bbs") is None
        assert store.acquire("bbs", "node-a") and not store.acquire("bbs", "node-b")
        store.release("bbs", "node-b")  # not its lock: kept
        assert not store.acquire("bbs", "node-b")
        v1 = store.save("bbs", {"cookies": [{"name": "sid"}], "ua": "UA", "engine": "phpbb", "user": "alice"})
        store.release("bbs", "node-a")
        assert store.acquire("bbs", "node-b")
        v2 = store.save("bbs", {"cookies": [], "user": "alice"})
        assert (v1, v2) == (1, 2)
        assert store.load("bbs")["version"] == 2
        assert store.count_post("bbs") == 1 and store.posts("bbs") == 1
        store.fail("bbs", "login to bbs as alice failed: no")
        assert store.failed("bbs") == "login to bbs as alice failed: no"
        assert 0 < server.client().ttl("crawler:{c}:login:bbs:failed") <= 60
        assert sorted(server.client().keys("*")) == [b"crawler:{c}:login:bbs", b"crawler:{c}:login:bbs:failed",
                                                      b"crawler:{c}:login:bbs:lock"]
    finally:
        server.stop()
