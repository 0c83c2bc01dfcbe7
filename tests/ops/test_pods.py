"""Pod behaviour without a cluster: the rendered StatefulSets' commands and environments,
run as local processes against the Redis the manifests describe, scaled 2 -> 4 -> 1.

What stands in for Kubernetes, and nothing else: ``$(VAR)`` expansion and the
downward API (done here as the kubelet does), cluster DNS (``redis:6379`` becomes the
local server's address), one IP per pod (every pod gets its own health port), and
the test's site and timings (START_URLS, CRAWLER_IDLE_CLOSE, SCRAPY_DOWNLOAD_DELAY).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
from pathlib import Path

import pytest
import redis

from crawler.addon import ClusterAddon
from tests.helpers import ROOT, forked
from tests.helpers.k8s import container, find, render
from tests.helpers.ops import EXTENSIONS, HEALTH_LINE, PIPELINES, cli, ready, wait_until
from tests.helpers.redis_server import REDIS_SERVER
from tests.sitekit.site import SiteServer

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")]


def expand(text: str, env: dict[str, str]) -> str:
    """The kubelet's ``$(VAR)`` expansion (``$$`` escapes; unknown names stay)."""
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                  lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)), text)


def secret_value(objects, ref: dict) -> str:
    return base64.b64decode(find(objects, "Secret", ref["name"])["data"][ref["key"]]).decode()


def pod_env(objects, c: dict, pod_name: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for source in c.get("envFrom", []):
        env.update(find(objects, "ConfigMap", source["configMapRef"]["name"])["data"])
    for entry in c.get("env", []):
        if "value" in entry:
            env[entry["name"]] = expand(entry["value"], env)
        elif "fieldRef" in entry["valueFrom"]:
            assert entry["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
            env[entry["name"]] = pod_name
        else:
            env[entry["name"]] = secret_value(objects, entry["valueFrom"]["secretKeyRef"])
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Pod:
    def __init__(self, objects, name: str, overrides: dict[str, str], workdir: Path) -> None:
        c = container(find(objects, "StatefulSet", "crawler"), "crawler")
        self.name = name
        env = {**pod_env(objects, c, name), **overrides}
        argv = [expand(a, env) for a in c["command"] + c["args"]]
        assert argv[:2] == ["python", "-m"]
        self.log_path = workdir / f"{name}.log"
        base = {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
                "PYTHONUNBUFFERED": "1"}
        # `python -m crawler node ...` forked from a process that has imported the project:
        # a pod's start is its own work, not its imports (30 s and more of them at load 13,
        # cold, where a pod's start is what this test waits for four times)
        self.process = forked.Child(argv[2], argv[3:], {**base, **env}, ROOT, self.log_path)
        self.port = 0

    def output(self) -> str:
        return self.log_path.read_text()

    def health_port(self) -> int:
        match = wait_until(lambda: HEALTH_LINE.search(self.output()) or self._dead(), 30,
                           what=f"{self.name}'s health endpoints")
        self.port = int(match.group(1))
        return self.port

    def _dead(self) -> None:
        if self.process.poll() is not None:
            raise AssertionError(f"{self.name} exited:\n{self.output()[-3000:]}")

    def ready(self) -> tuple[int, dict]:
        return ready(self.port)

    def wait(self, timeout: float) -> int:
        return self.process.wait(timeout)


@pytest.fixture
def dev():
    return render("dev")


@pytest.fixture
def manifest_redis(dev, tmp_path):
    """redis-server run by the Redis container's command and arguments, with its
    environment (the password from the Secret, in the environment only)."""
    c = container(find(dev, "StatefulSet", "redis"), "redis")
    env = pod_env(dev, c, "redis-0")
    args = [expand(a, env) for a in c["args"]]
    args[args.index("--dir") + 1] = str(tmp_path)
    port = free_port()
    shell, flag, script, name = c["command"]
    script = script.replace("exec redis-server", f"exec {REDIS_SERVER}")
    process = subprocess.Popen([shell, flag, script, name, *args, "--port", str(port), "--bind",
                                "127.0.0.1", "--save", ""], env={**os.environ, **env},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert env["REDIS_PASSWORD"] not in " ".join(process.args)  # not on a command line
    client = redis.Redis(port=port, password=env["REDIS_PASSWORD"])
    wait_until(lambda: _pings(client), 10, 0.02, "redis-server")
    yield port, env["REDIS_PASSWORD"]
    process.terminate()
    process.wait(10)


@pytest.fixture
def started():
    """The pods a test starts: any still running at its end (a failed test) killed."""
    pods: list[Pod] = []
    yield pods
    for pod in pods:
        if pod.process.poll() is None:
            pod.process.kill()
            pod.wait(10)


def _pings(client: redis.Redis) -> bool:
    try:
        return client.ping()
    except redis.ConnectionError:
        return False


def addon_enables_ops() -> bool:
    from scrapy.settings import Settings

    settings = Settings({"ADDONS": {}})
    ClusterAddon().update_settings(settings)
    return "crawler.ops.health.HealthExtension" in str(settings.getdict("EXTENSIONS"))


def test_statefulset_scaled_2_4_1_loses_nothing_and_probes_tell_the_truth(
        dev, manifest_redis, started, tmp_path):
    port, password = manifest_redis
    crawler_set = find(dev, "StatefulSet", "crawler")
    grace = crawler_set["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    # Without the password, Redis refuses us: the crawler below got it from the Secret.
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(port=port).set("x", 1)
    # One host's first page is held until four pods are ready: the crawl outlasts the scale-up
    # however slowly the pods start (under load two pods finished the site before the
    # next two had joined). A held request is a lease out, so nobody's idle close fires.
    scaled = threading.Event()

    def hold_until_scaled(target: str, hit: int) -> None:
        if target == "/":
            scaled.wait(120)

    with SiteServer(hosts=8, pages_per_host=25, latency=0.02, seed=31,
                    faults={7: hold_until_scaled}) as site:
        # the manifests' 0.5 s delay, on one address (Scrapy's slot: 127.0.0.1), spread
        # 200 pages over 100 s; scaling and leaving prove the same at 0.1 s
        overrides = {"START_URLS": ",".join(site.base_urls), "CRAWLER_HEALTH_PORT": "0",
                     "CRAWLER_IDLE_CLOSE": "3", "SCRAPY_DOWNLOAD_DELAY": "0.1",
                     "CRAWLER_ALLOW_PRIVATE_ADDRESSES": "True"}  # the site is on 127.0.0.1
        c = container(crawler_set, "crawler")
        url = pod_env(dev, c, "crawler-0")["REDIS_URL"]
        overrides["REDIS_URL"] = url.replace("@redis:6379/", f"@127.0.0.1:{port}/")
        assert f":{password}@" in overrides["REDIS_URL"]
        if not addon_enables_ops():  # stopgap until the add-on enables the ops components
            overrides["SCRAPY_EXTENSIONS"] = json.dumps(EXTENSIONS)
            overrides["SCRAPY_ITEM_PIPELINES"] = json.dumps(PIPELINES)
        crawl_id = pod_env(dev, c, "crawler-0")["CRAWLER_CRAWL_ID"]
        pods = {}

        def scale_up(n: int) -> None:
            for i in range(len(pods), n):
                pods[i] = Pod(dev, f"crawler-{i}", overrides, tmp_path)
                started.append(pods[i])
            for pod in pods.values():
                pod.port = pod.port or pod.health_port()
            wait_until(lambda: all(p.ready()[0] == 200 and p.ready()[1]["ring_members"] == n
                                   for p in pods.values()), 30, what=f"{n} pods ready")

        try:
            scale_up(2)
            assert site.wait_fetched(30, timeout=60)
            scale_up(4)
        finally:
            scaled.set()
        assert site.wait_fetched(80, timeout=60)
        # kubectl scale --replicas=1: the highest ordinals get SIGTERM
        leaving = [pods.pop(i) for i in (3, 2, 1)]
        for pod in leaving:
            pod.process.send_signal(signal.SIGTERM)
        for pod in leaving:
            _probe_until_exit(pod, grace)
        assert pods[0].ready()[0] == 200
        # the survivor sees the others gone at its next heartbeat
        wait_until(lambda: pods[0].ready()[1]["ring_members"] == 1, 30,
                   what="the survivor alone on the ring")
        assert pods[0].wait(120) == 0, pods[0].output()[-3000:]
        counts = site.fetch_counts()
        expected = site.expected_urls()
    assert expected - set(counts) == set(), "pages lost while scaling"
    assert {u: n for u, n in counts.items() if n > 1} == {}, "graceful leaves refetch nothing"
    out = tmp_path / "items.jl"
    result = cli("export", "-o", str(out), "--redis-url", overrides["REDIS_URL"],
                 "--crawl", crawl_id)
    assert result.returncode == 0, result.stderr
    urls = [json.loads(line)["url"] for line in out.read_text().splitlines()]
    assert sorted(urls) == sorted(expected)


def _probe_until_exit(pod: Pod, grace: float) -> None:
    """Until the pod exits (within its grace period), /readyz never says ready once it drains."""
    deadline = time.monotonic() + grace
    while pod.process.poll() is None:
        assert time.monotonic() < deadline, f"{pod.name} outlived its grace period"
        drained = "Draining node" in pod.output()
        try:
            code, body = pod.ready()
        except (urllib.error.URLError, ConnectionError):
            continue  # the server closed: the process is exiting
        if drained:
            assert code == 503, (pod.name, code, body)
            assert {"draining", "shutting down"} & set(body["reasons"]), (pod.name, body)
        time.sleep(0.05)
    assert pod.wait(0) == 0, pod.output()[-3000:]
    assert "left the ring" in pod.output()
