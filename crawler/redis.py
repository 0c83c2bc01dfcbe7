"""One Redis client per crawler process, built from one setting (:setting:`REDIS_URL`):
the operator's server, or the crawl's embedded one (:mod:`crawler.embedded_redis`).
"""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from crawler import embedded_redis
from crawler.config import value
from crawler.state import crawl_id

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: re-exported for callers of earlier versions: crawl ids live in :mod:`crawler.state`
__all__ = ["FAILED", "UNREACHABLE", "RedisUnavailable", "client_from_crawler", "connect",
           "crawl_id", "redact", "restart_watch"]

logger = logging.getLogger(__name__)

UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
# What the data path treats as an outage: also a Redis that answers but refuses
# (OOM under noeviction, MISCONF with a full disk, READONLY after a failover).
FAILED = (RedisError, OSError)


class RestartWatch:
    """Counts the Redis server's restarts that this client's connections have seen: on
    every (re)connection it reads the server's ``run_id``. redis-py reconnects
    silently, so a Redis restarted between two calls (perhaps from an older AOF,
    without its last writes) would otherwise go unnoticed."""

    def __init__(self) -> None:
        self.run_id: bytes | None = None
        self.restarts = 0

    def __call__(self, connection) -> None:
        connection.on_connect()
        connection.send_command("INFO", "server")
        info = connection.read_response()
        match = _RUN_ID.search(info if isinstance(info, bytes) else str(info).encode())
        run_id = match.group(1) if match else None
        if self.run_id is not None and run_id != self.run_id:
            self.restarts += 1
        self.run_id = run_id


_RUN_ID = re.compile(rb"run_id:([0-9a-f]+)")


def restart_watch(client: redis.Redis) -> RestartWatch:
    """The client's :class:`RestartWatch` (installed by :func:`connect`)."""
    watch = client.connection_pool.connection_kwargs.get("redis_connect_func")
    return watch if isinstance(watch, RestartWatch) else RestartWatch()


class RedisUnavailable(RuntimeError):
    """Redis could not be reached within :setting:`CRAWLER_REDIS_CONNECT_TIMEOUT`."""


#: each crawl's shared client, kept beside its crawler (not on it)
_CLIENTS: WeakKeyDictionary[Crawler, redis.Redis] = WeakKeyDictionary()


def client_from_crawler(crawler: Crawler) -> redis.Redis:
    """Return the crawler's shared client, connecting (and maybe starting Redis) once."""
    client = _CLIENTS.get(crawler)
    if client is None:
        settings = crawler.settings
        if url := settings.get("REDIS_URL"):
            client = connect(url, value(settings, "CRAWLER_REDIS_CONNECT_TIMEOUT"),
                             value(settings, "CRAWLER_REDIS_SOCKET_TIMEOUT"))
        else:
            try:
                server = embedded_redis.start_for(crawler)
            except embedded_redis.EmbeddedStartFailed as exc:
                raise RedisUnavailable(str(exc)) from None
            client = connect("unix://" + server.socket_file,
                             value(settings, "CRAWLER_REDIS_CONNECT_TIMEOUT"),
                             value(settings, "CRAWLER_REDIS_SOCKET_TIMEOUT"))
            embedded_redis.stop_with(crawler, client)
        _CLIENTS[crawler] = client
    return client


def connect(url: str, connect_timeout: float, socket_timeout: float = 5.0) -> redis.Redis:
    """Connect to *url*, retrying with backoff for up to *connect_timeout* seconds.

    Calls run on the reactor thread, so *socket_timeout* bounds how long a stalled
    Redis can freeze a node before the call fails and the node buffers instead.
    """
    try:
        client = redis.Redis.from_url(url, socket_timeout=socket_timeout,
                                      socket_connect_timeout=min(socket_timeout, 5.0))
    except ValueError as exc:
        raise RedisUnavailable(f"REDIS_URL ({redact(url)!r}) is not a valid Redis URL: "
                               f"{redact(str(exc))}") from None
    client.connection_pool.connection_kwargs["redis_connect_func"] = RestartWatch()
    deadline = time.monotonic() + connect_timeout
    delay = 0.1
    while True:
        try:
            client.ping()
            return client
        except UNREACHABLE as exc:
            if time.monotonic() + delay > deadline:
                raise RedisUnavailable(
                    f"cannot reach Redis at REDIS_URL ({redact(url)!r}) after "
                    f"{connect_timeout:g}s: {redact(str(exc)).rstrip('.')}. Is the server "
                    "running and the URL right?"
                ) from None
            logger.warning("Redis at %(url)s unreachable (%(exc)s), retrying in %(delay).1fs",
                           {"url": redact(url), "exc": redact(str(exc)), "delay": delay})
            time.sleep(delay)
            delay = min(delay * 2, 2.0)
        except RedisError as exc:  # e.g. authentication
            raise RedisUnavailable(f"Redis at REDIS_URL ({redact(url)!r}) refused us: "
                                   f"{redact(str(exc))}") from None


#: a URL's userinfo, of any scheme (a mistyped one too), up to the last "@" of the URL (a
#: password may hold "@", "/" or "#" that its writer did not percent-encode)
_USERINFO = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://)([^\s'\"]*)@")
_SECRET_PARAM = re.compile(r"([?&]password=)[^&\s'\"]+")


def _redact_userinfo(match: re.Match) -> str:
    user, colon, _ = match.group(2).partition(":")
    # no colon: "redis://PASSWORD@host" (a password typed where the user name goes)
    return f"{match.group(1)}{user + ':' if colon else ''}***@"


def redact(text: str) -> str:
    """*text* with the password of any URL in it replaced by ``***``."""
    return _SECRET_PARAM.sub(r"\1***", _USERINFO.sub(_redact_userinfo, text))


