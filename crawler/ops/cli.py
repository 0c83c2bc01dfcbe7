"""``python -m crawler``: watch and steer a running crawl from any machine that reaches its Redis.

Exit status: 0 done, 2 bad input (unreachable Redis, unknown crawl or node,
purge without ``--yes``), 1 anything unexpected.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from crawler import config
from crawler.frontier.bloom import BloomLayoutError
from crawler.frontier.cluster import RingUnstable
from crawler.ops import control
from crawler.ops.connect import CliError, open_target
from crawler.redis import UNREACHABLE
from crawler.scaffold.command import add_parser as add_new_engine
from crawler.scaffold.command import main as new_engine

if TYPE_CHECKING:
    from collections.abc import Iterator

    from crawler.ops.connect import Target

logger = logging.getLogger(__name__)


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--redis-url", help="the crawl's Redis (default: $REDIS_URL, then the "
                        "project's REDIS_URL, then the embedded server of --state-dir)")
    common.add_argument("--crawl", help="crawl id (default: $CRAWLER_CRAWL_ID, then the only "
                        "crawl found; unless CRAWLER_CRAWL_ID, a crawl's id is its spider name, "
                        "plus the site on the embedded Redis: forum-bbs.example.org)")
    common.add_argument("--state-dir", help="embedded Redis state: the folder of the crawls "
                        "(default: CRAWLER_STATE_DIR, .crawler-state in the project) or one "
                        "crawl's folder, as the crawl logs it")
    common.add_argument("--connect-timeout", type=float, default=3.0, metavar="SECONDS",
                        help="how long to retry an unreachable Redis (default 3)")

    top = argparse.ArgumentParser(prog="python -m crawler", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("status", parents=[common], help="nodes, queues, Bloom filter")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--top", type=int, default=10, help="how many host queues to list")
    p = sub.add_parser("seed", parents=[common], help="queue more start URLs")
    p.add_argument("urls", nargs="+", metavar="URL")
    p.add_argument("--dont-filter", action="store_true",
                   help="queue even URLs the crawl has already seen")
    p.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a setting the URLs are checked with, as the crawl's nodes have it "
                   "(e.g. -s CRAWLER_ALLOW_PRIVATE_ADDRESSES=True for a site on a local address)")
    p = sub.add_parser("pause", parents=[common], help="stop every node from starting requests; "
                       "returns once each live node acknowledged it")
    p.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                   help="how long to wait for the nodes to acknowledge (default 30)")
    sub.add_parser("resume", parents=[common], help="undo pause")
    for name, text in (("drain", "make NODE hand off its hosts and own none"),
                       ("undrain", "let NODE own hosts again")):
        p = sub.add_parser(name, parents=[common], help=text)
        p.add_argument("node", metavar="NODE")
        p.add_argument("--force", action="store_true", help="even if NODE is not a member")
    p = sub.add_parser("purge", parents=[common], help="delete every key of the crawl")
    p.add_argument("--yes", action="store_true", help="really delete")
    p.add_argument("--force", action="store_true", help="even while nodes are alive")
    p = sub.add_parser("export", parents=[common], help="item stream -> JSON Lines")
    p.add_argument("--output", "-o", required=True, type=Path, metavar="FILE",
                   help="JSON Lines file, appended to incrementally ('-': all items to stdout)")
    p.add_argument("--restart", action="store_true", help="rewrite FILE from the stream's start")
    p.add_argument("--trim", action="store_true",
                   help="delete the exported entries from Redis (the default with a FILE)")
    p.add_argument("--keep", action="store_true",
                   help="keep the exported entries in Redis (another export reads them too)")
    p = sub.add_parser("failures", parents=[common], help="URLs that failed for good -> JSON Lines")
    p.add_argument("--output", "-o", required=True, type=Path, metavar="FILE",
                   help="JSON Lines file ('-': stdout): url, reason, node per line")
    p = sub.add_parser("serve-fixture", help="serve fixture sites of real engines on 127.0.0.1 "
                       "until Ctrl-C, to try a crawl on (phpbb, discuz, wordpress, ...)")
    p.add_argument("sites", nargs="+", metavar="SITE",
                   help="fixture site names (the demo's, crawler/demo/sites/<SITE>)")
    p.add_argument("--latency", type=float, default=0.0, metavar="SECONDS",
                   help="delay every response (default 0)")
    p = sub.add_parser("wacz", help="pack a crawl's WARC files (CRAWLER_WARC_DIR) as a WACZ")
    p.add_argument("--warc-dir", required=True, type=Path, metavar="DIR",
                   help="the crawl's CRAWLER_WARC_DIR (the files of every node)")
    p.add_argument("--output", "-o", required=True, type=Path, metavar="FILE",
                   help="the .wacz file to write")
    p.add_argument("--after", action="append", type=Path, metavar="EARLIER.wacz",
                   help="pack only the WARC files this earlier WACZ of the folder does not hold")
    p = sub.add_parser("repair-state", help="cut a crawl's damaged AOF (embedded Redis) where "
                       "the damage starts, as the error that stopped the crawl advises")
    p.add_argument("folder", type=Path, metavar="FOLDER", help="the crawl's state folder")
    p.add_argument("--yes", action="store_true", help="really cut (else: say what would be cut)")
    p = sub.add_parser("learn", help="learn a forum's template and print it as a profile module")
    p.add_argument("url", metavar="URL")
    p.add_argument("--name", help="profile name (default: from the host)")
    p.add_argument("--max-pages", type=int, default=60, help="give up after this many pages")
    p.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a setting for the crawl, as for scrapy crawl (e.g. -s "
                   "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True for a site on a local address)")
    p.add_argument("-a", dest="spargs", action="append", default=[], metavar="NAME=VALUE",
                   help="a forum spider argument, as for scrapy crawl "
                        "(e.g. -a timezone=Asia/Shanghai)")
    add_new_engine(sub)
    p = sub.add_parser("read", help="print the posts the generic reader finds on one page")
    p.add_argument("source", metavar="FILE|URL")
    p = sub.add_parser("node", help="run a node configured by its environment (container "
                       "entry point): node SPIDER [scrapy crawl options]")
    p.add_argument("crawl_args", nargs=argparse.REMAINDER, metavar="SPIDER ...")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command in ("learn", "new-engine"):
        try:
            settings, spargs = pairs(args.set, "-s"), pairs(args.spargs, "-a")
            if args.command == "new-engine":  # learn checks its URL as a crawl does
                config.check_url(args.url, "--from URL")
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if args.command == "new-engine":
            return new_engine(args.name, args.url, settings, spargs, args.pages, args.force,
                              args.limits)
        from crawler.ops.learn import main as learn  # imports Scrapy's machinery

        return learn(args.url, args.name, args.max_pages, settings, spargs)
    if args.command == "read":
        from crawler.ops.read import main as read  # noqa: PLC0415

        return read(args.source)
    if args.command == "node":
        from crawler.ops.node import run  # imports all of Scrapy's machinery
        return run(args.crawl_args)
    if args.command == "wacz":
        from crawler.archive.wacz import main as wacz  # noqa: PLC0415

        return wacz(args.warc_dir, args.output, args.after)
    if args.command == "repair-state":
        from crawler.ops.repair import repair  # noqa: PLC0415

        try:
            return repair(args.folder, args.yes)
        except CliError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.command == "serve-fixture":
        from crawler.demo.fixtures import serve  # noqa: PLC0415

        try:
            return serve(args.sites, latency=args.latency)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    # connection retries would print the URL (and its password) once per attempt
    logging.getLogger("crawler.redis").setLevel(logging.ERROR)
    try:
        # Redis' errors are no OSError (redis-py wraps its sockets'): an OSError left is of
        # this machine's files, named by the file it has, else the output's (a full disk, a
        # reader gone: `| head`), flushed here so that it shows before exit
        with writing("stdout"):
            status = COMMANDS[args.command](args)
            sys.stdout.flush()
        return status
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except UNREACHABLE as exc:
        print(f"error: lost the connection to Redis: {exc}", file=sys.stderr)
        return 2


@contextmanager
def writing(name: str | Path) -> Iterator[None]:
    """An ``OSError`` writing *name* (a file, or ``stdout``) as a one-line :class:`CliError`
    naming the file (the one the error names, if any: ``FILE.cursor``)."""
    try:
        yield
    except OSError as exc:
        if name == "stdout":  # nothing more reaches it: no second error when Python exits
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise CliError(f"{exc.filename or name}: {exc.strerror or exc}") from None


def pairs(items: list[str], option: str) -> dict[str, str]:
    """``NAME=VALUE`` options as a dict (ValueError in one line for one without ``=``)."""
    result = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"{option} {item!r} must be NAME=VALUE")
        result[name.strip()] = value
    return result


def cmd_status(args: argparse.Namespace) -> int:
    from crawler.ops.status import render

    target = open_target(args)
    status = target.cluster.status(
        top=args.top, node_timeout=config.value(target.settings, "CRAWLER_NODE_TIMEOUT"))
    print(json.dumps(status, indent=2) if args.json else render(status, target.url))
    return 0


def cmd_seed(args: argparse.Namespace) -> int:
    target = open_target(args)
    try:  # a crawl's checks of its start URLs, before anything is queued
        urls = control.check_seeds(args.urls, target.settings, pairs(args.set, "-s"))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    try:
        result = control.seed(target, urls, dont_filter=args.dont_filter)
    except (RingUnstable, BloomLayoutError) as exc:  # membership kept changing; old filter
        raise CliError(str(exc)) from None
    print(f"queued {result.queued}, already seen {result.duplicate}, over the host page "
          f"limit {result.over_host_limit}")
    if not result.live_nodes:
        print("no node owns hosts now: the requests wait until a node joins")
    return 0


def _switch(action, message: str, warn=None):
    def command(args: argparse.Namespace) -> int:
        target = open_target(args)
        action(target, args)
        print(message.format(crawl=target.crawl, node=getattr(args, "node", "")))
        if warn is not None and (warning := warn(target, args.node)):
            print(f"warning: {warning}", file=sys.stderr)
        return 0
    return command


def cmd_pause(args: argparse.Namespace) -> int:
    target = open_target(args)
    nodes = control.pause(target, args.timeout)
    print(f"crawl {target.crawl} paused: {len(nodes)} live nodes acknowledged"
          + (f" ({', '.join(nodes)})" if nodes else "") + "; no request starts until resume")
    return 0


def cmd_purge(args: argparse.Namespace) -> int:
    target = open_target(args)
    if not args.yes:
        n = len(target.cluster.key_names())
        raise CliError(f"purge deletes all {n} keys of crawl {target.crawl!r} at {target.url}; "
                       "add --yes to do it")
    deleted = control.purge(target, force=args.force)
    folder = control.remove_state_folder(target)
    print(f"deleted {deleted} keys of crawl {target.crawl}"
          + (f" and its state folder {folder}" if folder else ""))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from crawler.ops.export import dump, export

    target: Target = open_target(args)
    if str(args.output) == "-":
        n = dump(target.cluster, sys.stdout.buffer)
        print(f"exported {n} items", file=sys.stderr)
    else:
        # the stream is bounded by what was not exported yet: exported entries go once
        # the file and its cursor are on disk (crawler.ops.export)
        trim = not args.keep
        with writing(args.output):
            result = export(target.cluster, args.output, restart=args.restart, trim=trim)
        n = result.total_lines
        print(f"exported {result.exported} new items to {args.output} ({result.total_lines} in all)"
              + (f"; trimmed {result.trimmed} from the stream" if trim else ""))
    if not n and target.cluster.items.read(None, 1) == []:
        print(EMPTY_STREAM.format(crawl=target.crawl), file=sys.stderr)
    return 0


EMPTY_STREAM = ("note: the item stream of crawl {crawl} is empty. Nodes write it only with "
                "CRAWLER_ITEMS_STREAM=True, the default with REDIS_URL but not with the embedded "
                "Redis, where items go only to the crawl's own -o file. Set "
                "-s CRAWLER_ITEMS_STREAM=True on the crawl to export from the stream.")


def cmd_failures(args: argparse.Namespace) -> int:
    target = open_target(args)
    lines = [json.dumps(failure, ensure_ascii=False) for failure in target.cluster.failures()]
    text = "".join(line + "\n" for line in lines)
    if str(args.output) == "-":
        sys.stdout.write(text)
        print(f"{len(lines)} failed URLs", file=sys.stderr)
    else:
        with writing(args.output):
            args.output.write_text(text)
        print(f"exported {len(lines)} failed URLs to {args.output}")
    return 0


COMMANDS = {
    "failures": cmd_failures,
    "status": cmd_status,
    "seed": cmd_seed,
    "pause": cmd_pause,
    "resume": _switch(lambda t, a: control.resume(t), "crawl {crawl} resumed"),
    "drain": _switch(lambda t, a: control.set_drain(t, a.node, True, force=a.force),
                     "node {node} draining: it hands off its hosts at its next heartbeat",
                     warn=control.drain_warning),
    "undrain": _switch(lambda t, a: control.set_drain(t, a.node, False, force=a.force),
                       "node {node} may own hosts again"),
    "purge": cmd_purge,
    "export": cmd_export,
}
