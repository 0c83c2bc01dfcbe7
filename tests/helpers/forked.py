"""``python -m scrapy ...`` / ``python -m crawler ...`` as a process forked from one that has
already imported Scrapy and the project (multiprocessing's fork server).

A CLI run that ends at a check (a bad setting, an unreachable Redis) spends most of its
second or two importing; a forked child skips that and runs the same entry point, in its
own process, with its own arguments, environment and working directory, its output on its
own file descriptors and its exit status as the process' own. :func:`run` for runs a test
only waits for; :class:`Child` for one it signals or reads while it runs (a node). The
project reads its environment when a command runs, not at import, or the fork server's
would be seen.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.helpers import ROOT

#: imported once by the fork server, before any child is forked
PRELOAD = "tests.helpers.forked_preload"

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload([PRELOAD])


def run(module: str, args: list[str], env: dict[str, str] | None = None,
        cwd: Path = ROOT, timeout: float = 60) -> subprocess.CompletedProcess:
    """``python -m <module> <args>`` in a forked child: like :func:`subprocess.run` with
    ``capture_output=True, text=True``."""
    with tempfile.TemporaryDirectory() as folder:
        out, err = Path(folder, "stdout"), Path(folder, "stderr")
        child = _context.Process(target=_main, args=(
            module, args, dict(os.environ if env is None else env), str(cwd), str(out), str(err)))
        child.start()
        child.join(timeout)
        if child.exitcode is None:
            child.kill()
            child.join()
            raise subprocess.TimeoutExpired([module, *args], timeout)
        return subprocess.CompletedProcess(
            [sys.executable, "-m", module, *args], child.exitcode,
            out.read_text(errors="replace"), err.read_text(errors="replace"))


class Child:
    """``python -m <module> <args>`` forked and left running, its stdout and stderr both
    in *log*: what the tests use of :class:`subprocess.Popen` (``pid``, ``poll``, ``wait``,
    ``send_signal``, ``kill``; a signal's death is ``-signum``, as Popen says it)."""

    def __init__(self, module: str, args: list[str], env: dict[str, str], cwd: Path,
                 log: Path) -> None:
        self.args = [sys.executable, "-m", module, *args]
        log.write_bytes(b"")  # there from the start, as a Popen's output file would be
        self._process = _context.Process(target=_main, args=(
            module, args, dict(env), str(cwd), str(log), str(log)))
        self._process.start()
        self.pid = self._process.pid

    def poll(self) -> int | None:
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return self._process.exitcode

    def send_signal(self, sig: int) -> None:
        if self._process.exitcode is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _main(module: str, args: list[str], env: dict[str, str], cwd: str, out: str,
          err: str) -> None:
    """The child: the environment, folder and file descriptors of a process started as
    ``python -m <module>``, then the module's entry point (its ``SystemExit`` is the exit
    status)."""
    import atexit  # noqa: PLC0415 - in the child only
    import runpy  # noqa: PLC0415

    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.path[0:0] = [cwd]
    opened: dict[str, int] = {}  # one file for both: one open, so one offset
    for fd, path in ((1, out), (2, err)):
        if path not in opened:
            opened[path] = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(opened[path], fd)
    for target in opened.values():
        os.close(target)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the child's, for its whole life
    sys.argv = [module, *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        # the exit handlers (an embedded Redis stopped), as the interpreter runs them at its
        # exit: a multiprocessing child ends with os._exit, which does not
        atexit._run_exitfuncs()  # noqa: SLF001 - no public way to run them
