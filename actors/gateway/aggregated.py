"""Aggregated discovery (`apidiscovery.k8s.io` v2, and v2beta1 for older clients): `/api` and `/apis`
answered as one APIGroupDiscoveryList each when the client's Accept asks for it, as kubectl since 1.30
does (`application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`); built from the same
entries as the legacy documents, so built-in and custom kinds are listed alike."""
from __future__ import annotations

from actors.gateway import discovery
from api.customkinds import CustomKind
from api.registry import all_kinds

GROUP = "apidiscovery.k8s.io"
VERSIONS = ("v2", "v2beta1")


def asked(accept: str | None) -> str | None:
    """The aggregated version the first JSON type the client accepts asks for (None: the legacy form)."""
    for part in (accept or "").split(","):
        media, *raw = (p.strip() for p in part.split(";"))
        params = dict(p.split("=", 1) for p in raw if "=" in p)
        if media.lower() not in ("application/json", "*/*"):
            continue
        if params.get("g") == GROUP and params.get("as") == "APIGroupDiscoveryList" and params.get("v") in VERSIONS:
            return params["v"]
        if not params:
            return None
    return None


def content_type(version: str) -> str:
    return f"application/json;g={GROUP};v={version};as=APIGroupDiscoveryList"


def group_list(version: str, core: bool) -> dict:
    """`/api` (the core group alone) or `/apis` (every other group, its versions in the legacy order)."""
    groups: dict[str, list[dict]] = {}
    for api_version in discovery.group_versions():
        group, _, gv_version = api_version.rpartition("/")
        if (group == "") == core:
            groups.setdefault(group, []).append(
                {"version": gv_version, "resources": resources(api_version), "freshness": "Current"})
    items = [{"metadata": {"name": name, "creationTimestamp": None}, "versions": versions}
             for name, versions in groups.items()]
    return {"kind": "APIGroupDiscoveryList", "apiVersion": f"{GROUP}/{version}", "metadata": {}, "items": items}


def resources(api_version: str) -> list[dict]:
    """The legacy entries of one group-version, each subresource folded into its resource."""
    listed = (discovery.api_resource_list(api_version) or {}).get("resources") or []
    custom = {info.plural for info in all_kinds() if isinstance(info, CustomKind)}
    group, _, version = api_version.rpartition("/")
    out: dict[str, dict] = {}
    for entry in listed:
        name, _, sub = entry["name"].partition("/")
        if not sub:
            out[name] = _resource(entry, (group, version) if name in custom else ("", ""))
        elif name in out:
            out[name].setdefault("subresources", []).append(
                {"subresource": sub, "verbs": entry["verbs"],
                 "responseKind": {"group": entry.get("group", ""), "version": entry.get("version", ""),
                                  "kind": entry["kind"]}})
    return [out[name] for name in sorted(out)]


def _resource(entry: dict, group_version: tuple[str, str]) -> dict:
    found = {"resource": entry["name"], "singularResource": entry["singularName"],
             "scope": "Namespaced" if entry["namespaced"] else "Cluster", "verbs": entry["verbs"],
             "responseKind": {"group": group_version[0], "version": group_version[1], "kind": entry["kind"]}}
    for key in ("shortNames", "categories"):
        if entry.get(key):
            found[key] = entry[key]
    return found
