"""Bad configuration ends with one line naming the setting and a non-zero exit."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT

CASES = [
    (["nope"], "error: unknown spider 'nope'"),
    (["follow"], "error: give the sites to crawl"),
    (["follow", "-a", "start_urls=ftp://x"], "error: start URL 'ftp://x' must start with http"),
    (["follow", "-a", "start_urls=http://x", "-s", "REDIS_URL=http://x"],
     "error: REDIS_URL ('http://x') is not a valid Redis URL"),
    (["follow", "-a", "start_urls=http://x", "-s", "DOWNLOAD_DELAY=-1"],
     "error: DOWNLOAD_DELAY (-1.0) must be >= 0"),
    (["follow", "-a", "start_urls=http://x", "-s", "DOWNLOAD_DELAY=soon"],
     "error: DOWNLOAD_DELAY ('soon') must be a number"),
    (["follow", "-a", "start_urls=http://x", "-s", "CRAWLER_BLOOM_CAPACITY=lots"],
     "error: CRAWLER_BLOOM_CAPACITY ('lots') must be a number"),
    (["follow", "-a", "start_urls=http://x", "-s", "CRAWLER_NODE_TIMEOUT=1"],
     "error: CRAWLER_NODE_TIMEOUT (1.0) must be more than twice CRAWLER_HEARTBEAT_INTERVAL"),
    (["follow", "-a", "start_urls=http://x", "-s", "CRAWLER_HOST_MAX_INFLIGHT=0"],
     "error: CRAWLER_HOST_MAX_INFLIGHT (0) must be >= 1"),
]


@pytest.mark.parametrize(("args", "message"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_configuration_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = subprocess.run([sys.executable, "-m", "scrapy", "crawl", *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(message)
