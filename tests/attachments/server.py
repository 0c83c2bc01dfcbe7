"""A real HTTP/1.1 server on 127.0.0.1 serving thread pages captured from the engine lab
(phpBB 3.3.10, MyBB 1.8.37, Discuz! X3.5; ``pages/``) and their attachments, with its own log.

Files are answered the way the engines answer them: phpBB's ``download/file.php?id=N`` (a
403 HTML page for the members-only one), MyBB's ``attachment.php?aid=N`` (its "no
permission" page with status 200), Discuz!'s ``mod=attachment&aid=TOKEN`` (the token is
base64 of the id and more; with ``charge``, as the lab answers a member when the board's
credit rule charges for downloads: a 302 to ``action=attachcredit``, the page whose GET
takes the credits and links the file with a ``ck`` key, as captured from the lab; images are
free). The log records per request the method, the target, the
status, when it came in and was answered, and the body bytes the socket accepted (a body is
written in 16 KiB pieces with a small send buffer, so a client that hangs up stops the count).
``stall`` holds every file answer after its headers until :attr:`release` is set (``stalled``
is set when one waits): what a kill during downloads needs; the pages in ``hold`` are
answered only once a file stalled. ``slow`` makes file answers slow.
"""

from __future__ import annotations

import base64
import random
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

PAGES = Path(__file__).parent / "pages"
#: The lab's origins in the captured pages, replaced by this server's.
LAB_ORIGINS = ("http://127.0.0.1:18090", "http://127.0.0.1:18087", "http://127.0.0.1:18089")
PIECE = 16 * 1024


def _bytes(seed: int, size: int) -> bytes:
    return random.Random(seed).randbytes(size)


#: id -> (body, content type) as the lab's attachments (the same bytes for ids 2 and 4)
FILES = {
    "1": (b"\x89PNG\r\n\x1a\n" + _bytes(1, 6313), "image/png"),
    "2": (b"%PDF-1.4\n" + _bytes(2, 455), "application/pdf"),
    "3": (b"PK\x03\x04" + _bytes(3, 1064), "application/zip"),
    "4": (b"%PDF-1.4\n" + _bytes(2, 455), "application/pdf"),
    "5": (_bytes(5, 3 * 1024 * 1024), "application/zip"),
}
DENIED = "6"
ROUTES = {  # engine -> (thread pages, attachment URL, denied page, its status)
    "phpbb": ({"/viewtopic.php?t=2": "phpbb-thread.html",
               "/viewforum.php?f=2&start=3": "phpbb-board.html"},
              re.compile(r"^/download/file\.php\?id=(\d+)"), "phpbb-denied.html", 403),
    "mybb": ({"/showthread.php?tid=1": "mybb-thread.html",
              "/showthread.php?tid=3": "mybb-thread3.html"},
             re.compile(r"^/attachment\.php\?aid=(\d+)"), "mybb-denied.html", 200),
    # its denied one (6) has a price: linked to its purchase page, never to mod=attachment
    "discuz": ({"/forum.php?mod=viewthread&tid=1": "discuz-thread.html"},
               re.compile(r"^/forum\.php\?mod=attachment&aid=([^&]+)"), "mybb-denied.html", 200),
}
#: Discuz!'s page that takes a member's credits for a download (its GET does)
CHARGE = re.compile(r"^/forum\.php\?mod=misc&action=attachcredit&aid=(\d+)")
IMAGES = {"1"}
#: the token of the captured page that took the credits (discuz-attachcredit.html)
CREDIT_TOKEN = b"NHw4YmM5NThiOHwxNzk1OTQxNTgyfDJ8MQ%3D%3D"


def _credit_page(owner: LabServer, aid: str) -> bytes:
    """The lab's page that took the credits for attachment 4, its token for *aid*'s."""
    token = quote(base64.b64encode(f"{aid}|8bc958b8|1795941582|2|1".encode()).decode(), safe="")
    return owner.page("discuz-attachcredit.html").replace(CREDIT_TOKEN, token.encode())


def _aid(raw: str) -> str:
    """Discuz!'s ``aid`` token is base64 of ``aid|hash|time|uid|tid``; the others the id."""
    if raw.isdigit():
        return raw
    return base64.b64decode(unquote(raw)).decode().split("|", 1)[0]


@dataclass
class Hit:
    method: str
    target: str
    status: int
    sent: int = 0
    at: float = field(default_factory=time.monotonic)  # when the request came in
    done: float = 0.0  # when its answer was sent


@dataclass
class LabServer:
    engine: str
    #: id -> a body to send instead (a file larger than the page lists)
    replace: dict[str, bytes] = field(default_factory=dict)
    #: ids answered without Content-Length (chunked)
    chunked: set[str] = field(default_factory=set)
    stall: bool = False
    #: seconds a file's answer takes (a slow server), HEAD included
    slow: float = 0.0
    log: list[Hit] = field(default_factory=list)
    stalled: threading.Event = field(default_factory=threading.Event)
    #: set once ``after_stall`` more requests came in after a file answer stalled
    moved_on: threading.Event = field(default_factory=threading.Event)
    after_stall: int = 5
    release: threading.Event = field(default_factory=threading.Event)
    #: page targets answered only once a file answer stalled
    hold: set[str] = field(default_factory=set)
    #: Discuz!'s files cost credits (see the module docstring)
    charge: bool = False
    #: files answered with a 301 to their URL plus ``&moved=1`` first (phpBB's newer ones)
    moved: bool = False

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._http.daemon_threads = True
        self._http.owner = self  # type: ignore[attr-defined]
        self.origin = "http://127.0.0.1:%d" % self._http.server_address[1]
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def board_url(self) -> str:
        """phpBB's board page linking the thread: a start that leaves it a discovered link."""
        return self.origin + "/viewforum.php?f=2&start=3"

    @property
    def start_url(self) -> str:
        """Every captured thread page, comma-separated (``-a start_urls``)."""
        return ",".join(self.origin + target for target in ROUTES[self.engine][0])

    def file_hits(self, method: str = "GET") -> list[Hit]:
        pattern = ROUTES[self.engine][1]
        with self.lock:
            return [h for h in self.log if h.method == method and pattern.match(h.target)]

    def file_id(self, hit: Hit) -> str:
        """The attachment id a file request asked for."""
        return _aid(ROUTES[self.engine][1].match(hit.target).group(1))  # type: ignore[union-attr]

    def __enter__(self) -> LabServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release.set()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(5)

    def page(self, name: str) -> bytes:
        text = (PAGES / name).read_text(encoding="utf-8")
        for origin in LAB_ORIGINS:
            text = text.replace(origin, self.origin)
        return text.encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, PIECE)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        self._answer(send_body=True)

    def do_HEAD(self) -> None:  # noqa: N802 - stdlib name
        self._answer(send_body=False)

    def _answer(self, send_body: bool) -> None:
        owner: LabServer = self.server.owner  # type: ignore[attr-defined]
        pages, files, denied_page, denied_status = ROUTES[owner.engine]
        hit = Hit(self.command, self.path, 404)
        with owner.lock:
            owner.log.append(hit)
            if owner.stalled.is_set():
                owner.after_stall -= 1
                if owner.after_stall <= 0:
                    owner.moved_on.set()
        found = files.match(self.path)
        aid = _aid(found.group(1)) if found else None
        if self.path in pages:
            if self.path in owner.hold:
                owner.stalled.wait(60)
            hit.status = 200
            self._send(hit, owner.page(pages[self.path]), "text/html; charset=UTF-8", send_body)
        elif aid == DENIED:
            hit.status = denied_status
            self._send(hit, owner.page(denied_page), "text/html; charset=UTF-8", send_body)
        elif aid in FILES and owner.moved and "&moved=1" not in self.path:
            self._redirect(hit, 301, self.path + "&moved=1")
        elif aid in FILES and owner.charge and aid not in IMAGES and "&ck=" not in self.path:
            self._redirect(hit, 302, f"forum.php?mod=misc&action=attachcredit&aid={aid}")
        elif charged := CHARGE.match(self.path):
            hit.status = 200
            self._send(hit, _credit_page(owner, charged.group(1)), "text/html; charset=UTF-8",
                       send_body)
        elif aid in FILES:
            body, kind = FILES[aid]
            hit.status = 200
            time.sleep(owner.slow)
            self._send(hit, owner.replace.get(aid, body), kind, send_body,
                       chunked=aid in owner.chunked, stall=owner.stall)
        else:
            self._send(hit, b"not found", "text/plain", send_body)

    def _redirect(self, hit: Hit, status: int, location: str) -> None:
        hit.status = status
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, hit: Hit, body: bytes, kind: str, send_body: bool, *,
              chunked: bool = False, stall: bool = False) -> None:
        owner: LabServer = self.server.owner  # type: ignore[attr-defined]
        self.send_response(hit.status)
        self.send_header("Content-Type", kind)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        hit.done = time.monotonic()
        if not send_body:
            return
        if stall:
            owner.stalled.set()
            owner.release.wait(60)
        try:
            for start in range(0, len(body), PIECE):
                piece = body[start:start + PIECE]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                hit.sent += len(piece)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
            hit.done = time.monotonic()
        except OSError:  # the client hung up: what it took is counted
            self.close_connection = True
