"""Serve the generated site with a fixed per-response latency (nginx cannot delay static files).

A bare asyncio HTTP/1.1 server (keep-alive, GET only): each request is answered
*delay* seconds after it arrives, from the files nginx serves, with the nginx port
rewritten to ours. Sleeping costs no CPU, so at a few hundred requests/s it is never
the bottleneck. It logs like the nginx bench format: ``end_msec duration addr status
bytes uri``, so the same parser reads both.

    python bench/latency_server.py --site bench/work/site --port 18481 --delay 0.2 --log x.log
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import time
from pathlib import Path

from site_gen import PORT as NGINX_PORT


class Site:
    def __init__(self, root: Path, port: int, delay: float, log) -> None:
        self.root = root
        self.port_from = f":{NGINX_PORT}/".encode()
        self.port_to = f":{port}/".encode()
        self.delay = delay
        self.log = log

    def body(self, addr: str, path: str) -> bytes | None:
        if path == "/robots.txt":
            return b"User-agent: *\nAllow: /\n"
        name = path.lstrip("/") + ("index.html" if path.endswith("/") else "")
        if ".." in name:
            return None
        try:
            return (self.root / addr / name).read_bytes().replace(self.port_from, self.port_to)
        except OSError:
            return None


class Http(asyncio.Protocol):
    def __init__(self, site: Site) -> None:
        self.site = site
        self.buffer = b""
        self.transport: asyncio.Transport | None = None
        self.addr = ""

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.addr = transport.get_extra_info("sockname")[0]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            path = head.split(b"\r\n", 1)[0].split(b" ")[1].decode("latin-1").split("?")[0]
            start = time.time()
            asyncio.get_running_loop().call_later(self.site.delay, self.respond, path, start)

    def respond(self, path: str, start: float) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        body = self.site.body(self.addr, path)
        status = 200 if body is not None else 404
        body = body if body is not None else b"not found"
        self.transport.write(b"HTTP/1.1 %d X\r\nContent-Type: text/html\r\nContent-Length: %d\r\n"
                             b"Connection: keep-alive\r\n\r\n" % (status, len(body)) + body)
        end = time.time()
        self.site.log.write(f"{end:.3f} {end - start:.3f} {self.addr} {status} {len(body)} {path}\n")

    def connection_lost(self, exc) -> None:
        self.transport = None


async def serve(site: Site, addresses: list[str], port: int) -> None:
    loop = asyncio.get_running_loop()
    servers = [await loop.create_server(lambda: Http(site), addr, port, backlog=512)
               for addr in addresses]
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    print("ready", flush=True)
    await stop.wait()
    for server in servers:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--site", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()
    addresses = json.loads((args.site / "manifest.json").read_text())["addresses"]
    with args.log.open("a", buffering=1) as log:  # line-buffered: the runner reads it live
        asyncio.run(serve(Site(args.site, args.port, args.delay, log), addresses, args.port))


if __name__ == "__main__":
    main()
