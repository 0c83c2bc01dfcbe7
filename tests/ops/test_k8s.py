"""The manifests, offline: every overlay renders, validates against the Kubernetes
schemas, and has the properties the crawler relies on."""

from __future__ import annotations

import copy
import os
import re
import shutil
import string
import subprocess

import kubernetes_validate
import pytest
import yaml

from crawler.ops.health import LIVEZ, METRICS, READYZ
from tests.helpers import ROOT
from tests.helpers.k8s import K8S, container, find, render

OVERLAYS = sorted(p.name for p in (K8S / "overlays").iterdir() if p.is_dir())
KUBERNETES_VERSION = "1.32.0"

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")


def env_of(c: dict) -> dict[str, dict]:
    return {e["name"]: e for e in c.get("env", [])}


def settings_of(objects, c: dict) -> dict[str, str]:
    """The variables the container gets from its ConfigMaps."""
    data: dict[str, str] = {}
    for source in c.get("envFrom", []):
        data.update(find(objects, "ConfigMap", source["configMapRef"]["name"])["data"])
    return data


def test_overlays_exist():
    assert {"dev", "prod"} <= set(OVERLAYS)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_object_validates_against_the_kubernetes_schemas(overlay):
    objects = render(overlay)
    kinds = {o["kind"] for o in objects}
    assert {"StatefulSet", "Service", "ConfigMap", "PodDisruptionBudget"} <= kinds
    for obj in objects:
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


def test_the_validator_rejects_a_broken_object():
    statefulset = copy.deepcopy(find(render("dev"), "StatefulSet", "crawler"))
    statefulset["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(statefulset, KUBERNETES_VERSION, strict=True)
    statefulset = copy.deepcopy(find(render("dev"), "StatefulSet", "crawler"))
    container(statefulset, "crawler")["livenessProbe"]["httpGett"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(statefulset, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_probes_and_scraping_hit_the_endpoints_the_health_extension_serves(overlay):
    objects = render(overlay)
    crawler = find(objects, "StatefulSet", "crawler")
    c = container(crawler, "crawler")
    settings = settings_of(objects, c)
    port = int(settings["CRAWLER_HEALTH_PORT"])
    assert settings["CRAWLER_HEALTH_HOST"] == "0.0.0.0"  # reachable by the kubelet
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    probes = {k: c[k]["httpGet"] for k in ("livenessProbe", "readinessProbe", "startupProbe")}
    for probe in probes.values():
        assert ports.get(probe["port"], probe["port"]) == port
    assert probes["livenessProbe"]["path"] == LIVEZ
    assert probes["startupProbe"]["path"] == LIVEZ
    assert probes["readinessProbe"]["path"] == READYZ
    annotations = crawler["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert int(annotations["prometheus.io/port"]) == port
    assert annotations["prometheus.io/path"] == METRICS


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_grace_period_covers_the_hand_off(overlay):
    objects = render(overlay)
    crawler = find(objects, "StatefulSet", "crawler")
    settings = settings_of(objects, container(crawler, "crawler"))
    # SIGTERM: drain at the next heartbeat, in-flight requests finish within the
    # download timeout, then the node flushes and leaves (margin: 10 s).
    hand_off = float(settings["CRAWLER_HEARTBEAT_INTERVAL"]) + \
        float(settings["SCRAPY_DOWNLOAD_TIMEOUT"]) + 10
    assert crawler["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] >= hand_off


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_node_id_is_the_pod_name_and_the_entry_point_is_a_node(overlay):
    objects = render(overlay)
    crawler = find(objects, "StatefulSet", "crawler")
    c = container(crawler, "crawler")
    assert env_of(c)["CRAWLER_NODE_ID"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    assert c["command"] == ["python", "-m", "crawler", "node"]
    headless = find(objects, "Service", crawler["spec"]["serviceName"])
    assert headless["spec"]["clusterIP"] == "None"
    assert crawler["spec"]["template"]["spec"]["enableServiceLinks"] is False


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_redis_password_reaches_both_sides(overlay):
    objects = render(overlay)
    redis_c = container(find(objects, "StatefulSet", "redis"), "redis")
    crawler_c = container(find(objects, "StatefulSet", "crawler"), "crawler")
    redis_ref = env_of(redis_c)["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
    crawler_env = env_of(crawler_c)
    assert crawler_env["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"] == redis_ref
    # read from the environment into the configuration, never on a command line
    assert "--requirepass" not in redis_c["args"]
    assert "requirepass $REDIS_PASSWORD" in redis_c["command"][2]
    assert "redis-cli -a" not in str(redis_c["readinessProbe"])
    names = [e["name"] for e in crawler_c["env"]]
    # Kubernetes expands $(VAR) only from variables defined before it
    assert names.index("REDIS_PASSWORD") < names.index("REDIS_URL")
    url = crawler_env["REDIS_URL"]["value"]
    assert re.fullmatch(r"redis://:\$\(REDIS_PASSWORD\)@([\w.-]+):(\d+)/\d+", url)
    service = find(objects, "Service", url.split("@")[1].split(":")[0])
    assert service["spec"]["ports"][0]["port"] == int(url.rsplit(":", 1)[1].split("/")[0])
    secrets = [o for o in objects if o["kind"] == "Secret"]
    if overlay == "prod":  # created outside git (k8s/README.md)
        assert secrets == []
    else:
        secret = find(objects, "Secret", redis_ref["name"])
        assert redis_ref["key"] in secret["data"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_redis_persists_its_aof_on_a_volume_claim(overlay):
    redis_set = find(render(overlay), "StatefulSet", "redis")
    c = container(redis_set, "redis")
    args = c["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--maxmemory-policy") + 1] == "noeviction"
    maxmemory = expand_env(c, args[args.index("--maxmemory") + 1])
    assert 0 < bytes_of(maxmemory) < bytes_of(c["resources"]["limits"]["memory"])
    claims = {t["metadata"]["name"] for t in redis_set["spec"]["volumeClaimTemplates"]}
    mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
    assert mounts[claims.pop()] == args[args.index("--dir") + 1]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_resources_and_disruption_budget(overlay):
    objects = render(overlay)
    crawler = find(objects, "StatefulSet", "crawler")
    for name in ("crawler", "redis"):
        resources = container(find(objects, "StatefulSet", name), name)["resources"]
        assert resources["requests"] and resources["limits"]
    pdb = find(objects, "PodDisruptionBudget", "crawler")
    labels = crawler["spec"]["template"]["metadata"]["labels"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert crawler["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True


def test_dockerfile_is_multi_stage_non_root_and_runs_a_node():
    text = (ROOT / "Dockerfile").read_text()
    stages = re.split(r"^FROM ", text, flags=re.MULTILINE)[1:]
    assert len(stages) >= 2
    final = stages[-1]
    assert "build-essential" not in final and "apt-get install" not in final
    assert "COPY --from=build" in final
    user = re.search(r"^USER (\S+)", final, re.MULTILINE).group(1)
    assert user.split(":")[0] not in ("root", "0")
    entry = re.search(r"^ENTRYPOINT (.+)$", final, re.MULTILINE).group(1)
    crawler = find(render("prod"), "StatefulSet", "crawler")
    assert yaml.safe_load(entry) == container(crawler, "crawler")["command"]


UNITS = {"kb": 1000, "mb": 1000**2, "gb": 1000**3, "ki": 1024, "mi": 1024**2, "gi": 1024**3}


def bytes_of(quantity: str) -> int:
    number, unit = re.fullmatch(r"(\d+)([a-zA-Z]*)", quantity).groups()
    return int(number) * UNITS.get(unit.lower(), 1)


def expand_env(c: dict, text: str) -> str:
    values = {e["name"]: e.get("value", "") for e in c.get("env", [])}
    return re.sub(r"\$\((\w+)\)", lambda m: values[m.group(1)], text)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_pods_are_locked_down(overlay):
    objects = render(overlay)
    for name in ("crawler", "redis"):
        pod = find(objects, "StatefulSet", name)["spec"]["template"]["spec"]
        assert pod["automountServiceAccountToken"] is False
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
        c = container(find(objects, "StatefulSet", name), name)
        assert c["securityContext"]["allowPrivilegeEscalation"] is False
    crawler_c = container(find(objects, "StatefulSet", "crawler"), "crawler")
    settings = settings_of(objects, crawler_c)
    assert settings["SCRAPY_TELNETCONSOLE_ENABLED"] == "False"
    # a node that grows too big stops itself (its leases go on) before the kernel kills it
    assert settings["SCRAPY_MEMUSAGE_ENABLED"] == "True"
    limit = bytes_of(crawler_c["resources"]["limits"]["memory"])
    assert 0 < int(settings["SCRAPY_MEMUSAGE_LIMIT_MB"]) * 1024**2 < limit


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_network_policies_fence_redis_and_the_crawlers(overlay):
    objects = render(overlay)
    redis_policy = find(objects, "NetworkPolicy", "redis")["spec"]
    assert redis_policy["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "redis"}
    [rule] = redis_policy["ingress"]
    assert rule["from"] == [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "crawler"}}}]
    assert rule["ports"] == [{"protocol": "TCP", "port": 6379}]
    crawler_policy = find(objects, "NetworkPolicy", "crawler")["spec"]
    assert set(crawler_policy["policyTypes"]) == {"Ingress", "Egress"}
    egress = crawler_policy["egress"]
    dns = [r for r in egress if {"protocol": "UDP", "port": 53} in r.get("ports", [])]
    assert dns, "DNS must stay reachable"
    blocks = [to["ipBlock"] for r in egress for to in r.get("to", []) if "ipBlock" in to]
    v4 = next(b for b in blocks if b["cidr"] == "0.0.0.0/0")
    assert {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
            "127.0.0.0/8"} <= set(v4["except"])
    assert all(r.get("to") for r in egress), "no rule may open egress to everything"


def test_the_tls_component_switches_both_sides_to_tls(tmp_path):
    shutil.copytree(K8S, tmp_path / "k8s")
    overlay = tmp_path / "k8s" / "overlays" / "tls"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text(
        'resources: ["../prod"]\ncomponents: ["../../components/redis-tls"]\n')
    out = subprocess.run(["kubectl", "kustomize", str(overlay)], capture_output=True,
                         text=True, check=True, timeout=60).stdout
    objects = [doc for doc in yaml.safe_load_all(out) if doc]
    for obj in objects:
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
    redis_c = container(find(objects, "StatefulSet", "redis"), "redis")
    args = redis_c["args"]
    assert args[args.index("--port") + 1] == "0"  # no plain-text port
    assert args[args.index("--tls-port") + 1] == "6379"
    assert args[args.index("--maxmemory-policy") + 1] == "noeviction"
    crawler_c = container(find(objects, "StatefulSet", "crawler"), "crawler")
    url = env_of(crawler_c)["REDIS_URL"]["value"]
    assert url.startswith("rediss://:$(REDIS_PASSWORD)@redis:6379/")
    ca = url.split("ssl_ca_certs=")[1]
    mounts = {m["mountPath"] for m in crawler_c["volumeMounts"]}
    assert any(ca.startswith(m + "/") for m in mounts)


# -- k8s/jobs/forum.yaml: a list of forums, one Job (one crawl) each ----------------------

JOB_TEMPLATE = K8S / "jobs" / "forum.yaml"


def forum_job(objects, site: str = "bbs-example", url: str = "https://bbs.example.org/") -> dict:
    """The Job template as k8s/README.md renders it: envsubst with the overlay's image and
    settings ConfigMap, as the recipe reads them from the StatefulSet."""
    crawler = container(find(objects, "StatefulSet", "crawler"), "crawler")
    values = {"SITE": site, "START_URL": url, "IMAGE": crawler["image"],
              "SETTINGS": crawler["envFrom"][0]["configMapRef"]["name"],
              "SECRET": env_of(crawler)["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]["name"]}
    envsubst = shutil.which("envsubst")
    text = JOB_TEMPLATE.read_text()
    if envsubst:
        text = subprocess.run([envsubst, "$SITE $START_URL $IMAGE $SETTINGS $SECRET"], input=text,
                              capture_output=True, text=True, check=True, timeout=30,
                              env={**os.environ, **values}).stdout
    else:
        text = string.Template(text).safe_substitute(values)
    (job,) = [doc for doc in yaml.safe_load_all(text) if doc]
    return job


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_forum_job_renders_validates_and_runs_as_a_crawler_pod(overlay):
    from crawler.commands.crawl import EXIT_NOTHING_FETCHED, EXIT_REFUSED  # noqa: PLC0415
    from crawler.config import CRAWL_ID  # noqa: PLC0415

    objects = render(overlay)
    job = forum_job(objects)
    kubernetes_validate.validate(job, KUBERNETES_VERSION, strict=True)
    assert "$" not in yaml.safe_dump(job).replace("$(REDIS_PASSWORD)", "")  # all filled in
    pod = job["spec"]["template"]
    c = pod["spec"]["containers"][0]
    statefulset = find(objects, "StatefulSet", "crawler")
    node = container(statefulset, "crawler")
    # the same pod as a node of the StatefulSet: image, settings, Redis, lock-down
    assert c["image"] == node["image"] and c["command"] == node["command"]
    assert c["envFrom"] == node["envFrom"]
    find(objects, "ConfigMap", c["envFrom"][0]["configMapRef"]["name"])  # it exists
    assert c["securityContext"] == node["securityContext"]
    for key in ("securityContext", "automountServiceAccountToken", "enableServiceLinks"):
        assert pod["spec"][key] == statefulset["spec"]["template"]["spec"][key], key
    env = env_of(c)
    for name in ("REDIS_PASSWORD", "REDIS_URL", "CRAWLER_NODE_ID"):
        assert env[name] == env_of(node)[name], name
    assert c["args"] == ["forum", "-a", "start_urls=https://bbs.example.org/"]
    assert CRAWL_ID.match(env["CRAWLER_CRAWL_ID"]["value"]) and \
        env["CRAWLER_CRAWL_ID"]["value"] == "forum-bbs-example"
    limit = c["resources"]["limits"]["memory"]
    assert limit.endswith("Gi") and \
        0 < int(env["SCRAPY_MEMUSAGE_LIMIT_MB"]["value"]) * 1024**2 < int(limit[:-2]) * 1024**3
    # the NetworkPolicies see a crawler: it may reach Redis and public addresses
    labels = pod["metadata"]["labels"]
    for policy in ("redis", "crawler"):
        spec = find(objects, "NetworkPolicy", policy)["spec"]
        selector = spec["ingress"][0]["from"][0]["podSelector"] if policy == "redis" \
            else spec["podSelector"]
        assert selector["matchLabels"].items() <= labels.items(), policy
    # exit statuses another try cannot help end the Job (crawler.commands.crawl)
    rule = job["spec"]["podFailurePolicy"]["rules"][0]
    assert rule["action"] == "FailJob"
    assert sorted(rule["onExitCodes"]["values"]) == sorted([EXIT_REFUSED, EXIT_NOTHING_FETCHED])
    assert pod["spec"]["restartPolicy"] == "Never"  # podFailurePolicy needs it


def readme_block(lang: str, containing: str) -> str:
    """The ```lang block of k8s/README.md that contains *containing*."""
    text = (K8S / "README.md").read_text()
    blocks = [b for b in re.findall(rf"```{lang}\n(.*?)```", text, re.DOTALL) if containing in b]
    assert len(blocks) == 1, (lang, containing, len(blocks))
    return blocks[0]


def test_the_guides_own_overlay_renders_with_its_crawl(tmp_path):
    block = readme_block("yaml", "# k8s/overlays/mine/kustomization.yaml")
    shutil.copytree(K8S, tmp_path / "k8s")
    overlay = tmp_path / "k8s" / "overlays" / "mine"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text(block)
    out = subprocess.run(["kubectl", "kustomize", str(overlay)], capture_output=True,
                         text=True, check=True, timeout=60).stdout
    objects = [doc for doc in yaml.safe_load_all(out) if doc]
    for obj in objects:
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
    settings = settings_of(objects, container(find(objects, "StatefulSet", "crawler"), "crawler"))
    assert settings["CRAWL_SPIDER"] == "follow" and settings["CRAWLER_CRAWL_ID"] == "mine"
    assert settings["START_URLS"] == "https://forum.example.org/,https://blog.example.net/"
    assert settings["SCRAPY_MEMUSAGE_LIMIT_MB"] == "1800"  # prod's, kept
    assert {o["metadata"].get("namespace") for o in objects if o["kind"] != "Namespace"} == {"crawler"}


FAKE_KUBECTL = r'''#!/bin/sh
# kubectl as the guide's loop uses it, on the objects of a rendered overlay
case "$*" in
  *"get statefulset crawler"*"image}"*) printf %s "$FAKE_IMAGE" ;;
  *"get statefulset crawler"*"configMapRef.name}"*) printf %s "$FAKE_SETTINGS" ;;
  *"apply -f -"*) n=$(ls "$FAKE_OUT" | wc -l); cat > "$FAKE_OUT/job-$n.yaml" ;;
  *"get jobs"*) ls "$FAKE_OUT" ;;
  *) echo "unexpected: kubectl $*" >&2; exit 1 ;;
esac
'''


@pytest.mark.skipif(shutil.which("envsubst") is None, reason="needs envsubst (gettext)")
def test_the_guides_forum_list_loop_creates_one_valid_job_per_forum(tmp_path):
    """The guide's two blocks of step 9, run by sh as written, kubectl faked: one Job per line
    of forums.txt, each valid and crawling its forum under its own crawl id."""
    objects = render("prod")
    node = container(find(objects, "StatefulSet", "crawler"), "crawler")
    secret = env_of(node)["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]["name"]
    bin_dir, out = tmp_path / "bin", tmp_path / "out"
    bin_dir.mkdir()
    out.mkdir()
    (bin_dir / "kubectl").write_text(FAKE_KUBECTL)
    (bin_dir / "kubectl").chmod(0o755)
    shutil.copytree(K8S, tmp_path / "k8s")
    script = readme_block("sh", "cat > forums.txt") + readme_block("sh", "envsubst")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "NS": "crawler",
           "SECRET": secret, "FAKE_IMAGE": node["image"], "FAKE_OUT": str(out),
           "FAKE_SETTINGS": node["envFrom"][0]["configMapRef"]["name"]}
    result = subprocess.run(["sh", "-eu", "-c", script], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    jobs = [yaml.safe_load(p.read_text()) for p in sorted(out.iterdir())]
    assert [j["metadata"]["name"] for j in jobs] == ["crawl-bbs-one", "crawl-cn-club"]
    for job, url in zip(jobs, ["https://bbs.example.org/", "https://club.example.cn/forum.php"],
                        strict=True):
        kubernetes_validate.validate(job, KUBERNETES_VERSION, strict=True)
        c = job["spec"]["template"]["spec"]["containers"][0]
        assert c["args"] == ["forum", "-a", f"start_urls={url}"]
        assert c["image"] == node["image"] and c["envFrom"] == node["envFrom"]
        assert env_of(c)["REDIS_PASSWORD"] == env_of(node)["REDIS_PASSWORD"]
        assert env_of(c)["CRAWLER_CRAWL_ID"]["value"] == "forum-" + job["metadata"]["name"][6:]
