"""The Kustomize overlays, rendered offline, and lookups in what they render."""

from __future__ import annotations

import subprocess
from functools import cache

import yaml

from tests.helpers import ROOT

K8S = ROOT / "k8s"


@cache
def render(overlay: str) -> tuple[dict, ...]:
    out = subprocess.run(["kubectl", "kustomize", str(K8S / "overlays" / overlay)],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return tuple(doc for doc in yaml.safe_load_all(out) if doc)


def find(objects, kind: str, name: str) -> dict:
    matches = [o for o in objects if o["kind"] == kind and o["metadata"]["name"].startswith(name)]
    assert len(matches) == 1, f"expected one {kind} {name}, found {len(matches)}"
    return matches[0]


def container(statefulset: dict, name: str) -> dict:
    return next(c for c in statefulset["spec"]["template"]["spec"]["containers"]
                if c["name"] == name)
