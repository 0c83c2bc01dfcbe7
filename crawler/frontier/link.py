"""The node's line to Redis: every command goes out, and is counted, here."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from redis.exceptions import NoScriptError, ResponseError

from crawler.frontier import scripts

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redis import Redis


class RedisLink:
    """Sends commands, pipelines and Lua scripts, counting round trips, and keeps the
    offset between this node's clock and Redis' (the one clock all nodes share)."""

    def __init__(self, client: Redis) -> None:
        self.client = client
        self.round_trips = 0
        self.clock_offset_ms = 0
        self._best_rtt = float("inf")
        self.load_scripts()

    def now_ms(self) -> int:
        """Wall-clock ms corrected to Redis' clock, the one clock all nodes share."""
        return int(time.time() * 1000) + self.clock_offset_ms

    def load_scripts(self) -> None:
        self.round_trips += 1
        self.scripts = scripts.load(self.client)

    def command(self, name: str, *args, **kwargs):
        """One command, one round trip."""
        self.round_trips += 1
        return getattr(self.client, name)(*args, **kwargs)

    def pipeline(self, build, transaction: bool = False) -> list:
        """Run the commands *build* queues on a fresh pipeline, in one round trip."""
        for attempt in (1, 2):
            pipe = self.client.pipeline(transaction=transaction)
            build(pipe)
            self.round_trips += 1
            try:
                return pipe.execute()
            except NoScriptError:  # Redis restarted and lost its script cache
                if attempt == 2:
                    raise
                self.load_scripts()
        raise AssertionError("unreachable")

    def start(self, commands: list[tuple]) -> Sent:
        """Send *commands* in one write and return at once: the replies are read by
        :meth:`Sent.replies`, when :meth:`Sent.ready` says they came, so that the node
        works while Redis runs them. Raises what redis-py raises on a failed send."""
        sent = start(self.client, commands)
        self.round_trips += 1
        return sent

    def evalsha(self, target, name: str, keys: Sequence[str], args: Sequence) -> object:
        return target.execute_command("EVALSHA", self.scripts[name], len(keys), *keys, *args)

    def call(self, name: str, keys: Sequence[str], args: Sequence) -> object:
        """Run script *name* on its own; its reply, checked (see :func:`scripts.check`)."""
        self.round_trips += 1
        try:
            reply = self.evalsha(self.client, name, keys, args)
        except NoScriptError:
            self.load_scripts()
            reply = self.evalsha(self.client, name, keys, args)
        return scripts.check(name, reply)

    def sync_clock(self) -> None:
        sent = time.time()
        sec, usec = self.command("time")
        self.set_clock(sec, usec, sent)

    def set_clock(self, sec: int, usec: int, sent: float) -> None:
        """Redis read its clock somewhere in the round trip: take the midpoint
        (as NTP does), and skip samples from slow round trips (a busy node),
        whose error would shrink politeness gaps between nodes."""
        now = time.time()
        rtt = now - sent
        if rtt > max(0.005, 2 * self._best_rtt):
            return
        self._best_rtt = min(self._best_rtt, rtt)
        self.clock_offset_ms = round(sec * 1000 + usec / 1000 - (sent + now) / 2 * 1000)


def start(client: Redis, commands: list[tuple]) -> Sent:
    """Send *commands* on a connection of *client*'s pool in one write, and return at once
    (see :meth:`RedisLink.start`)."""
    pool = client.connection_pool
    connection = pool.get_connection()
    try:
        connection.send_packed_command(connection.pack_commands(commands))
    except BaseException:
        connection.disconnect()
        pool.release(connection)
        raise
    return Sent(pool, connection, len(commands))


class Sent:
    """Commands on the wire, their replies not read yet. It holds its connection
    until then, so nothing else is interleaved on that socket."""

    def __init__(self, pool, connection, count: int) -> None:
        self.pool = pool
        self.connection = connection
        self.count = count

    def fileno(self) -> int:
        return self.connection._sock.fileno()  # noqa: SLF001 - redis-py has no public accessor

    def ready(self) -> bool:
        """True once a reply has begun to arrive (reading may still wait for its end)."""
        try:
            return self.connection.can_read(timeout=0)
        except Exception:  # noqa: BLE001 - a broken connection: replies() raises it
            return True

    def replies(self) -> list:
        """Every reply, in order, waiting for them if need be; an error reply (a
        script's refusal, NOSCRIPT) is in the list as its exception, like redis-py's
        pipelines. A lost connection raises (and is closed, so the next send redials)."""
        replies: list = []
        try:
            for _ in range(self.count):
                try:
                    replies.append(self.connection.read_response())
                except ResponseError as exc:
                    replies.append(exc)
        except BaseException:
            self.connection.disconnect()
            raise
        finally:
            self.pool.release(self.connection)
        return replies
