"""Write the benchmark's static multi-host forum into a folder, one sub-folder per host address.

The forum is the demo's generated forum (``tests.sitekit.content``) in the bench's shape:
paginated boards listing 20 threads per page, threads of 1-6 pages of 14 posts, a few KB of
template on every page, 60-140% of ``--pages`` pages per host, about 30% of threads linking a
page of another host. The folder names are the host addresses (127.0.1.1,
127.0.1.2, ...) so nginx can serve ``root site/$server_addr``; links to other hosts point at
nginx's port. ``latency_server.py`` serves the same forum from :func:`bench_forum`.

    python bench/site_gen.py --hosts 200 --pages 205 --out bench/work/site
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
from pathlib import Path

# the project's root: the generated forum lives in its tests/ (bench/common.py sets it too)
if str(Path(__file__).resolve().parents[1]) not in sys.path:
    sys.path.append(str(Path(__file__).resolve().parents[1]))

from tests.sitekit.content import ForumShape, GeneratedForum, with_origins  # noqa: E402

# nginx; the latency server serves the same forum on its own port. BENCH_NGINX_PORT: another
# port, for a bench beside one already running on this machine
PORT = int(os.environ.get("BENCH_NGINX_PORT", "18480"))
SEED = 5
# Pages of 5-15 KB (mean 11.5) with about 5 links each, as the bench's earlier forum had.
SHAPE = ForumShape(boards=4, threads_per_page=20, posts_per_page=14, max_thread_pages=6,
                   static_paths=True, template_words=500, board_nav=False)
VERSION = 4  # of the site's content: a change regenerates bench/work/site


def host_address(index: int) -> str:
    """Host *index* (0-based) -> a loopback address; Linux routes all of 127/8 to lo."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


def bench_forum(hosts: int, pages: int, seed: int = SEED) -> GeneratedForum:
    """The forum of the bench site: host i has a seeded 60-140% of *pages* pages."""
    targets = [random.Random(f"{seed}:size:{i}").randint(pages * 6 // 10, pages * 14 // 10) for i in range(hosts)]
    return GeneratedForum(hosts, targets, seed, shape=SHAPE)


def file_of(path: str) -> str:
    """The file nginx serves for *path* (static paths only: no query, folders end in /)."""
    return path.lstrip("/") + ("index.html" if path.endswith("/") else "")


def generate(out: Path, hosts: int, pages: int, seed: int = SEED) -> dict:
    """Write the site unless the same one is already there; return its manifest."""
    manifest_path = out / "manifest.json"
    wanted = {"hosts": hosts, "pages_per_host": pages, "seed": seed, "port": PORT, "version": VERSION}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if {k: manifest.get(k) for k in wanted} == wanted:
            return manifest
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    forum = bench_forum(hosts, pages, seed)
    origins = [f"http://{host_address(i)}:{PORT}" for i in range(hosts)]
    counts, sizes = [], []
    for host in range(hosts):
        root = out / host_address(host)
        paths = forum.paths(host)
        for path in paths:
            target = root / file_of(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            body = with_origins(forum.page(host, path, keep=False), origins)  # 40k pages: keep none
            target.write_bytes(body)
            sizes.append(len(body))
        counts.append(len(paths))
    manifest = {**wanted, "total_pages": sum(counts), "pages": counts,
                "addresses": [host_address(i) for i in range(hosts)],
                "bytes_mean": sum(sizes) / len(sizes), "bytes_min": min(sizes),
                "bytes_max": max(sizes)}
    manifest_path.write_text(json.dumps(manifest))
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", type=int, default=200)
    parser.add_argument("--pages", type=int, default=205, help="mean pages per host")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "work" / "site")
    args = parser.parse_args()
    m = generate(args.out, args.hosts, args.pages)
    print(f"{m['total_pages']} pages on {m['hosts']} hosts, "
          f"{m['bytes_min']}-{m['bytes_max']} bytes (mean {m['bytes_mean']:.0f})")


if __name__ == "__main__":
    main()
