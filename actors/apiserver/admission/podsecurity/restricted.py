"""The restricted level's own Pod Security checks (pod-security-admission v0.35.6 `policy/check_*.go`),
in the style of `checks.py`, whose helpers they share; the registry is `policy.py`."""
from __future__ import annotations

from typing import Any

from actors.apiserver.admission.podsecurity.checks import (_containers, _names, _setters, _who, dig, Finding,
                                                           join_quote, pluralize)


def allow_privilege_escalation(meta: dict, spec: dict) -> Finding:
    names = _names(spec, lambda c: dig(c, "securityContext", "allowPrivilegeEscalation") is not False)
    if not names:
        return None
    return ("allowPrivilegeEscalation != false",
            f"{_who(names)} must set securityContext.allowPrivilegeEscalation=false")


def capabilities_restricted(meta: dict, spec: dict) -> Finding:
    no_drop, adding, caps = [], [], set()
    for c in _containers(spec):
        held = dig(c, "securityContext", "capabilities")
        if held is None or "ALL" not in (held.get("drop") or ()):
            no_drop.append(c.get("name", ""))
        added = [a for a in (held or {}).get("add") or () if a != "NET_BIND_SERVICE"]
        if added:
            adding.append(c.get("name", ""))
            caps.update(added)
    details = [f'{_who(no_drop)} must set securityContext.capabilities.drop=["ALL"]'] if no_drop else []
    if adding:
        details.append(f"{_who(adding)} must not include {join_quote(sorted(caps))} "
                       "in securityContext.capabilities.add")
    return ("unrestricted capabilities", "; ".join(details)) if details else None


RESTRICTED_VOLUMES_OK = ("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image", "persistentVolumeClaim",
                         "projected", "secret")
RESTRICTED_VOLUME_NAMES = ("hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi",
                           "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile",
                           "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume",
                           "scaleIO", "storageos")


def restricted_volumes(meta: dict, spec: dict) -> Finding:
    """A volume with no source at all is allowed: the apiserver defaults it to emptyDir before
    admission (SetDefaults_Volume), and kubus does not."""
    names, kinds = [], set()
    for volume in spec.get("volumes") or ():
        if all(v is None for k, v in volume.items() if k != "name"):
            continue
        if any(volume.get(k) is not None for k in RESTRICTED_VOLUMES_OK):
            continue
        names.append(volume.get("name", ""))
        kinds.add(next((k for k in RESTRICTED_VOLUME_NAMES if volume.get(k) is not None), "unknown"))
    if not names:
        return None
    return ("restricted volume types",
            f'{pluralize("volume", "volumes", len(names))} {join_quote(names)} {pluralize("uses", "use", len(names))} '
            f'{pluralize("restricted volume type", "restricted volume types", len(kinds))} {join_quote(sorted(kinds))}')


def run_as_non_root(meta: dict, spec: dict) -> Finding:
    pod = dig(spec, "securityContext", "runAsNonRoot")
    values = [(c.get("name", ""), dig(c, "securityContext", "runAsNonRoot")) for c in _containers(spec)]
    explicit = [name for name, v in values if v is False]
    if pod is False or explicit:
        return ("runAsNonRoot != true",
                f"{_setters(pod is False, explicit)} must not set securityContext.runAsNonRoot=false")
    implicit = [name for name, v in values if v is None and pod is not True]
    if implicit:
        return ("runAsNonRoot != true", f"pod or {_who(implicit)} must set securityContext.runAsNonRoot=true")
    return None


def _root(sc: Any) -> bool:
    value = dig(sc, "runAsUser")
    return type(value) is int and value == 0


def run_as_user(meta: dict, spec: dict) -> Finding:
    pod = _root(spec.get("securityContext"))
    names = _names(spec, lambda c: _root(c.get("securityContext")))
    return ("runAsUser=0", f"{_setters(pod, names)} must not set runAsUser=0") if pod or names else None
