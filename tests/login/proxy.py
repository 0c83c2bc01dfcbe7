"""A forward HTTP proxy on 127.0.0.1 that asks for credentials (``Proxy-Authorization:
Basic``), as a paid proxy does: 407 without them, else the request passed on."""

from __future__ import annotations

import base64
import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

HOP = {"proxy-authorization", "proxy-connection", "connection", "keep-alive"}


class Proxy:
    def __init__(self, user: str, password: str) -> None:
        self.expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.passed = 0
        self.refused = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                proxy.relay(self)

            do_POST = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def relay(self, handler: BaseHTTPRequestHandler) -> None:
        if handler.headers.get("Proxy-Authorization") != self.expected:
            self.refused += 1
            handler.send_response(407)
            handler.send_header("Proxy-Authenticate", 'Basic realm="proxy"')
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        self.passed += 1
        target = urlsplit(handler.path)
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in HOP}
        upstream = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        path = target.path + (f"?{target.query}" if target.query else "")
        upstream.request(handler.command, path or "/", body or None, headers)
        answer = upstream.getresponse()
        data = answer.read()
        handler.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
        upstream.close()

    def __enter__(self) -> Proxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
