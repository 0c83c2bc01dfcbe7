"""``python -m crawler learn URL`` takes ``-s NAME=VALUE`` and ``-a NAME=VALUE`` as ``scrapy crawl``
does, and says why it learned nothing: ``fetched N pages: <reason>`` (issue 29).

A fixture site on 127.0.0.1, learned for real in a subprocess.
"""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from tests.helpers import ROOT, forked
from tests.sitekit import FixtureSites

ALLOW = ["-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES=True"]


def learn(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return forked.run("crawler", ["learn", *args], cwd=ROOT, timeout=timeout)


def error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stderr[-3000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    return result.stderr.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def site():
    with FixtureSites(["learned_table", "phpbb"]) as sites:
        yield sites


def test_learn_with_settings_and_spider_arguments(site):
    url = site.start_url("learned_table")
    result = learn(url, *ALLOW, "-a", "timezone=Asia/Shanghai", "--name", "table_forum")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "class TableForum(TemplateProfile):" in result.stdout
    assert "Cannot read the stored template" not in result.stderr
    assert "Traceback" not in result.stderr
    # The first posts it read, for a person to check: a position, an author, a date and words.
    shown = result.stderr.split("posts read with this template", 1)[1].splitlines()[1:]
    assert shown and all(re.match(r"  #\d+ \S.* \d{4}-\d\d-\d\d\S*: \S", line) for line in shown), shown


def test_a_local_site_without_the_setting_says_which_setting(site):
    url = site.start_url("learned_table")
    began = time.monotonic()
    line = error(learn(url))
    assert time.monotonic() - began < 30
    host = url.split("/")[2]
    assert line.startswith(f"error: {host}: fetched 0 pages: start URL {url} is on 127.0.0.1"), line
    assert line.endswith("add -s CRAWLER_ALLOW_PRIVATE_ADDRESSES=True"), line


@pytest.mark.parametrize(("args", "expected"), [
    (["-s", "CRAWLER_ALOW_PRIVATE_ADDRESSES=True"],
     ("fetched 0 pages: unknown setting CRAWLER_ALOW_PRIVATE_ADDRESSES; did you mean "
      "CRAWLER_ALLOW_PRIVATE_ADDRESSES?")),
    ([*ALLOW, "-s", "CRAWLER_BACKOFF_MAX=0.5"],
     "fetched 0 pages: CRAWLER_BACKOFF_MAX (0.5) must be at least CRAWLER_BACKOFF_BASE"),
    ([*ALLOW, "-a", "timezone=Mars/Base"], "fetched 0 pages: timezone ('Mars/Base') is not an IANA"),
])
def test_bad_settings_and_arguments_are_one_line(site, args, expected):
    url = site.start_url("learned_table")
    assert f"error: {url.split('/')[2]}: {expected}" in error(learn(url, *args))


def test_malformed_options_are_refused():
    result = learn("http://a.example/", "-s", "CRAWLER_ALLOW_PRIVATE_ADDRESSES")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: -s 'CRAWLER_ALLOW_PRIVATE_ADDRESSES' must be NAME=VALUE"


def test_nothing_to_learn_says_how_many_pages_it_fetched(site):
    url = site.start_url("phpbb").replace("index.php", "no-such-page")
    line = error(learn(url, *ALLOW, "--max-pages", "3"))
    assert line == f"error: {url.split('/')[2]}: fetched 1 pages: no template after 1 pages", line
