"""A pod's securityContext as the kubelet sends it over CRI (k8s-containers.md §1.4, §4.6, §4.7):
the sandbox's LinuxSandboxSecurityContext, each container's LinuxContainerSecurityContext (the
container's fields over the pod's), and the runAsNonRoot check against the image's user.
"""
from __future__ import annotations

import posixpath
from dataclasses import dataclass

from actors.kubelet.runtimes.base import StartError

SECCOMP_ROOT = "/var/lib/kubelet/seccomp"  # <kubelet root>/seccomp, where Localhost profiles live
CREATE_CONTAINER_CONFIG_ERROR = "CreateContainerConfigError"

# pkg/securitycontext/util.go: what the Default procMount masks and makes read-only (moby's defaults)
DEFAULT_MASKED_PATHS = ("/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                        "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
                        "/sys/firmware", "/sys/devices/virtual/powercap")
DEFAULT_READONLY_PATHS = ("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger")


@dataclass(frozen=True)
class ImageUser:
    """The image's user as ImageStatus reports it: a numeric uid, or a name, or neither (root)."""

    uid: int | None = None
    username: str = ""

    @classmethod
    def from_image(cls, image: dict | None) -> "ImageUser":
        """From ImageStatus's `image` as a dict (ParseDict's or MessageToDict's form; None if absent)."""
        uid = (image or {}).get("uid")
        if isinstance(uid, dict):
            uid = uid.get("value", 0)
        return cls(None if uid is None else int(uid), (image or {}).get("username") or "")


def _pod_sc(pod: dict) -> dict:
    return (pod.get("spec") or {}).get("securityContext") or {}


def _sc(container: dict) -> dict:
    return container.get("securityContext") or {}


def effective(pod: dict, container: dict, field: str):
    """DetermineEffectiveSecurityContext for one field the pod also has: the container's, else the pod's."""
    value = _sc(container).get(field)
    return _pod_sc(pod).get(field) if value is None else value


def _all_containers(pod: dict) -> list[dict]:
    spec = pod.get("spec") or {}
    return [c for key in ("initContainers", "containers", "ephemeralContainers") for c in spec.get(key) or []]


def namespace_options(pod: dict) -> dict:
    """NamespacesForPod: network/ipc POD unless host (NODE); pid CONTAINER unless hostPID (NODE) or
    shareProcessNamespace (POD)."""
    spec = pod.get("spec") or {}
    pid = "NODE" if spec.get("hostPID") else "POD" if spec.get("shareProcessNamespace") else "CONTAINER"
    return {"network": "NODE" if spec.get("hostNetwork") else "POD",
            "pid": pid, "ipc": "NODE" if spec.get("hostIPC") else "POD"}


def _int64(value) -> dict:
    return {"value": int(value)}


def _selinux(options: dict | None) -> dict | None:
    if not options:
        return None
    return {key: options[key] for key in ("user", "role", "type", "level") if options.get(key)}


def sandbox_security(pod: dict) -> dict:
    """LinuxSandboxSecurityContext (generatePodSandboxLinuxConfig): privileged if any container is,
    seccomp RuntimeDefault always, the pod's user and group, supplemental groups = fsGroup then
    supplementalGroups, the pod's namespaces."""
    sc = _pod_sc(pod)
    result = {"namespace_options": namespace_options(pod),
              "privileged": any(_sc(c).get("privileged") for c in _all_containers(pod)),
              "readonly_rootfs": False,
              "seccomp": {"profile_type": "RuntimeDefault"}}
    for field, key in (("runAsUser", "run_as_user"), ("runAsGroup", "run_as_group")):
        if sc.get(field) is not None:
            result[key] = _int64(sc[field])
    groups = _supplemental_groups(pod)
    if groups:
        result["supplemental_groups"] = groups
    if _selinux(sc.get("seLinuxOptions")):
        result["selinux_options"] = _selinux(sc.get("seLinuxOptions"))
    return result


def _supplemental_groups(pod: dict) -> list[int]:
    sc = _pod_sc(pod)
    head = [int(sc["fsGroup"])] if sc.get("fsGroup") is not None else []
    return head + [int(g) for g in sc.get("supplementalGroups") or []]


def seccomp(pod: dict, container: dict, *, seccomp_root: str = SECCOMP_ROOT, default: bool = False) -> dict:
    """getSeccompProfile: the container's profile, else the pod's, else Unconfined (RuntimeDefault
    with the kubelet's seccompDefault). Localhost needs a localhostProfile under the kubelet's root."""
    profile = _sc(container).get("seccompProfile") or _pod_sc(pod).get("seccompProfile")
    if profile is None:
        return {"profile_type": "RuntimeDefault" if default else "Unconfined"}
    kind = profile.get("type")
    if kind == "RuntimeDefault":
        return {"profile_type": "RuntimeDefault"}
    if kind == "Localhost":
        if not profile.get("localhostProfile"):
            raise StartError(CREATE_CONTAINER_CONFIG_ERROR,
                             "localhostProfile must be set if seccompProfile type is Localhost.")
        return {"profile_type": "Localhost",
                "localhost_ref": posixpath.join(seccomp_root, profile["localhostProfile"])}
    return {"profile_type": "Unconfined"}


def container_security(pod: dict, container: dict, *, image: ImageUser | None = None,
                       seccomp_root: str = SECCOMP_ROOT, seccomp_default: bool = False) -> dict:
    """LinuxContainerSecurityContext (determineEffectiveSecurityContext). Without a runAsUser the image's
    uid (or its user name) is sent when `image` is given."""
    sc = _sc(container)
    result: dict = {"privileged": bool(sc.get("privileged")),
                    "readonly_rootfs": bool(sc.get("readOnlyRootFilesystem")),
                    "namespace_options": namespace_options(pod),
                    "seccomp": seccomp(pod, container, seccomp_root=seccomp_root, default=seccomp_default)}
    caps = sc.get("capabilities")
    if caps is not None:
        result["capabilities"] = {"add_capabilities": list(caps.get("add") or []),
                                  "drop_capabilities": list(caps.get("drop") or [])}
    for field, key in (("runAsUser", "run_as_user"), ("runAsGroup", "run_as_group")):
        if effective(pod, container, field) is not None:
            result[key] = _int64(effective(pod, container, field))
    if "run_as_user" not in result and image is not None:
        if image.uid is not None:
            result["run_as_user"] = _int64(image.uid)
        if image.username:
            result["run_as_username"] = image.username
    if _selinux(effective(pod, container, "seLinuxOptions")):
        result["selinux_options"] = _selinux(effective(pod, container, "seLinuxOptions"))
    if _supplemental_groups(pod):
        result["supplemental_groups"] = _supplemental_groups(pod)
    result["no_new_privs"] = sc.get("allowPrivilegeEscalation") is False
    unmasked = sc.get("procMount") == "Unmasked"
    result["masked_paths"] = [] if unmasked else list(DEFAULT_MASKED_PATHS)
    result["readonly_paths"] = [] if unmasked else list(DEFAULT_READONLY_PATHS)
    return result


def format_pod(pod: dict) -> str:
    """format.Pod: <name>_<namespace>(<uid>)."""
    meta = pod.get("metadata") or {}
    return f"{meta.get('name', '')}_{meta.get('namespace', '')}({meta.get('uid', '')})"


def verify_run_as_non_root(pod: dict, container: dict, image: ImageUser) -> None:
    """verifyRunAsNonRoot: with runAsNonRoot, a runAsUser of 0, an image running as root (uid 0, or no
    user at all) or a non-numeric image user is a CreateContainerConfigError."""
    if not effective(pod, container, "runAsNonRoot"):
        return
    where = f'(pod: "{format_pod(pod)}", container: {container.get("name", "")})'
    run_as_user = effective(pod, container, "runAsUser")
    if run_as_user is not None:
        if int(run_as_user) == 0:
            raise StartError(CREATE_CONTAINER_CONFIG_ERROR, f"container's runAsUser breaks non-root policy {where}")
        return
    if image.uid is None and image.username:
        raise StartError(CREATE_CONTAINER_CONFIG_ERROR,
                         f"container has runAsNonRoot and image has non-numeric user ({image.username}), "
                         f"cannot verify user is non-root {where}")
    if (image.uid or 0) == 0:
        raise StartError(CREATE_CONTAINER_CONFIG_ERROR,
                         f"container has runAsNonRoot and image will run as root {where}")
