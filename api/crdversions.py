"""A CRD's versions as Kubernetes orders and announces them: kube-aware version priority (GA > beta >
alpha, then major, then minor; other names after, lexicographic — `version.CompareKubeAwareVersionStrings`)
and the deprecation warning a deprecated version answers every request with."""
from __future__ import annotations

import re

KUBE = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")
STAGE = {None: 2, "beta": 1, "alpha": 0}


def priority(name: str) -> tuple:
    """A sort key: the most preferred version first (`v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, …`)."""
    found = KUBE.match(name)
    if found is None:
        return (1, name)
    major, stage, minor = found.groups()
    return (0, -STAGE[stage], -int(major), -int(minor or 0))


def ordered(names) -> list[str]:
    return sorted(names, key=priority)


def deprecation(crd: dict, version: str) -> str | None:
    """The Warning text of a request to a deprecated version: its deprecationWarning, else Kubernetes'
    default naming the newest served non-deprecated version more preferred than it."""
    spec = crd.get("spec") or {}
    versions = spec.get("versions") or []
    entry = next((v for v in versions if v.get("name") == version), None)
    if entry is None or not entry.get("deprecated"):
        return None
    if entry.get("deprecationWarning") is not None:
        return entry["deprecationWarning"]
    kind = spec["names"]["kind"]
    text = f"{spec['group']}/{version} {kind} is deprecated"
    newer = [v["name"] for v in versions if v.get("served") and not v.get("deprecated")
             and priority(v["name"]) < priority(version)]
    if newer:
        text += f"; use {spec['group']}/{ordered(newer)[0]} {kind}"
    return text
