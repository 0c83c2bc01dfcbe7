"""The manifests, offline: every overlay renders, validates against the Kubernetes
schemas, and has the properties the crawler relies on."""

from __future__ import annotations

import copy
import re
import shutil

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
    args = redis_c["args"]
    assert args[args.index("--requirepass") + 1] == "$(REDIS_PASSWORD)"
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
