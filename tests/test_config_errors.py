"""Bad configuration ends with one line naming the setting and a non-zero exit.

Each run is the command line's own entry point in a process of its own, forked from one
that imported Scrapy and the project already (:mod:`tests.helpers.forked`): these runs end
at a check, and the import was most of their time."""

from __future__ import annotations

import os

import pytest

from tests.helpers import forked

CASES = [
    (["nope"], "error: unknown spider 'nope'"),
    (["follow"], "error: give the sites to crawl"),
    (["follow", "-a", "start_urls=ftp://x"], "error: start URL 'ftp://x' must start with http"),
    (["follow", "-a", "start_urls=http://x", "-s", "REDIS_URL=http://x"],
     "error: REDIS_URL ('http://x') is not a valid Redis URL"),
    (["follow", "-a", "start_urls=http://x", "-s", "DOWNLOAD_DELAY=-1"],
     "error: DOWNLOAD_DELAY (-1.0) must be >= 0"),
    (["follow", "-a", "start_urls=http://x", "-s", "DOWNLOAD_DELAY=soon"],
     "error: DOWNLOAD_DELAY ('soon') must be a number"),
    (["follow", "-a", "start_urls=http://x", "-s", "CRAWLER_BLOOM_CAPACITY=lots"],
     "error: CRAWLER_BLOOM_CAPACITY ('lots') must be a number"),
    (["follow", "-a", "start_urls=http://x", "-s", "CRAWLER_NODE_TIMEOUT=1"],
     "error: CRAWLER_NODE_TIMEOUT (1.0) must be more than twice CRAWLER_HEARTBEAT_INTERVAL"),
    (["follow", "-a", "start_urls=http://x", "-s", "CRAWLER_HOST_MAX_INFLIGHT=0"],
     "error: CRAWLER_HOST_MAX_INFLIGHT (0) must be >= 1"),
    (["phpbb", "-a", "start_urls=http://x", "-a", "watch=soon"],
     "error: -a watch='soon' must be a number of seconds (0: off)"),
    (["follow", "-a", "start_urls=http://x", "-s", "CRAWLER_REVISIT_MIN_INTERVAL=600",
      "-s", "CRAWLER_REVISIT_MAX_INTERVAL=60"],
     "error: CRAWLER_REVISIT_MAX_INTERVAL (60.0) must be at least CRAWLER_REVISIT_MIN_INTERVAL"),
]


def _setting(assignment: str) -> list[str]:
    return ["follow", "-a", "start_urls=http://x", "-s", assignment]


# Each was a traceback, a hang or a silent exit 0 before settings were checked from one table
CASES += [(_setting(a), m) for a, m in [
    ("CRAWLER_BACKOFF_HTTP_CODES=abc", "error: CRAWLER_BACKOFF_HTTP_CODES ('abc') must be HTTP"),
    ("CRAWLER_RETRY_AFTER_MAX=abc", "error: CRAWLER_RETRY_AFTER_MAX ('abc') must be a number"),
    ("CRAWLER_ROBOTS_TTL=abc", "error: CRAWLER_ROBOTS_TTL ('abc') must be a number"),
    ("CRAWLER_ROBOTS_MAX_WAITS=abc", "error: CRAWLER_ROBOTS_MAX_WAITS ('abc') must be a number"),
    ("CRAWLER_SEEN_CACHE_SIZE=abc", "error: CRAWLER_SEEN_CACHE_SIZE ('abc') must be a number"),
    ("CRAWLER_PROGRESS_INTERVAL=abc", "error: CRAWLER_PROGRESS_INTERVAL ('abc') must be a number"),
    ("CRAWLER_HEALTH_PORT=abc", "error: CRAWLER_HEALTH_PORT ('abc') must be a number"),
    ("CRAWLER_HEALTH_PORT=99999", "error: CRAWLER_HEALTH_PORT (99999) must be between 0 and 65535"),
    ("CRAWLER_ITEMS_STREAM=maybe", "error: CRAWLER_ITEMS_STREAM ('maybe') must be true or false"),
    ("CRAWLER_NODE_TIMEOUT=inf", "error: CRAWLER_NODE_TIMEOUT ('inf') must be a finite number"),
    ("CRAWLER_BACKOFF_MAX=inf", "error: CRAWLER_BACKOFF_MAX ('inf') must be a finite number"),
    ("CRAWLER_IDLE_BACKOFF_MAX=nan", "error: CRAWLER_IDLE_BACKOFF_MAX ('nan') must be a finite"),
    ("CRAWLER_CRAWL_ID=a}b", "error: CRAWLER_CRAWL_ID ('a}b') must be 1 to 100 letters"),
    ("CRAWLER_SITE_TIMEZONES=notjson", "error: CRAWLER_SITE_TIMEZONES ('notjson') must be a JSON"),
    ('CRAWLER_SITE_TIMEZONES={"a.org": "Mars/Olympus"}',
     "error: CRAWLER_SITE_TIMEZONES: 'a.org' ('Mars/Olympus') is not an IANA time zone"),
    # An unknown zone used to drop every item, one traceback each, and exit 0.
    ("CRAWLER_TIMEZONE=Mars/Olympus", "error: CRAWLER_TIMEZONE ('Mars/Olympus') is not an IANA time zone"),
    ("DOWNLOAD_DELY=1", "error: unknown setting DOWNLOAD_DELY; did you mean DOWNLOAD_DELAY?"),
    ("CRAWLER_HOST_PAGE_LIMT=5",
     "error: unknown setting CRAWLER_HOST_PAGE_LIMT; did you mean CRAWLER_HOST_PAGE_LIMIT?"),
]]
CASES += [(["follow", "-a", f"start_urls={url}"], f"error: start URL {url!r} {m}") for url, m in [
    ("http://", "has no host name"),
    ("http://[::1", "is not a valid URL"),
    ("http://exa mple.com/", "is not a valid URL"),
]]


@pytest.mark.parametrize(("args", "message"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_configuration_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = forked.run("scrapy", ["crawl", *args])
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(message)


@pytest.mark.parametrize(("setting", "shown"), [
    ([], "redis://from-the-environment.invalid:6379"),
    (["-s", "REDIS_URL=redis://from-settings.invalid:6379"], "redis://from-settings.invalid:6379"),
])
def test_redis_url_from_the_environment_settings_win(setting: list[str], shown: str) -> None:
    env = {**os.environ, "REDIS_URL": "redis://from-the-environment.invalid:6379"}
    result = forked.run("scrapy", ["crawl", "follow", "-a", "start_urls=http://127.0.0.1:9/",
                                   "-s", "CRAWLER_REDIS_CONNECT_TIMEOUT=0", *setting], env=env)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.strip().splitlines()[-1].startswith(
        f"error: cannot reach Redis at REDIS_URL ({shown!r})")


def test_the_redis_password_is_never_shown() -> None:
    result = forked.run("scrapy", ["crawl", "follow", "-a", "start_urls=http://127.0.0.1:9/",
                                   "-s", "REDIS_URL=redis://:s3cret-pw@127.0.0.1:9/0",
                                   "-s", "CRAWLER_REDIS_CONNECT_TIMEOUT=0.5"])
    assert result.returncode == 2
    assert "unreachable" in result.stderr  # the retries were logged...
    assert "s3cret-pw" not in result.stderr + result.stdout  # ...without the password
    assert result.stderr.strip().splitlines()[-1].startswith(
        "error: cannot reach Redis at REDIS_URL ('redis://:***@127.0.0.1:9/0')")


@pytest.mark.parametrize("url", [
    "redis+x://:s3cret-pw@127.0.0.1:9/0",  # an unknown scheme (issue 27)
    "redis://s3cret-pw@127.0.0.1:9/0",  # the password where the user name goes
    "redis://:s3cret@pw@127.0.0.1:9/0",  # an "@" in it, not percent-encoded
])
@pytest.mark.parametrize("command", [["scrapy", "crawl", "follow", "-a",
                                      "start_urls=http://127.0.0.1:9/", "-s", "REDIS_URL={url}",
                                      "-s", "CRAWLER_REDIS_CONNECT_TIMEOUT=0.5"],
                                     ["crawler", "status", "--redis-url", "{url}",
                                      "--connect-timeout", "0.5"]], ids=["crawl", "status"])
def test_a_mistyped_redis_url_does_not_show_its_password(command: list[str], url: str) -> None:
    module, *args = (a.format(url=url) for a in command)
    result = forked.run(module, args)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.strip().splitlines()[-1].startswith("error: "), result.stderr[-2000:]
    assert "***@127.0.0.1:9/0" in result.stderr
    assert "s3cret" not in result.stderr + result.stdout


@pytest.mark.parametrize("break_redis", ["maxmemory", "wrong_type"])
def test_a_redis_that_refuses_the_crawls_start_is_one_line_and_exit_2(redis_server,
                                                                      break_redis) -> None:
    client = redis_server.client()
    if break_redis == "maxmemory":  # every write is refused (OOM)
        client.config_set("maxmemory", 1)
    else:  # a key of the crawl holds another type (another program's, or a broken one)
        client.rpush("crawler:{follow}:bloom", "x")
    try:
        result = forked.run("scrapy", [
            "crawl", "follow", "-a", "start_urls=http://127.0.0.1:9/",
            "-s", f"REDIS_URL={redis_server.url}",
            "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True"])  # else refused before Redis is
    finally:
        client.config_set("maxmemory", 0)
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(
        "error: Redis refused to start the crawl's frontier (")
