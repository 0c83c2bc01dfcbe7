"""The Public Suffix List comes from tldextract's bundled snapshot: a crawl whose site sets
domain cookies (Scrapy's cookies middleware then asks tldextract whether the domain is a
public suffix) makes no download attempt and logs no traceback on a node without network.

Network access is made impossible in the crawl's process: every ``requests`` send (what
tldextract fetches the list with) fails and says so on stderr; proxies point at a closed port;
tldextract's cache is an empty folder (a list cached by an earlier run would hide the attempt),
and stays empty. No Scrapy private attribute is touched: tldextract's own environment switches.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.helpers import ROOT

NO_NETWORK = """
import sys, requests
def send(self, request, **kwargs):
    sys.stderr.write("NETWORK ATTEMPT " + request.url + "\\n")
    raise requests.ConnectionError("no network here")
requests.Session.send = send
from scrapy.cmdline import execute
sys.argv = ["scrapy", *sys.argv[1:]]
execute()
"""


class CookieSite(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        body = b'<html><body><a href="/next">next</a></body></html>'
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Set-Cookie", "session=1; Domain=.co.uk; Path=/")  # a public suffix
        self.send_header("Set-Cookie", f"pref=2; Domain={self.headers['Host'].split(':')[0]}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_crawl_does_not_download_the_public_suffix_list(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), CookieSite)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    dead = "http://127.0.0.1:9"
    cache = tmp_path / "home" / ".cache"  # where tldextract caches by default (XDG)
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(cache),
           "HTTP_PROXY": dead, "HTTPS_PROXY": dead, "http_proxy": dead, "https_proxy": dead,
           "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
    for name in ("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "TLDEXTRACT_CACHE"):
        env.pop(name, None)
    try:
        result = subprocess.run(
            [sys.executable, "-c", NO_NETWORK, "crawl", "follow",
             "-a", f"start_urls=http://127.0.0.1:{server.server_port}/",
             "-s", f"CRAWLER_STATE_DIR={tmp_path / 'state'}", "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True",
             "-s", "CRAWLER_IDLE_CLOSE=1", "-s", "DOWNLOAD_DELAY=0", "-s", "ROBOTSTXT_OBEY=False",
             "-s", "COOKIES_DEBUG=True", "-s", "LOG_LEVEL=DEBUG"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    finally:
        server.shutdown()
        server.server_close()
    log = result.stderr
    assert result.returncode == 0, log[-3000:]
    assert "Received cookies from" in log  # the cookies middleware did process them
    assert "NETWORK ATTEMPT" not in log, [line for line in log.splitlines() if "NETWORK" in line]
    assert "Traceback" not in log and "tldextract" not in log, log[-3000:]
    assert not cache.exists() or not any(cache.rglob("*.json")), "no list cached"
