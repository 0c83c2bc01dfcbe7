"""A crawl id names a folder in the state folder: one that would leave it ('..', '.', 'a/b')
is refused in one line, exit 2, wherever an id comes in (issue 27, item 14). `scrapy crawl`
and `purge --crawl ..`: tests/test_exit_codes.py."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.helpers import forked


def _refused(result: subprocess.CompletedProcess, state) -> None:
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "CRAWL" in last.upper(), result.stderr[-2000:]
    # nothing written beside the state folder, nor in it
    assert sorted(p.name for p in state.parent.iterdir()) == ["state"]
    assert list(state.iterdir()) == []


@pytest.mark.parametrize("crawl", ["..", "../x"])
@pytest.mark.parametrize("how", ["option", "environment"])
@pytest.mark.parametrize("command", [["status"], ["seed", "http://a.test/"],
                                     ["export", "-o", "-"], ["purge", "--yes"]],
                         ids=lambda c: c[0])
def test_operator_commands_refuse_ids_outside_the_state_folder(tmp_path, command, how,
                                                               crawl) -> None:
    state = tmp_path / "state"
    state.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CRAWLER_CRAWL_ID")}
    args = [*command, "--state-dir", str(state)]
    if how == "option":
        args += ["--crawl", crawl]
    else:
        env["CRAWLER_CRAWL_ID"] = crawl
    result = forked.run("crawler", args, env=env)
    _refused(result, state)


@pytest.mark.parametrize("crawl", ["..", "../x"])
def test_the_container_entry_point_refuses_them(tmp_path, crawl) -> None:
    """``python -m crawler node``: the id from the pod's environment."""
    state = tmp_path / "state"
    state.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(CRAWLER_CRAWL_ID=crawl, CRAWLER_STATE_DIR=str(state))
    result = forked.run("crawler", ["node", "follow", "-a", "start_urls=http://a.test/"],
                        env=env, timeout=120)
    _refused(result, state)
