"""Generate a static multi-host forum into a folder, one sub-folder per host address.

Each host is a small forum: an index listing its boards, paginated boards listing
threads (20 per page), paginated threads (1-6 pages of posts), and some links to
threads on other hosts. Pages are 5-20 KB of HTML. The folder names are the host
addresses (127.0.1.1, 127.0.1.2, ...) so nginx can serve ``root site/$server_addr``.

    python bench/site_gen.py --hosts 200 --pages 205 --out bench/work/site
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

PORT = 18480  # nginx; the latency server rewrites it to its own port on the fly
THREADS_PER_BOARD_PAGE = 20
_WORDS = ("crawler forum thread reply board post moderator question answer python redis "
          "scrapy cache queue worker lease host politeness delay robots sitemap archive "
          "index page link spider request response server client latency throughput hash "
          "ring bloom filter duplicate frontier priority depth retry timeout error status "
          "the a of to and is in it that for with on we this was").split()
_NAMES = "alice bob carol dave erin frank grace heidi ivan judy mallory olivia peggy".split()


def host_address(index: int) -> str:
    """Host *index* (0-based) -> a loopback address; Linux routes all of 127/8 to lo."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


@dataclass
class Forum:
    boards: list[list[int]]  # thread ids per board
    thread_pages: dict[int, int]

    def page_count(self) -> int:
        listing = sum(max(1, -(-len(b) // THREADS_PER_BOARD_PAGE)) for b in self.boards)
        return 1 + listing + sum(self.thread_pages.values())


def plan_forum(rng: random.Random, target_pages: int) -> Forum:
    """Add threads until the host has about *target_pages* pages."""
    forum = Forum([[] for _ in range(rng.randint(3, 6))], {})
    tid = 0
    while forum.page_count() < target_pages:
        tid += 1
        forum.boards[rng.randrange(len(forum.boards))].append(tid)
        forum.thread_pages[tid] = rng.choice((1, 1, 2, 2, 3, 4, 5, 6))
    return forum


def thread_path(t: int, page: int) -> str:
    return f"/t/{t}/" if page == 1 else f"/t/{t}/p{page}.html"


def board_path(b: int, page: int) -> str:
    return f"/b/{b}/" if page == 1 else f"/b/{b}/p{page}.html"


def _file_of(path: str) -> str:
    return path.lstrip("/") + ("index.html" if path.endswith("/") else "")


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(_WORDS, k=words))


def _pager(page: int, last: int, path, html: list[str]) -> None:
    """Prev/next, first/last and nearby pages, as real forum pagers link them."""
    pages = sorted({1, last, *range(max(1, page - 2), min(last, page + 2) + 1)})
    html.append('<div class="pager">')
    html.extend(f'<a href="{path(p)}">{p}</a>' for p in pages if p != page)
    html.append("</div>")


# Real forum templates carry a few KB of navigation, sidebar and footer on every page.
_TEMPLATE = "<aside>" + " ".join(random.Random(1).choices(_WORDS, k=500)) + "</aside>"


def _page(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + title
            + "</title></head><body><nav><a href=\"/\">Forum index</a></nav>"
            + "".join(body) + _TEMPLATE + "</body></html>\n")


def render_host(out: Path, index: int, forum: Forum, hosts: int, rng: random.Random) -> int:
    files: dict[str, str] = {}
    body = [f'<li><a href="{board_path(b + 1, 1)}">Board {b + 1}</a> {_text(rng, 40)}</li>'
            for b in range(len(forum.boards))]
    files["/"] = _page(f"Forum {index}", ["<ul>", *body, "</ul>", f"<p>{_text(rng, 700)}</p>"])
    for b, tids in enumerate(forum.boards, 1):
        last = max(1, -(-len(tids) // THREADS_PER_BOARD_PAGE))
        for page in range(1, last + 1):
            chunk = tids[(page - 1) * THREADS_PER_BOARD_PAGE: page * THREADS_PER_BOARD_PAGE]
            html = [f'<li><a href="{thread_path(t, 1)}">Thread {t}: {_text(rng, 6)}</a> '
                    f"{_text(rng, 50)}</li>" for t in chunk]
            html.append(f"<p>{_text(rng, rng.randint(200, 900))}</p>")
            _pager(page, last, lambda p, b=b: board_path(b, p), html)
            files[board_path(b, page)] = _page(f"Board {b} page {page}", html)
    for t, last in forum.thread_pages.items():
        for page in range(1, last + 1):
            html = [f"<div class=\"post\"><b>{rng.choice(_NAMES)}</b><p>{_text(rng, rng.randint(60, 300))}</p></div>"
                    for _ in range(rng.randint(4, 10))]
            if page == 1 and rng.random() < 0.3:  # a link to another forum
                other = rng.randrange(hosts)
                html.append(f'<p>See <a href="http://{host_address(other)}:{PORT}/">'
                            f"forum {other}</a></p>")
            _pager(page, last, lambda p, t=t: thread_path(t, p), html)
            files[thread_path(t, page)] = _page(f"Thread {t} page {page}", html)
    root = out / host_address(index)
    for path, text in files.items():
        target = root / _file_of(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return len(files)


def generate(out: Path, hosts: int, pages: int, seed: int = 5) -> dict:
    """Write the site unless the same one is already there; return its manifest."""
    manifest_path = out / "manifest.json"
    wanted = {"hosts": hosts, "pages_per_host": pages, "seed": seed, "port": PORT, "version": 2}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if {k: manifest.get(k) for k in wanted} == wanted:
            return manifest
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    counts = []
    for index in range(hosts):
        rng = random.Random(seed * 100_003 + index)
        forum = plan_forum(rng, rng.randint(pages * 6 // 10, pages * 14 // 10))
        counts.append(render_host(out, index, forum, hosts, rng))
    sizes = [f.stat().st_size for f in out.rglob("*.html")]
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
