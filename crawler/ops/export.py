"""Export the crawl's item stream to JSON Lines, incrementally and idempotently.

Each run appends the stream entries after the last one exported, then records, in
``<output>.cursor``, that entry's id and the file's size. A run first truncates the
file to the recorded size, so a run that died half-way leaves no duplicate or
partial line: running ``export`` again always gives the same file, plus whatever
the nodes have added since. Then, by default, it deletes the exported entries from
Redis (only once the file and cursor are on disk: ``trim``), so the stream holds only
what was not exported yet, and a Redis full of items has room again (``--keep``: keep
them, for another export that reads them too). ``-o -`` (:func:`dump`) trims nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from crawler.ops.connect import CliError

if TYPE_CHECKING:
    from crawler.frontier.cluster import Cluster

_BATCH = 1000


@dataclass
class ExportResult:
    exported: int
    total_lines: int
    last_id: str | None
    trimmed: int


def export(cluster: Cluster, output: Path, *, restart: bool = False,
           trim: bool = False) -> ExportResult:
    cursor_path = output.with_name(output.name + ".cursor")
    cursor = {"last_id": None, "offset": 0, "lines": 0}
    if cursor_path.exists() and not restart:
        try:
            cursor = json.loads(cursor_path.read_text())
        except ValueError:
            cursor = None
        if not isinstance(cursor, dict) or not {"last_id", "offset", "lines"} <= cursor.keys():
            raise CliError(f"{cursor_path}: not an export cursor (damaged?); export afresh "
                           "with --restart")
        size = output.stat().st_size if output.exists() else 0
        if size < cursor["offset"]:
            raise CliError(f"{str(output)!r} is shorter than {str(cursor_path)!r} records "
                           "(was it edited or replaced?); export afresh with --restart")
    exported = 0
    with open(output, "ab") as out:
        out.truncate(cursor["offset"])  # drop what a previous run wrote after its cursor
        out.seek(cursor["offset"])
        last = cursor["last_id"]
        while entries := cluster.items.read(last, _BATCH):
            out.write(b"".join(item + b"\n" for _, item in entries))
            exported += len(entries)
            last = entries[-1][0]
        out.flush()
        os.fsync(out.fileno())
        if exported:
            cursor = {"last_id": last, "offset": out.tell(), "lines": cursor["lines"] + exported}
    _write_atomically(cursor_path, json.dumps(cursor))
    trimmed = cluster.items.trim(cursor["last_id"]) if trim and cursor["last_id"] else 0
    return ExportResult(exported, cursor["lines"], cursor["last_id"], trimmed)


def dump(cluster: Cluster, out: BinaryIO) -> int:
    """Write every entry of the stream to *out* (no cursor: for pipes, ``-o -``)."""
    written, last = 0, None
    while entries := cluster.items.read(last, _BATCH):
        out.write(b"".join(item + b"\n" for _, item in entries))
        written += len(entries)
        last = entries[-1][0]
    out.flush()
    return written


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
