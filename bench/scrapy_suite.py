"""Scrapy's own test suite with our scheduler (issue 28): is it a drop-in?

Takes the tests from Scrapy's sdist at the installed version and runs the modules that
exercise the scheduler and the crawl around it (crawl, engine, scheduler, crawler,
closespider, signals, spider middlewares, request, dupefilters, downloader slots, scraper,
media pipelines in a crawl, log formatter: 396 tests) in three configurations:

- ``scrapy``: Scrapy's own scheduler, Scrapy unchanged (the reference);
- ``ours``: ``SCHEDULER = "crawler.scheduler.Scheduler"``;
- ``addon``: ``ADDONS = {"crawler.addon.ClusterAddon": 0}``.

Ours and the add-on are set at Scrapy's lowest settings priority (``default``, by patching
``scrapy.settings.default_settings`` in each test process), so a test that sets its own
scheduler or add-ons still gets them. Each test process (each pytest-xdist worker) gets a
fresh ``CRAWLER_STATE_DIR`` (so a fresh embedded Redis state) and
``CRAWLER_ALLOW_PRIVATE_ADDRESSES=True`` (the mock server is on loopback). The same plugin
counts the tests that really opened our scheduler (``crawler.scheduler.Scheduler.open``).

Every test that passes with Scrapy's scheduler must pass with ours, bare and with the
add-on, except :data:`EXCLUDED` (tests of Scrapy's own scheduler's internals, each with why).
After each configuration, redis-servers (and their watchdogs) started by that
configuration's tests and still running are counted, then stopped by pid.

Setup, all under ``bench/work/scrapy_suite/`` (gitignored): the sdist (``pip download
--no-binary :all:``, PyPI), unpacked; a venv of its own (``venv/``) layered on the project's
``.venv`` with a ``.pth`` file, plus the test requirements of Scrapy's tox.ini that these
modules need (pytest-twisted, pyftpdlib, ...), so the project's venv stays as it is; a
``git archive`` snapshot of the last commit's ``crawler/`` (``BENCH_CODE=worktree``: the
working tree instead), first on ``PYTHONPATH``.

Run: ``bench/run scrapy_suite`` (everything: writes ``bench/work/results/scrapy_suite.json``
and its section of ``bench/RESULTS.md``), or to iterate
``bench/run scrapy_suite --modules crawl,engine_loop --configs ours``
(a subset compares against the last full run's reference results and prints, writing
``bench/work/scrapy_suite/last_partial.json`` only). ``--render`` rewrites the RESULTS.md
section from the JSON (``bench/run report`` keeps the section as it is).
Per-configuration logs: ``bench/work/scrapy_suite/runs/<config>/pytest.log``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import signal
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
WORK = BENCH / "work" / "scrapy_suite"
RESULTS = BENCH / "work" / "results"
SECTION = "scrapy_suite"
OPENED = "scrapy_suite_opened_ours"

CONFIGS = {
    "scrapy": "Scrapy's own scheduler",
    "ours": '`SCHEDULER = "crawler.scheduler.Scheduler"`',
    "addon": '`ADDONS = {"crawler.addon.ClusterAddon": 0}`',
}

# The modules of issue 28 (396 tests with Scrapy 2.19.0); `--modules` takes these short
# names, or any tests/test_<name>.py of the sdist, or a glob such as 'spidermiddleware*'.
MODULES = [
    "crawl", "engine", "engine_close_spider", "engine_loop", "engine_stop_download_bytes",
    "engine_stop_download_headers", "scheduler", "crawler", "closespider", "signals",
    "spidermiddleware*", "request_left", "request_cb_kwargs", "dupefilters",
    "downloaderslotssettings", "core_scraper", "pipeline_crawl", "logformatter",
]

# Tests of Scrapy's own scheduler class and its queue settings, not of the Scheduler
# interface: a different scheduler cannot pass them and need not.
EXCLUDED = {
    "tests/test_engine_close_spider.py::test_exception_scheduler":
        "deletes `Scheduler.dqs`, the disk queue attribute of Scrapy's scheduler, to make its "
        "close() fail",
    "tests/test_engine_loop.py::TestRequestSendOrder::test_lifo_start":
        "sets `SCHEDULER_START_MEMORY_QUEUE` to a LIFO queue of Scrapy's scheduler and expects "
        "its order",
    "tests/test_engine_loop.py::TestRequestSendOrder::test_shared_queues":
        "sets `SCHEDULER_START_MEMORY_QUEUE = None` (start requests share Scrapy's LIFO memory "
        "queue) and expects that order",
}
# With the add-on only (none since the add-on leaves DUPEFILTER_CLASS at Scrapy's default).
EXCLUDED_ADDON: dict[str, str] = {}

# Issue 28's numbered incompatibilities: a failure is put in the first group whose test
# names or failure text match (`text` is searched in the failure's report and captured log).
CAUSES = [
    ("1", ("`dont_filter` start requests deduplicated anyway; a `DUPEFILTER_CLASS` other than "
           "the Bloom filter ignored or refused"),
     [r"test_start_dupes", r"test_engine\.py::TestEngine::test_crawler",
      r"test_engine_stop_download", r"test_integration_downloader_aware_priority_queue"],
     [r"DUPEFILTER_CLASS \(.*\) must be"]),
    ("2", "a request whose meta or callback is not JSON is dropped",
     [r"test_referer_header", r"test_unserializable_requests"],
     [r"not JSON serializable", r"is not an instance method", r"Unable to serialize"]),
    ("3", "`Request.priority` ignored (FIFO per host)",
     [r"TestRequestSendOrder::test_default"], []),
    ("4", "`scheduler_empty` fires while requests are still queued (lazy start)",
     [r"TestRequestSendOrder::test_lazy"], []),
    ("5", "per-host gate stacks on `DOWNLOAD_SLOTS` / `download_slot` delays",
     [r"test_downloaderslotssettings\.py::test_delay"], []),
    ("6a", ("add-on: `NotAPageFilter` stops binary downloads (media pipelines; a spider's own "
            "`StopDownload` from `bytes_received`/`headers_received` arrives as "
            "`IgnoreRequest('Not a page')`)"),
     [r"test_pipeline_crawl"], [r"Not a page"]),
    ("6b", "add-on: `ProgressExtension.item_scraped` TypeError on non-dict items",
     [], [r"ProgressExtension\.item_scraped"]),
    ("6c", ("add-on: `DOWNLOAD_DELAY` and `DEPTH_LIMIT` set to 0 at command-line priority (the "
            "spider's `download_delay` ignored; Scrapy's DepthMiddleware no longer limits)"),
     [r"download_delay", r"test_spidermiddleware_depth"], [r"download_delay"]),
    ("6f", ("add-on: BloomDupeFilter is the default `DUPEFILTER_CLASS`; Scrapy's dupefilter "
            "tests get it"), [r"test_dupefilters"], []),
    ("6e", ("add-on: its spider middlewares need a running engine (`node_of` reads "
            "`crawler.engine`, which raises outside a crawl)"),
     [], [r"Crawler\.engine is not set yet"]),
    ("6d", "`scheduler/enqueued` and `scheduler/dequeued` stats missing",
     [], [r"scheduler/(en|de)queued"]),
    ("7", ("a second crawl in one process resumes the first one's frontier (the test passes "
           "when run again with a fresh state dir of its own, or crawls twice itself)"), [], []),
    ("8", "each crawl at least 7 s longer (idle close, embedded Redis): timeouts",
     [], [r"Failed: Timeout >"]),
    ("P", ("1 request per host in flight (`CRAWLER_HOST_MAX_INFLIGHT=1`) where Scrapy allows "
           "`CONCURRENT_REQUESTS_PER_DOMAIN=8`: a crawl of one host without delay is serial "
           "(`frontier/politeness_waits`)"), [], [r"test total or delay values are too small"]),
    ("E", ("the lone node's quick finish (\"The frontier is empty and nothing is leased: "
           "finishing\") with requests still queued (`frontier/queued` > `frontier/dequeued`)"),
     [], []),
    ("L", ("not ours: a `scrapy fetch` subprocess (Scrapy's scheduler, no plugin) over its 15 s "
           "limit on the loaded machine"), [r"TestEngine::test_short_timeout"], []),
    ("R", ("passes when run again alone with a fresh state: order-dependent (a crawl state "
           "shared with an earlier test of the process, 7) or flaky"), [], []),
]

TEST_DEPS = {  # import name -> pip requirement (Scrapy's tox.ini [test-requirements])
    "pytest": "pytest", "pytest_twisted": "pytest-twisted>=1.14.3", "xdist": "pytest-xdist",
    "pytest_timeout": "pytest-timeout", "attr": "attrs", "pyftpdlib": "pyftpdlib>=2.0.1",
    "pexpect": "pexpect>=4.8.0", "psutil": "psutil", "pygments": "pygments",
    "sybil": "sybil>=1.3.0", "PIL": "Pillow",
}


# -- the pytest plugin (``-p scrapy_suite`` in every test process) ----------------------

_current_item = None
_records: dict[str, dict] = {}


def pytest_configure(config) -> None:
    config_name = os.environ.get("SCRAPY_SUITE_CONFIG")
    if not config_name or config_name == "scrapy":
        return
    from scrapy.settings import default_settings

    root = Path(os.environ["SCRAPY_SUITE_STATE_ROOT"])
    root.mkdir(parents=True, exist_ok=True)
    state = tempfile.mkdtemp(prefix=f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-",
                             dir=root)
    # the lowest priority: Settings() reads default_settings' attributes afresh each time
    default_settings.CRAWLER_STATE_DIR = state
    default_settings.CRAWLER_ALLOW_PRIVATE_ADDRESSES = True
    # the add-on sets every CRAWLER_* default at its own priority, above `default`: its
    # defaults too (else its crawls share ./.crawler-state of the project above the sdist)
    from crawler.settings_defaults import DEFAULTS

    DEFAULTS["CRAWLER_STATE_DIR"] = state
    DEFAULTS["CRAWLER_ALLOW_PRIVATE_ADDRESSES"] = True
    if config_name == "ours":
        default_settings.SCHEDULER = "crawler.scheduler.Scheduler"
    elif config_name == "addon":
        default_settings.ADDONS = {**default_settings.ADDONS, "crawler.addon.ClusterAddon": 0}
    import crawler.scheduler

    cls = crawler.scheduler.Scheduler
    original = cls.open

    @functools.wraps(original)
    def open_(self, *args, **kwargs):
        item = _current_item
        if item is not None and not any(k == OPENED for k, _ in item.user_properties):
            item.user_properties.append((OPENED, True))
        return original(self, *args, **kwargs)

    cls.open = open_


def pytest_runtest_protocol(item, nextitem):
    global _current_item
    _current_item = item
    if os.environ.get("SCRAPY_SUITE_STATE") == "per-test":  # the recheck: a fresh state
        from scrapy.settings import default_settings

        from crawler.settings_defaults import DEFAULTS

        state = tempfile.mkdtemp(prefix="t-", dir=os.environ["SCRAPY_SUITE_STATE_ROOT"])
        default_settings.CRAWLER_STATE_DIR = DEFAULTS["CRAWLER_STATE_DIR"] = state


def pytest_runtest_logreport(report) -> None:
    """Collect outcomes where every report arrives: the controller, or the only process."""
    if not os.environ.get("SCRAPY_SUITE_RECORD") or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    r = _records.setdefault(report.nodeid, {"outcome": None, "opened": False,
                                            "seconds": 0.0, "message": ""})
    r["seconds"] = round(r["seconds"] + (report.duration or 0.0), 3)
    if any(k == OPENED for k, _ in report.user_properties):
        r["opened"] = True
    if r["outcome"] in ("failed", "error"):
        return
    if report.failed:
        r["outcome"] = "failed" if report.when == "call" else "error"
        crash = getattr(report.longrepr, "reprcrash", None)
        r["message"] = (crash.message if crash else str(report.longrepr))[:400]
        text = report.longreprtext
        for name, content in report.sections:
            if "log" in name or "stderr" in name:
                text += "\n" + content
        r["served"] = re.findall(r"Embedded Redis \S+ serving (\S+)", text)
        r["text"] = text if len(text) <= 12000 else text[:6000] + "\n[...]\n" + text[-6000:]
    elif report.skipped and report.when in ("setup", "call"):
        r["outcome"] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
    elif report.passed and report.when == "call":
        r["outcome"] = "passed"


def pytest_sessionfinish(session) -> None:
    path = os.environ.get("SCRAPY_SUITE_RECORD")
    if path and not os.environ.get("PYTEST_XDIST_WORKER"):

        Path(path).write_text(json.dumps(_records, indent=0))


# -- the job ------------------------------------------------------------------------------

def sh(*cmd, **kw):

    return subprocess.run([str(c) for c in cmd], check=True, text=True, **kw)


def scrapy_version() -> str:

    return subprocess.run([ROOT / ".venv/bin/python", "-c",
                           "import scrapy; print(scrapy.__version__)"],
                          check=True, text=True, capture_output=True).stdout.strip()


def get_sdist(version: str) -> Path:

    src = WORK / f"scrapy-{version}"
    if (src / "tests").is_dir():
        return src
    cache = WORK / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    tarball = cache / f"scrapy-{version}.tar.gz"
    if not tarball.exists():
        print(f"downloading Scrapy {version}'s sdist", flush=True)
        sh(ROOT / ".venv/bin/python", "-m", "pip", "download", "-q", "--no-deps",
           "--no-binary", ":all:", f"scrapy=={version}", "-d", cache)
    with tarfile.open(tarball) as tar:
        tar.extractall(WORK, filter="data")
    return src


def get_venv() -> Path:
    """A venv of the suite's own over the project's .venv (a .pth file): test deps only."""

    python = WORK / "venv/bin/python"
    if not python.exists():
        sh(ROOT / ".venv/bin/python", "-m", "venv", WORK / "venv")
        site = subprocess.run([ROOT / ".venv/bin/python", "-c",
                               "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              check=True, text=True, capture_output=True).stdout.strip()
        mine = subprocess.run([python, "-c",
                               "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              check=True, text=True, capture_output=True).stdout.strip()
        (Path(mine) / "zz_project_venv.pth").write_text(site + "\n")
    missing = [req for mod, req in TEST_DEPS.items()
               if subprocess.run([python, "-c", f"import {mod}"],
                                 capture_output=True, check=False).returncode]
    if missing:
        print("installing into the suite's venv:", " ".join(missing), flush=True)
        sh(python, "-m", "pip", "install", "-q", *missing)
    return python


def code_under_test() -> tuple[Path, str]:
    """The last commit's crawler/ (git archive), or the working tree (BENCH_CODE=worktree)."""

    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            text=True, capture_output=True, check=False).stdout.strip() or "unknown"
    if os.environ.get("BENCH_CODE") == "worktree":
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "crawler"],
                               text=True, capture_output=True, check=False).stdout.strip()
        return ROOT, commit + ("+worktree" if dirty else "")
    code = WORK / "code"
    sh("rm", "-rf", code)
    code.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", ROOT, "archive", "HEAD", "crawler", "scrapy.cfg"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", code], input=archive, check=True)
    (code / "COMMIT").write_text(commit + "\n")
    return code, commit


def module_files(src: Path, names: list[str]) -> list[str]:
    files: list[str] = []
    for name in names:
        name = name.removeprefix("tests/").removeprefix("test_").removesuffix(".py")
        found = sorted(p.relative_to(src).as_posix() for p in src.glob(f"tests/test_{name}.py"))
        if not found:
            raise SystemExit(f"no module tests/test_{name}.py in {src}")
        files += [f for f in found if f not in files]
    return files


def suite_processes(run_dir: Path) -> list[tuple[int, str]]:
    """redis-servers and embedded watchdogs whose command line names *run_dir*."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(run_dir) in cmd and ("redis-server" in cmd or "embedded_watchdog" in cmd):
            found.append((int(proc.name), cmd.strip()))
    return found


def all_redis_servers() -> int:

    out = subprocess.run(["pgrep", "-f", "redis-server"], text=True, capture_output=True,
                         check=False).stdout
    return len(out.split())


def stop(pids: list[int]) -> None:

    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.time() + 5
        while time.time() < deadline and any(Path(f"/proc/{p}").exists() for p in pids):
            time.sleep(0.2)


def run_config(name: str, python: Path, src: Path, code: Path, files: list[str],
               args, recheck: bool = False) -> dict:
    """Run *files* (or test ids) in configuration *name*; with *recheck*, each test gets a
    fresh state dir of its own and INFO logs are captured (the failures' second look)."""
    run_dir = WORK / "runs" / (name + ("-recheck" if recheck else ""))
    sh("rm", "-rf", run_dir)
    (run_dir / "tmp").mkdir(parents=True)
    plugin_dir = WORK / "plugin"
    plugin_dir.mkdir(parents=True, exist_ok=True)
    link = plugin_dir / "scrapy_suite.py"
    if not link.is_symlink():
        link.unlink(missing_ok=True)
        link.symlink_to(Path(__file__).resolve())
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(code), str(plugin_dir)]),
           "SCRAPY_SUITE_CONFIG": name,
           "SCRAPY_SUITE_STATE_ROOT": str(run_dir / "state"),
           "SCRAPY_SUITE_RECORD": str(run_dir / "records.json"),
           "TMPDIR": str(run_dir / "tmp"),  # the embedded Redis' socket dir: names the run
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    if recheck:
        env["SCRAPY_SUITE_STATE"] = "per-test"
    if name != "scrapy":
        env["CRAWLER_ALLOW_PRIVATE_ADDRESSES"] = "True"
        check = subprocess.run([python, "-c", "import crawler.scheduler, crawler.addon"],
                               env=env, cwd=run_dir, text=True, capture_output=True, check=False)
        if check.returncode:
            raise SystemExit(f"{name}: our code does not import ({code}):\n"
                             + check.stderr[-2000:])
    cmd = ["timeout", "-k", "30", str(args.config_timeout), python, "-m", "pytest",
           "-p", "scrapy_suite", "-p", "no:cacheprovider", "-q", "--tb=short", "-rfE",
           f"--timeout={args.test_timeout}"]
    if recheck:
        cmd += ["-o", "log_level=INFO"]
    if args.workers > 1 and len(files) > 1:
        cmd += ["-n", str(min(args.workers, len(files))), "--dist", "worksteal"]
    cmd += files
    redis_before = all_redis_servers()
    project_state = ROOT / ".crawler-state"
    state_before = set(os.listdir(project_state)) if project_state.is_dir() else set()
    print(f"[{run_dir.name}] {len(files)} {'tests' if recheck else 'modules'}, "
          f"{args.workers} workers ... "
          f"(log: {run_dir / 'pytest.log'})", flush=True)
    started = time.monotonic()
    with open(run_dir / "pytest.log", "w") as log:
        rc = subprocess.run([str(c) for c in cmd], cwd=src, env=env, stdout=log,
                            stderr=subprocess.STDOUT, check=False).returncode
    seconds = time.monotonic() - started
    left_at_exit = suite_processes(run_dir)
    time.sleep(args.grace)  # the watchdogs' idle exit is 10 s
    left_after = suite_processes(run_dir)
    if left_after:
        (run_dir / "leftover.txt").write_text("\n".join(f"{p} {c}" for p, c in left_after))
        stop([p for p, _ in left_after])
    leaked = sorted((set(os.listdir(project_state)) if project_state.is_dir() else set())
                    - state_before)
    if leaked:
        print(f"[{run_dir.name}] crawl states written into {project_state}: {leaked}")
    records = json.loads((run_dir / "records.json").read_text()) \
        if (run_dir / "records.json").exists() else {}
    tail = (run_dir / "pytest.log").read_text(errors="replace").strip().splitlines()[-1:]
    result = {
        "seconds": round(seconds, 1), "returncode": rc, "timed_out": rc in (124, 137),
        "summary": tail[0] if tail else "",
        "redis_servers_before": redis_before,
        "left_at_exit": sum("redis-server" in c for _, c in left_at_exit),
        "watchdogs_at_exit": sum("embedded_watchdog" in c for _, c in left_at_exit),
        "left_after_grace": sum("redis-server" in c for _, c in left_after),
        "watchdogs_after_grace": sum("embedded_watchdog" in c for _, c in left_after),
        "grace_s": args.grace,
        "left_after_stop": len(suite_processes(run_dir)),
        "project_state_dirs_written": leaked,
        "tests": records,
    }
    counts = tally(records)
    print(f"[{run_dir.name}] {seconds:.0f} s, rc {rc}: {counts}; opened ours: "
          f"{sum(r['opened'] for r in records.values())}; redis-servers left at exit "
          f"{result['left_at_exit']}, after {args.grace:g} s {result['left_after_grace']} "
          "(stopped)", flush=True)
    return result


def tally(records: dict) -> dict:
    counts: dict[str, int] = {}
    for r in records.values():
        counts[r["outcome"] or "unknown"] = counts.get(r["outcome"] or "unknown", 0) + 1
    return dict(sorted(counts.items()))


def cause_of(nodeid: str, record: dict, config: str) -> str:
    text = record.get("message", "") + "\n" + record.get("text", "")
    for key, title, names, texts in CAUSES:
        if key.startswith("6") and config != "addon":
            continue
        if any(re.search(p, nodeid) for p in names) or any(re.search(p, text) for p in texts):
            return key
        if key == "7":  # the test's own crawls: a second one opened the first one's state
            served = record.get("served") or re.findall(r"Embedded Redis \S+ serving (\S+)",
                                                        text)
            if len(served) > len(set(served)):
                return key
    return "?"


def finished_early(record: dict) -> bool:
    """The crawl's node finished on an empty frontier with requests still queued."""
    text = record.get("text", "")
    if "nothing is leased: finishing" not in text:
        return False
    queued = re.findall(r"'frontier/queued': (\d+)", text)
    dequeued = re.findall(r"'frontier/dequeued': (\d+)", text)
    return any(int(q) > int(dq) for q, dq in zip(queued, dequeued, strict=False))


def compare(configs: dict) -> dict:
    """Per configuration of ours: tests that pass with Scrapy's and not with ours.

    A failure that passes when rechecked alone, with a fresh state dir of its own, is
    order-dependent (the state an earlier crawl of the process left: issue 28's 7) or flaky.
    """
    base = configs.get("scrapy", {}).get("tests", {})
    passing = {n for n, r in base.items() if r["outcome"] == "passed"}
    out = {}
    for name, data in configs.items():
        if name == "scrapy":
            continue
        tests = data["tests"]
        again = data.get("recheck", {}).get("tests", {})
        lost = sorted(n for n in passing if tests.get(n, {}).get("outcome") != "passed")
        excluded = EXCLUDED | (EXCLUDED_ADDON if name == "addon" else {})
        out[name] = {
            "of_reference": len(passing),
            "pass_of_reference": len(passing) - len(lost),
            "opened_ours": sum(r["opened"] for r in tests.values()),
            "opened_ours_of_reference": sum(tests.get(n, {}).get("opened", False)
                                            for n in passing),
            "failing": [{"test": n, "outcome": tests.get(n, {}).get("outcome") or "missing",
                         "message": tests.get(n, {}).get("message", ""),
                         "opened_ours": tests.get(n, {}).get("opened", False),
                         "recheck": again.get(n, {}).get("outcome"),
                         "cause": "E" if finished_early(tests.get(n, {}))
                         or finished_early(again.get(n, {}))
                         else "R" if again.get(n, {}).get("outcome") == "passed"
                         and not n.endswith("::test_short_timeout")
                         else cause_of(n, again.get(n) or tests.get(n, {}), name)}
                        for n in lost if n not in excluded],
            "excluded_failing": [n for n in lost if n in excluded],
            "gained": sorted(n for n, r in tests.items()
                             if r["outcome"] == "passed" and n not in passing),
        }
    return out


def render(d: dict) -> list[str]:
    """RESULTS.md's section."""
    cmp_, cfg = d["compare"], d["configs"]
    base = cfg.get("scrapy", {})
    ref = next(iter(cmp_.values()))["of_reference"] if cmp_ else \
        tally(base.get("tests", {})).get("passed", 0)
    modules = ", ".join(m.removeprefix("tests/test_").removesuffix(".py") for m in d["modules"])
    lines = ["## 10. Scrapy's own test suite with our scheduler (issue 28)", "",
             (f"Commit `{d['commit']}`, {d['date']}. Scrapy {d['scrapy']}'s tests from its "
              f"sdist: {len(d['modules'])} modules ({modules}), {d['collected']} tests, "
              f"{d['workers']} pytest-xdist workers. Ours and the add-on are set at the lowest "
              "settings priority (`default`), so a test that sets its own scheduler keeps it; "
              "each test process has a fresh `CRAWLER_STATE_DIR` and "
              "`CRAWLER_ALLOW_PRIVATE_ADDRESSES=True`. Each failure is run again alone with a "
              "fresh state and INFO logs (\"recheck alone\"). `bench/run scrapy_suite` "
              "(`bench/scrapy_suite.py`)."), "",
             (f"| scheduler | pass, of the {ref} that pass with Scrapy's own | all outcomes "
              "| opened ours | wall time | redis-servers left at exit (after the grace) |"),
             "|---|---|---|---|---|---|"]
    for name, data in cfg.items():
        counts = ", ".join(f"{k} {v}" for k, v in tally(data["tests"]).items())
        if name == "scrapy":
            passed = str(ref)
            opened = "-"
        else:
            c = cmp_[name]
            passed = (f"{c['pass_of_reference']} ({len(c['failing'])} fail, "
                      f"{len(c['excluded_failing'])} excluded)")
            opened = f"{c['opened_ours']} ({c['opened_ours_of_reference']} of the {ref})"
        timeout = " (timed out)" if data.get("timed_out") else ""
        lines.append(f"| {CONFIGS[name]} | {passed} | {counts} | {opened} | "
                     f"{data['seconds'] / 60:.1f} min{timeout} | {data['left_at_exit']} "
                     f"({data['left_after_grace']} after {data['grace_s']:g} s) |")
    lines += ["", f"Whole job, with setup and the rechecks: {d['seconds'] / 60:.1f} min."]
    titles = {key: title for key, title, _, _ in CAUSES}
    titles["?"] = "not classified"
    for name, c in cmp_.items():
        lines += ["", (f"Failing with {CONFIGS[name]}, passing with Scrapy's, by cause (issue "
                       "28's numbers where it names the cause, letters for new ones):"), ""]
        if not c["failing"]:
            lines += ["none"]
        groups: dict[str, list[dict]] = {}
        for f in c["failing"]:
            groups.setdefault(f["cause"], []).append(f)
        for key in [k for k, *_ in CAUSES] + ["?"]:
            for i, f in enumerate(groups.get(key, [])):
                head = f"- {key}. {titles[key]}:" if i == 0 else None
                if head:
                    lines.append(head)
                msg = headline(cfg[name]["tests"].get(f["test"], {})) or f["outcome"]
                notes = [f["outcome"]] + ([] if f["opened_ours"] else ["ours not opened"]) + (
                    [f"recheck alone: {f['recheck']}"] if f.get("recheck") else [])
                lines.append(f"  - `{f['test'].removeprefix('tests/')}` ({', '.join(notes)}): "
                             f"{msg}")
    lines += ["", "Excluded (tests of Scrapy's own scheduler's internals):", ""]
    lines += [f"- `{t.removeprefix('tests/')}`: {why}" for t, why in EXCLUDED.items()]
    lines += [f"- with the add-on only, which makes BloomDupeFilter the default "
              f"`DUPEFILTER_CLASS`: `{t.removeprefix('tests/')}`: {why}"
              for t, why in EXCLUDED_ADDON.items()]
    return lines + [""]


def headline(record: dict) -> str:
    """The failure in one line: the first exception of a chain, with the failing source
    line when the assertion says nothing."""
    text, message = record.get("text", ""), record.get("message", "")
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("E   ")), None)
    if first is None:
        return message.splitlines()[0][:160] if message else ""
    error = lines[first][4:].strip()
    if "During handling of the above exception" not in text:
        error = message.splitlines()[0] if message else error
    if error.removeprefix("AssertionError: ") in ("AssertionError", "assert False"):
        after = lines[first + 1] if first + 1 < len(lines) else ""
        before = [line.strip() for line in lines[:first] if line.strip(" ^~")]
        if after.startswith("E    +  where"):
            error = f"{error}, {after[4:].strip()}"
        elif before:
            error = f"{before[-1]} -> {error}"
    return error[:200]


def write_section(d: dict) -> None:
    results = BENCH / "RESULTS.md"
    text = results.read_text() if results.exists() else ""
    start, end = f"<!-- {SECTION}:start -->", f"<!-- {SECTION}:end -->"
    block = "\n".join([start, *render(d), end])
    if start in text and end in text:
        text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
    else:  # after the numbered sections, before the hand-written analysis
        analysis = BENCH / "ANALYSIS.md"
        first = analysis.read_text().splitlines()[0] if analysis.exists() else None
        if first and ("\n" + first + "\n") in text:
            i = text.index("\n" + first + "\n") + 1
            text = text[:i] + block + "\n\n" + text[i:]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
    results.write_text(text)
    print(f"wrote its section of {results}")


_lock_file = None


def exclusive() -> None:
    """Wait for any other run of this job (their runs/ and code/ would be wiped under it);
    the lock is held until this process ends."""
    import fcntl

    global _lock_file

    WORK.mkdir(parents=True, exist_ok=True)
    lock = open(WORK / ".lock", "a+")  # noqa: SIM115 - held until the process ends
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        print(f"waiting for another run of this job ({lock.read().strip()})", flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    lock.seek(0)
    lock.truncate()
    lock.write(f"pid {os.getpid()}, since {time.strftime('%H:%M:%S')}\n")
    lock.flush()
    _lock_file = lock


def recheck(results: dict, python: Path, src: Path, code: Path, args) -> None:
    """Run each configuration's failures again, each test with a fresh state of its own."""
    if "scrapy" not in results:
        return
    for name, c in compare({n: r for n, r in results.items()
                            if n == "scrapy" or not r.get("from_last_full_run")}).items():
        if ids := [f["test"] for f in c["failing"]]:
            results[name]["recheck"] = run_config(name, python, src, code, ids, args,
                                                  recheck=True)


def summary(d: dict) -> None:
    for name, c in d["compare"].items():
        print(f"\n{name}: {c['pass_of_reference']} of {c['of_reference']} pass; "
              f"{c['opened_ours']} opened ours")
        for f in c["failing"]:
            print(f"  [{f['cause']}] {f['test']} ({f['outcome']}, recheck {f['recheck']}): "
                  f"{f['message'][:150]}")
        for n in c["excluded_failing"]:
            print(f"  [excluded] {n}")
    print(f"\nwhole job {d['seconds'] / 60:.1f} min; redis-servers running now (anyone's): "
          f"{d['redis_servers_after']}")


def main() -> None:

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modules", default=",".join(MODULES),
                   help="comma-separated: crawl,engine_loop,'spidermiddleware*' "
                        "(tests/test_<name>.py of Scrapy's sdist)")
    p.add_argument("--configs", default=",".join(CONFIGS), help="of " + ",".join(CONFIGS))
    p.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (1: none)")
    p.add_argument("--test-timeout", type=int, default=300, help="seconds per test")
    p.add_argument("--config-timeout", type=int, default=2700, help="seconds per configuration")
    p.add_argument("--grace", type=float, default=15.0,
                   help="seconds after a configuration before counting leftover redis-servers")
    p.add_argument("--no-recheck", action="store_true",
                   help="do not run the failures again, each with a fresh state of its own")
    p.add_argument("--recheck", action="store_true",
                   help="only recheck the last full run's failures (its code snapshot), render")
    p.add_argument("--render", action="store_true",
                   help="only rewrite RESULTS.md's section from the last full run's JSON")
    args = p.parse_args()
    full_json = RESULTS / f"{SECTION}.json"
    if args.render or args.recheck:  # the comparison again: CAUSES, EXCLUDED may have changed
        d = json.loads(full_json.read_text())
        exclusive()
        if args.recheck:
            started = time.monotonic()
            code = WORK / "code" if (WORK / "code" / "COMMIT").exists() else ROOT
            rechecked = (code / "COMMIT").read_text().strip() if code != ROOT else "worktree"
            if rechecked != d["commit"] and code != ROOT:
                raise SystemExit(f"the snapshot is {rechecked}, the run measured {d['commit']}")
            recheck(d["configs"], get_venv(), get_sdist(d["scrapy"]), code, args)
            d["seconds"] = round(d["seconds"] + time.monotonic() - started, 1)
        d["excluded"] = {**EXCLUDED, **{t: "add-on: " + w for t, w in EXCLUDED_ADDON.items()}}
        d["compare"] = compare(d["configs"])
        full_json.write_text(json.dumps(d, indent=1))
        summary(d)
        write_section(d)
        return
    configs = [c for c in args.configs.split(",") if c]
    if unknown := set(configs) - set(CONFIGS):
        raise SystemExit(f"unknown configurations {unknown}: {', '.join(CONFIGS)}")
    modules = [m for m in args.modules.split(",") if m]
    partial = modules != MODULES or set(configs) != set(CONFIGS)

    exclusive()  # one run at a time: runs/ and code/ are shared, and so are the 2 cores
    started = time.monotonic()
    version = scrapy_version()
    src = get_sdist(version)
    python = get_venv()
    code, commit = code_under_test()
    files = module_files(src, modules)
    print(f"Scrapy {version}; code under test: {commit} ({code}); redis-servers running "
          f"before: {all_redis_servers()}", flush=True)
    results: dict[str, dict] = {}
    for name in CONFIGS:
        if name in configs:
            results[name] = run_config(name, python, src, code, files, args)
    if not args.no_recheck:
        recheck(results, python, src, code, args)
    if partial and full_json.exists():  # the reference and other configurations, last full run
        last = json.loads(full_json.read_text())["configs"]
        for name, data in last.items():
            if name not in results:
                keep = {n: r for n, r in data["tests"].items()
                        if any(n.startswith(f + "::") for f in files)}
                results[name] = {**data, "tests": keep, "from_last_full_run": True}
        results = {n: results[n] for n in CONFIGS if n in results}
    collected = max((len(r["tests"]) for r in results.values()), default=0)
    d = {"commit": commit, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
         "scrapy": version, "modules": files, "collected": collected,
         "workers": args.workers,
         "excluded": {**EXCLUDED, **{t: "add-on: " + w for t, w in EXCLUDED_ADDON.items()}},
         "seconds": round(time.monotonic() - started, 1),
         "redis_servers_after": all_redis_servers(),
         "configs": results, "compare": compare(results) if "scrapy" in results else {}}
    summary(d)
    if partial:
        (WORK / "last_partial.json").write_text(json.dumps(d, indent=1))
        print(f"partial run: {WORK / 'last_partial.json'} (RESULTS.md unchanged)")
        return
    RESULTS.mkdir(parents=True, exist_ok=True)
    full_json.write_text(json.dumps(d, indent=1))
    print(f"wrote {full_json}")
    write_section(d)


if __name__ == "__main__":
    main()
