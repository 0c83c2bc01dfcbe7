"""The README's walkthrough ("A crawl, step by step") works as written (issue 29).

Its commands are read from README.md and run as a new user runs them: ``serve-fixture`` in one
process, then the crawl commands it prints, which must be the README's commands but for the
ports, run verbatim (``python``/``scrapy`` are the activated venv's) in a fresh project folder:
its own ``scrapy.cfg``, so a fresh ``.crawler-state``, as on a clean checkout. Each crawl must
give items.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from collections import Counter

from tests.helpers import ROOT

SECTION = "## A crawl, step by step"


def walkthrough_blocks() -> list[list[str]]:
    """The ``sh`` blocks of the section, each as its command lines (no comments, no venv line)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION):]
    section = section[:section.index("\n## ", len(SECTION))]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    return [[line.strip() for line in block.splitlines()
             if line.strip() and not line.startswith(("#", ". .venv/bin/activate"))]
            for block in blocks]


def venv(argv: list[str]) -> list[str]:
    """*argv* as the activated venv runs it: ``python`` and ``scrapy`` are this interpreter's."""
    if argv[0] == "python":
        return [sys.executable, *argv[1:]]
    if argv[0] == "scrapy":
        return [sys.executable, "-m", "scrapy", *argv[1:]]
    raise AssertionError(f"the walkthrough runs {argv[0]!r}, which a fresh venv does not have")


def test_the_walkthrough_as_written(tmp_path):
    serve_block, crawl_block, *_ = walkthrough_blocks()
    assert len(serve_block) == 1 and "serve-fixture" in serve_block[0], serve_block
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "scrapy.cfg", project)  # a fresh project folder: a fresh state
    server = subprocess.Popen(venv(shlex.split(serve_block[0], comments=True)), cwd=project,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        printed = []
        for line in server.stdout:
            if line.startswith("  scrapy crawl "):
                printed.append(line.strip())
                if len(printed) == len(crawl_block):
                    break
        # the commands it prints are the README's, but for the ports
        assert [re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", c) for c in printed] == crawl_block
        crawls = [subprocess.Popen(venv(shlex.split(command)), cwd=project, text=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                  for command in printed]
        logs = [crawl.communicate(timeout=300)[1] for crawl in crawls]
    finally:
        server.terminate()
        server.communicate(timeout=30)
    for crawl, log in zip(crawls, logs, strict=True):
        assert crawl.returncode == 0, log[-3000:]
        assert "Traceback" not in log
    kinds = {}
    for command in printed:
        output = project / shlex.split(command)[-1]
        kinds[output.name] = Counter(json.loads(line)["item_type"]
                                     for line in output.read_text().splitlines())
    assert kinds["phpbb.jl"]["thread"] >= 5 and kinds["phpbb.jl"]["post"] >= 10, kinds
    assert kinds["wordpress.jl"]["article"] >= 5 and kinds["wordpress.jl"]["comment"] >= 3, kinds
    # one crawl state per site, in the fresh project's .crawler-state
    states = sorted(p.name for p in (project / ".crawler-state").iterdir())
    assert len(states) == 2 and states[0].startswith("blog-127.0.0.1-") \
        and states[1].startswith("forum-127.0.0.1-"), states


def test_the_real_site_examples_are_not_the_fixture_ones():
    """Blocks after the first two are examples on real sites: no PORT placeholders there."""
    blocks = walkthrough_blocks()
    assert len(blocks) >= 2
    for block in blocks[2:]:
        assert not any("PORT" in line or "127.0.0.1" in line for line in block), block

