"""Content-addressed files: ``DIR/<sha256[:2]>/<sha256>[.ext]``, written whole or not at all.

The bytes go to a temporary file in ``DIR/.partial/``, are fsynced, then renamed into place
(and the folder fsynced): a kill at any moment leaves either the complete file or none (a
stray temporary file at most, removed when the store opens). The same bytes under two
names are one file.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

__all__ = ["FileStore", "extension_of"]

_EXTENSION = re.compile(r"\.([A-Za-z0-9]{1,8})$")
_PARTIAL = ".partial"


def extension_of(name: str | None) -> str:
    """``"Screen Shot.PNG"`` -> ``".png"``; ``""`` for a name without a plain extension."""
    found = _EXTENSION.search(name or "")
    return "." + found.group(1).lower() if found else ""


class FileStore:
    """Files under *root*, named by their sha256."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.partial = self.root / _PARTIAL
        self.partial.mkdir(parents=True, exist_ok=True)
        umask = os.umask(0)
        os.umask(umask)
        self.mode = 0o666 & ~umask  # what open() would give; mkstemp's is 0o600
        for stray in self.partial.iterdir():  # a kill's leftovers: never a stored file
            stray.unlink(missing_ok=True)

    @staticmethod
    def path_for(sha256: str, name: str | None) -> str:
        """The stored file's path, relative to the root."""
        return f"{sha256[:2]}/{sha256}{extension_of(name)}"

    def has(self, path: str) -> bool:
        return (self.root / path).is_file()

    def put(self, body: bytes, name: str | None) -> tuple[str, str]:
        """Store *body* (once per content and extension); returns (sha256, relative path)."""
        sha256 = hashlib.sha256(body).hexdigest()
        path = self.path_for(sha256, name)
        final = self.root / path
        if (same := self._stored(sha256)) is not None:  # under another extension, maybe
            return sha256, same
        final.parent.mkdir(exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=self.partial)
        try:
            with os.fdopen(fd, "wb") as f:
                os.fchmod(fd, self.mode)
                f.write(body)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, final)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        _fsync_dir(final.parent)
        return sha256, path


    def _stored(self, sha256: str) -> str | None:
        folder = self.root / sha256[:2]
        found = sorted(folder.glob(sha256 + "*")) if folder.is_dir() else []
        return f"{sha256[:2]}/{found[0].name}" if found else None


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
