"""Serve the bench site with a fixed per-response latency (nginx cannot delay static files).

The project's one test server (``crawler.demo.server.LoopbackServer``) serving the forum
nginx serves (``site_gen.bench_forum`` with the manifest's hosts, pages and seed: the same
pages, with links to this server's port), one listening socket per host address. Each request
is answered *delay* seconds after it arrives; a waiting request holds a sleeping thread, which
costs no CPU, so at a few hundred requests/s it is never the bottleneck. It logs like the nginx
bench format: ``end duration addr status bytes uri``, so the same parser reads both.

    python bench/latency_server.py --site bench/work/site --port 18481 --delay 0.2 --log x.log
"""

from __future__ import annotations

import argparse
import json
import signal
import threading
import time
from pathlib import Path
from typing import TextIO

from site_gen import bench_forum, host_address

from crawler.demo.recorder import Recorder, RequestRecord
from crawler.demo.server import LoopbackServer


def access_log(log: TextIO):
    """A recorder hook that writes each request as nginx's bench log format does."""
    lock = threading.Lock()

    def write(r: RequestRecord) -> None:
        end = time.time()  # wall clock, as nginx's $msec; the duration from the server's own clock
        line = f"{end:.3f} {r.end - r.start:.3f} {r.netloc.rsplit(':', 1)[0]} {r.status} {r.size} {r.path}\n"
        with lock:
            log.write(line)

    return write


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--site", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()
    manifest = json.loads((args.site / "manifest.json").read_text())
    forum = bench_forum(manifest["hosts"], manifest["pages_per_host"], manifest["seed"])
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    with args.log.open("a", buffering=1) as log:  # line-buffered: the runner reads it live
        recorder = Recorder(forum.hosts, on_record=access_log(log))
        addresses = [(host_address(i), args.port) for i in range(forum.hosts)]
        with LoopbackServer(forum, latency=args.delay, recorder=recorder, addresses=addresses):
            print("ready", flush=True)
            stop.wait()


if __name__ == "__main__":
    main()
