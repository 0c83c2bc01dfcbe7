"""``python -m crawler.demo`` (``bin/demo``): serve forums and blogs of real engines on 127.0.0.1,
crawl each with the ``forum`` or ``blog`` spider on the embedded Redis, then summarize.

The sites are the fixture sites of the extraction tests (:mod:`crawler.demo.fixtures`): by
default a phpBB and a Discuz! forum, a WordPress and a Hugo blog, each on a host (port) of its
own. The demo runs one crawl per site (the ``blog`` spider takes one site; a forum
gets a crawl of its own too, so each site's items and figures stand apart), side by side,
each with its own crawl id and state folder. The server records every
request, so the summary's politeness figures are measured where a site owner would see them.

Each crawl's items go to ``<output>/<site>.jl`` and its log to ``<output>/<site>.log``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.cells import cell_len, set_cell_size

from crawler.demo.fixtures import FixtureSites, available

PROJECT = Path(__file__).resolve().parents[2]
DEFAULT_SITES = ("phpbb", "discuz", "wordpress", "hugo")
#: The spider for each kind of site (``routes.json`` says ``kind``).
SPIDERS = {"forum": "forum", "blog": "blog"}


@dataclass
class Crawl:
    site: str
    spider: str
    items: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    returncode: int | None = None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bin/demo", description=__doc__.splitlines()[0])
    parser.add_argument("--sites", default=",".join(DEFAULT_SITES),
                        help=f"fixture sites to serve and crawl (of: {', '.join(available())})")
    parser.add_argument("--delay", type=float, default=0.2, help="DOWNLOAD_DELAY per host (s)")
    parser.add_argument("--latency", type=float, default=0.02, help="server latency (s)")
    parser.add_argument("--output", type=Path, default=Path("demo-output"),
                        help="folder for the items and logs (default: demo-output)")
    parser.add_argument("--state", type=Path, default=None,
                        help="state folder of the crawls (default: a temporary one, removed)")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.sites.split(",") if n.strip()]
    try:
        sites = FixtureSites(names, latency=args.latency)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.output.mkdir(parents=True, exist_ok=True)
    state = args.state or Path(tempfile.mkdtemp(prefix="crawler-demo-"))
    try:
        with sites:
            print(f"Serving {len(names)} sites on 127.0.0.1:")
            for name in names:
                print(f"  {name:<10} {sites.kind(name):<6} {sites.start_url(name)}")
            started = time.monotonic()
            crawls = run_crawls(sites, names, args, state)
            elapsed = time.monotonic() - started
        failed = [c for c in crawls if c.returncode]
        for crawl in failed:
            print(f"error: the crawl of {crawl.site} exited with status {crawl.returncode}; "
                  f"see {args.output / (crawl.site + '.log')}", file=sys.stderr)
        print()
        print(summary(crawls, sites, elapsed, args))
    finally:
        if args.state is None:
            shutil.rmtree(state, ignore_errors=True)
    return 1 if failed else 0


def run_crawls(sites: FixtureSites, names: list[str], args: argparse.Namespace,
               state: Path) -> list[Crawl]:
    """One ``scrapy crawl`` per site, all at once; wait for every one."""
    running: list[tuple[Crawl, subprocess.Popen[bytes], Any]] = []
    for name in names:
        crawl = Crawl(name, SPIDERS[sites.kind(name)])
        out, log = args.output / f"{name}.jl", args.output / f"{name}.log"
        cmd = [sys.executable, "-m", "scrapy", "crawl", crawl.spider,
               "-a", f"start_urls={sites.start_url(name)}", "-O", f"{out}:jsonlines",
               "-s", f"CRAWLER_CRAWL_ID={name}", "-s", f"CRAWLER_STATE_DIR={state}",
               "-s", f"CRAWLER_STATS_FILE={state / (name + '.stats.json')}",
               "-s", f"DOWNLOAD_DELAY={args.delay}",
               "-s", "CRAWLER_PROGRESS_INTERVAL=5",
               "-s", f"LOG_FILE={log}", "-s", "LOG_FILE_APPEND=False",
               "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True"]  # the demo's sites are on 127.0.0.1
        for key, value in sites.arguments(name).items():
            cmd += ["-a", f"{key}={value}"]
        print(f"Crawling {name} with `scrapy crawl {crawl.spider}` (log: {log})", flush=True)
        path = os.pathsep.join(filter(None, [str(PROJECT), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path}
        proc = subprocess.Popen(cmd, cwd=PROJECT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        running.append((crawl, proc, out))
    for crawl, proc, out in running:
        _, err = proc.communicate()
        crawl.returncode = proc.returncode
        if proc.returncode and err:
            sys.stderr.write(err.decode(errors="replace")[-2000:])
        if out.exists():
            lines = out.read_text(encoding="utf-8").splitlines()
            crawl.items = [json.loads(line) for line in lines if line]
        stats_file = state / f"{crawl.site}.stats.json"
        if stats_file.exists():
            crawl.stats = json.loads(stats_file.read_text())
        print(f"  {crawl.site}: {len(crawl.items)} items, "
              f"{crawl.stats.get('response_received_count', 0)} pages", flush=True)
    return [crawl for crawl, _, _ in running]


def summary(crawls: list[Crawl], sites: FixtureSites, elapsed: float,
            args: argparse.Namespace) -> str:
    kinds = Counter(item.get("item_type", "record") for c in crawls for item in c.items)
    pages = sum(c.stats.get("response_received_count", 0) for c in crawls)
    failures = sum(c.stats.get("outcomes/failed", 0) for c in crawls)
    lines = [
        "Demo summary",
        f"  threads   {kinds['thread']:>5}    posts     {kinds['post']:>5}",
        f"  articles  {kinds['article']:>5}    comments  {kinds['comment']:>5}",
        f"  pages     {pages:>5}    failures  {failures:>5}",
        f"  time      {elapsed:>5.1f}s   ({len(crawls)} crawls side by side, "
        f"including start-up)",
        f"  items in  {args.output}/<site>.jl, logs in {args.output}/<site>.log",
        "",
        "Sample posts",
    ]
    for crawl in crawls:
        for item in [i for i in crawl.items if i.get("item_type") in ("post", "article")][:2]:
            lines.append("  " + sample_line(crawl.site, item))
    lines += ["", f"Politeness, measured at the server (DOWNLOAD_DELAY {args.delay}s per host)"]
    for name, (peak, gap) in sites.politeness().items():
        gap_text = f"{gap:.2f}s" if gap != float("inf") else "-"
        lines.append(f"  {name:<10} at most {peak} request in flight, smallest gap between "
                     f"requests {gap_text}")
    return "\n".join(lines)


def sample_line(site: str, item: dict[str, Any]) -> str:
    """One sample: site, author, date, first words; padded by terminal cells (CJK is 2 wide)."""
    author = item.get("author")
    if isinstance(author, dict):
        author = author.get("name")
    date = (item.get("created") or item.get("published") or "")[:16].replace("T", " ")
    words = " ".join((item.get("body_text") or item.get("title") or "").split())
    if cell_len(words) > 60:
        words = set_cell_size(words, 59) + "…"
    return f"{site:<10} {set_cell_size(author or '?', 12)} {date:<16}  {words}"


if __name__ == "__main__":
    sys.exit(main())
