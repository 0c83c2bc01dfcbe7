"""The file store writes a file whole or not at all: a SIGKILL in the middle of a write, or a
full disk (a real 64 KiB tmpfs), leaves no file under its content's name and no partial file
once the store opens again."""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import subprocess
import sys
import textwrap
from typing import TYPE_CHECKING

import pytest

from crawler.attachments.store import FileStore
from tests.helpers import ROOT

if TYPE_CHECKING:
    from pathlib import Path

BODY = bytes(range(256)) * 512  # 128 KiB

# Writes BODY into a FileStore at argv[1]; fsync (the moment the bytes are on disk under the
# temporary name) says "writing" and waits for the test, which sends SIGKILL.
_KILLED_WRITER = textwrap.dedent("""
    import os, sys
    from crawler.attachments.store import FileStore
    store = FileStore(sys.argv[1])
    def fsync(fd):
        print("writing", flush=True)
        sys.stdin.read()
    os.fsync = fsync
    store.put(bytes(range(256)) * 512, "big.zip")
""")


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_a_sigkill_during_a_write_stores_nothing_and_the_next_open_clears_it(
        tmp_path: Path) -> None:
    root = tmp_path / "files"
    writer = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(root)], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "writing"
        left = _files(root)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(30)
    assert len(left) == 1 and left[0].startswith(".partial/"), left  # only the temporary file
    store = FileStore(root)
    assert _files(root) == []
    sha256, path = store.put(BODY, "big.zip")
    assert (root / path).read_bytes() == BODY and sha256 == hashlib.sha256(BODY).hexdigest()


def _can_mount_tmpfs() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs unshare -rm (user and mount namespaces)")
def test_a_full_disk_stores_nothing_of_the_file_and_keeps_the_others(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    # in its own mount namespace: a 64 KiB tmpfs, a small file that fits, BODY that does not
    script = textwrap.dedent(f"""
        import json, os
        from pathlib import Path
        from crawler.attachments.store import FileStore
        store = FileStore({str(disk)!r})
        small = store.put(b"small file", "a.txt")
        try:
            store.put(bytes(range(256)) * 512, "big.zip")
            error = None
        except OSError as exc:
            error = exc.errno
        files = sorted(p.relative_to({str(disk)!r}).as_posix() for p in Path({str(disk)!r})
                       .rglob("*") if p.is_file())
        print(json.dumps({{"small": small, "error": error, "files": files}}))
    """)
    command = f'mount -t tmpfs -o size=64k tmpfs "{disk}" && exec "{sys.executable}" -c "$0"'
    done = subprocess.run(["unshare", "-rm", "sh", "-c", command, script], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["error"] == 28  # ENOSPC
    assert result["files"] == [result["small"][1]]  # the small file only: no partial, no big
