"""Legacy discovery (`/api`, `/apis`, `/api/v1`, `/apis/<group>/<version>`) and `/version`, built
from the kind registry; the aggregated form kubectl asks for first is built from these entries
(aggregated.py). Clients that ask for plain JSON read this form and ask for each group-version."""
from __future__ import annotations

from actors.gateway import metricsapi
from actors.gateway.paths import REVIEW_PATHS
from actors.gateway.subresources import STATUS_KINDS, scalable
from api import metrics
from api.autoscalingv1 import OTHER_VERSIONS
from api.customkinds import CustomKind
from api.registry import all_kinds, KindInfo

# kubectl reads discovery for what it may ask: only what is served is listed
VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
SUB_VERBS = ["get", "patch", "update"]
CATEGORY_ALL = {"Pod", "ReplicaSet", "Deployment", "DaemonSet", "StatefulSet", "Job", "CronJob",
                "ReplicationController", "HorizontalPodAutoscaler"}  # `kubectl get all`
VERSION = {"major": "1", "minor": "35", "gitVersion": "v1.35.4-kubus", "gitCommit": "", "gitTreeState": "clean",
           "buildDate": "1970-01-01T00:00:00Z", "goVersion": "go1.24", "compiler": "gc",
           "platform": "linux/amd64"}


def group_versions() -> dict[str, list[KindInfo]]:
    """Kinds by their apiVersion ("v1", "apps/v1", …), in registry order; the access reviews' groups too."""
    found: dict[str, list[KindInfo]] = {}
    for info in all_kinds():
        versions = info.versions if isinstance(info, CustomKind) else (  # its own first: the preferred one
            info.api_version.rpartition("/")[2], *(v.rpartition("/")[2] for k, v in OTHER_VERSIONS if k == info.kind))
        for version in versions:
            found.setdefault(f"{info.group}/{version}" if info.group else version, []).append(info)
    for api_version, _ in REVIEW_PATHS:
        found.setdefault(api_version, [])
    found.setdefault(metrics.API_VERSION, [])  # the resource metrics API (metrics-server's APIService)
    return found


def api_versions(server_address: str) -> dict:
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]}


def api_group_list() -> dict:
    groups: dict[str, dict] = {}
    for api_version in group_versions():
        group, _, version = api_version.rpartition("/")
        if group:
            entry = {"groupVersion": api_version, "version": version}
            found = groups.setdefault(group, {"name": group, "versions": [], "preferredVersion": entry})
            found["versions"].append(entry)
    groups = list(groups.values())
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_resource_list(api_version: str) -> dict | None:
    if api_version == metrics.API_VERSION:
        return metricsapi.resource_list()
    kinds = group_versions().get(api_version)
    if kinds is None:
        return None
    resources = [entry for info in kinds for entry in (_resource(info), *_subresources(info))]
    resources += [{"name": plural, "singularName": kind.lower(), "namespaced": False, "kind": kind, "verbs": ["create"]}
                  for (gv, plural), kind in REVIEW_PATHS.items() if gv == api_version]
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": api_version, "resources": resources}


def _resource(info: KindInfo) -> dict:
    custom = isinstance(info, CustomKind)
    entry = {"name": info.plural, "singularName": info.singular if custom else info.kind.lower(),
             "namespaced": info.namespaced, "kind": info.kind, "verbs": list(VERBS)}
    if custom and info.terminating:
        entry["verbs"] = ["delete", "get", "list", "watch"]
    if info.short_names:
        entry["shortNames"] = list(info.short_names)
    if info.kind in CATEGORY_ALL:
        entry["categories"] = ["all"]
    if custom and info.categories:
        entry["categories"] = list(info.categories)
    return entry


def _subresources(info: KindInfo) -> list[dict]:
    entries = []
    if info.kind in STATUS_KINDS or isinstance(info, CustomKind) and info.status_subresource:
        entries.append(_sub(info, "status", info.kind, SUB_VERBS))
    if scalable(info):
        entries.append({**_sub(info, "scale", "Scale", SUB_VERBS), "group": "autoscaling", "version": "v1"})
    if info.kind == "Pod":
        entries += [_sub(info, "binding", "Binding", ["create"]), _sub(info, "log", "Pod", ["get"]),
                    {**_sub(info, "eviction", "Eviction", ["create"]), "group": "policy", "version": "v1"},
                    *(_sub(info, name, options, ["create", "get"]) for name, options in
                      (("exec", "PodExecOptions"), ("attach", "PodAttachOptions"),
                       ("portforward", "PodPortForwardOptions")))]
    if info.kind == "ServiceAccount":
        entries.append({**_sub(info, "token", "TokenRequest", ["create"]), "group": "authentication.k8s.io",
                        "version": "v1"})
    return entries


def _sub(info: KindInfo, name: str, kind: str, verbs: list[str]) -> dict:
    return {"name": f"{info.plural}/{name}", "singularName": "", "namespaced": info.namespaced, "kind": kind,
            "verbs": verbs}
