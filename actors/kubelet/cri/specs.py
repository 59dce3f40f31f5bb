"""A pod and its containers as CRI configurations (k8s-containers.md §4.1): PodSandboxConfig for
RunPodSandbox and ContainerConfig for CreateContainer, as dicts keyed by the proto's field names
(`json_format.ParseDict(d, cri_pb2.ContainerConfig())` reads them), with the kubelet's labels and
annotations, so a restarted kubelet finds its sandboxes and containers by label.
"""
from __future__ import annotations

import json

from actors.kubelet.cri import images, privsysfs, qos, security
from actors.kubelet.cri.expand import expand_all

POD_NAME, POD_NAMESPACE, POD_UID = "io.kubernetes.pod.name", "io.kubernetes.pod.namespace", "io.kubernetes.pod.uid"
CONTAINER_NAME = "io.kubernetes.container.name"
CONTAINER_HASH, RESTART_COUNT = "io.kubernetes.container.hash", "io.kubernetes.container.restartCount"
TERMINATION_MESSAGE_PATH = "io.kubernetes.container.terminationMessagePath"
TERMINATION_MESSAGE_POLICY = "io.kubernetes.container.terminationMessagePolicy"
PRESTOP_HANDLER, CONTAINER_PORTS = "io.kubernetes.container.preStopHandler", "io.kubernetes.container.ports"
CONTAINER_TYPE = "io.kubernetes.container.type"
DELETION_GRACE, TERMINATION_GRACE = "io.kubernetes.pod.deletionGracePeriod", "io.kubernetes.pod.terminationGracePeriod"
HOSTNAME_MAX = 63
KINDS = ("container", "init", "ephemeral")


def _meta(pod: dict) -> dict:
    return pod.get("metadata") or {}


def _spec(pod: dict) -> dict:
    return pod.get("spec") or {}


def sandbox_labels(pod: dict) -> dict:
    """newSandboxLabels: the pod's labels and the three io.kubernetes.pod.* keys."""
    meta = _meta(pod)
    return {**(meta.get("labels") or {}), POD_NAME: meta.get("name", ""),
            POD_NAMESPACE: meta.get("namespace", ""), POD_UID: meta.get("uid", "")}


def container_labels(pod: dict, name: str) -> dict:
    """newContainerLabels: the container's name and its pod's."""
    meta = _meta(pod)
    return {CONTAINER_NAME: name, POD_NAME: meta.get("name", ""), POD_NAMESPACE: meta.get("namespace", ""),
            POD_UID: meta.get("uid", "")}


def hostname(pod: dict) -> str:
    """The pod's hostname: spec.hostname or its name, at most 63 characters, no trailing `-` or `.`."""
    name = _spec(pod).get("hostname") or _meta(pod).get("name", "")
    return name if len(name) <= HOSTNAME_MAX else name[:HOSTNAME_MAX].rstrip("-.")


def log_directory(pod: dict, logs_root: str) -> str:
    """BuildPodLogsDirectory: <root>/<namespace>_<name>_<uid>."""
    meta = _meta(pod)
    return f"{logs_root.rstrip('/')}/{meta.get('namespace', '')}_{meta.get('name', '')}_{meta.get('uid', '')}"


def port_mappings(pod: dict) -> list[dict]:
    """Every port of the pod's (regular) containers, as the kubelet sends them (containerd's portmap
    then keeps those with a hostPort); a port name used twice in a container counts once."""
    mappings = []
    for container in _spec(pod).get("containers") or []:
        seen = set()
        for port in container.get("ports") or []:
            protocol = port.get("protocol") or "TCP"
            name = port.get("name") or (f"{protocol}{port.get('hostIP', '')}:"
                                        f"{port.get('containerPort', 0)}:{port.get('hostPort', 0)}")
            if name in seen:
                continue
            seen.add(name)
            mapping = {"protocol": protocol, "container_port": int(port.get("containerPort") or 0)}
            if port.get("hostPort"):
                mapping["host_port"] = int(port["hostPort"])
            if port.get("hostIP"):
                mapping["host_ip"] = port["hostIP"]
            mappings.append(mapping)
    return mappings


def sandbox_config(pod: dict, *, logs_root: str, dns_config: dict | None, attempt: int = 0) -> dict:
    """PodSandboxConfig (generatePodSandboxConfig)."""
    meta, spec = _meta(pod), _spec(pod)
    sysctls = {s["name"]: str(s.get("value", "")) for s in (spec.get("securityContext") or {}).get("sysctls") or []}
    config = {"metadata": {"name": meta.get("name", ""), "uid": meta.get("uid", ""),
                           "namespace": meta.get("namespace", ""), "attempt": attempt},
              "log_directory": log_directory(pod, logs_root),
              "port_mappings": port_mappings(pod),
              "labels": sandbox_labels(pod),
              "annotations": dict(meta.get("annotations") or {}),
              "linux": {"cgroup_parent": qos.pod_cgroup_parent(pod),
                        "security_context": security.sandbox_security(pod),
                        "sysctls": sysctls,
                        "resources": qos.sandbox_resources(pod)}}
    if not spec.get("hostNetwork"):
        config["hostname"] = hostname(pod)
    if config["linux"]["security_context"]["privileged"]:
        config["annotations"][privsysfs.ANNOTATION] = "true"  # its /sys read-write: privsysfs.py
    if dns_config:
        config["dns_config"] = dns_config
    return config


def container_hash(container: dict) -> str:
    """A stable hash of what makes a container another one (the kubelet's HashContainer hashes its
    name and image): FNV-1a 32 of that JSON, in hex."""
    data = json.dumps({"image": container.get("image", ""), "name": container.get("name", "")},
                      separators=(",", ":"), sort_keys=True).encode()
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return format(value, "x")


def _go_ports_json(ports: list[dict]) -> str:
    """json.Marshal of []ContainerPort: Go's field order, empty optional fields left out."""
    shown = []
    for port in ports:
        item = {"name": port.get("name"), "hostPort": port.get("hostPort"),
                "containerPort": int(port.get("containerPort") or 0), "protocol": port.get("protocol") or "TCP",
                "hostIP": port.get("hostIP")}
        shown.append({k: v for k, v in item.items() if v or k == "containerPort"})
    return json.dumps(shown, separators=(",", ":"))


def container_annotations(pod: dict, container: dict, *, instance: int, kind: str = "container") -> dict:
    """newContainerAnnotations, plus the container's type (container, init, ephemeral)."""
    meta, spec = _meta(pod), _spec(pod)
    annotations = {CONTAINER_HASH: container_hash(container), RESTART_COUNT: str(instance),
                   TERMINATION_MESSAGE_PATH: container.get("terminationMessagePath") or "/dev/termination-log",
                   TERMINATION_MESSAGE_POLICY: container.get("terminationMessagePolicy") or "File",
                   TERMINATION_GRACE: str(spec.get("terminationGracePeriodSeconds", 30)),
                   CONTAINER_TYPE: kind}
    if meta.get("deletionGracePeriodSeconds") is not None:
        annotations[DELETION_GRACE] = str(meta["deletionGracePeriodSeconds"])
    pre_stop = (container.get("lifecycle") or {}).get("preStop")
    if pre_stop:
        annotations[PRESTOP_HANDLER] = json.dumps(pre_stop, separators=(",", ":"))
    if container.get("ports"):
        annotations[CONTAINER_PORTS] = _go_ports_json(container["ports"])
    return annotations


def container_config(pod: dict, container: dict, *, instance: int, env: dict[str, str], kind: str = "container",
                     memory_capacity: int, mounts: list[dict] = (), image_ref: str | None = None,
                     image_user: security.ImageUser | None = None, seccomp_default: bool = False,
                     seccomp_root: str = security.SECCOMP_ROOT) -> dict:
    """ContainerConfig (generateContainerConfig). The image is `image_ref` (the id PullImage answered)
    when given, else the spec's with its default tag; `image_user` (from ImageStatus) is checked
    against runAsNonRoot and stands for runAsUser when the spec has none. `seccomp_default` is the
    kubelet's seccompDefault: RuntimeDefault for containers whose spec names no profile."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    name = container.get("name", "")
    if image_user is not None:
        security.verify_run_as_non_root(pod, container, image_user)
    config = {"metadata": {"name": name, "attempt": instance},
              "image": {"image": image_ref or images.reference(container.get("image") or "")},
              "envs": [{"key": key, "value": value} for key, value in env.items()],
              "mounts": [dict(m) for m in mounts],
              "labels": container_labels(pod, name),
              "annotations": container_annotations(pod, container, instance=instance, kind=kind),
              "log_path": f"{name}/{instance}.log",
              "stdin": bool(container.get("stdin")), "stdin_once": bool(container.get("stdinOnce")),
              "tty": bool(container.get("tty")),
              "linux": {"resources": qos.container_resources(pod, container, memory_capacity),
                        "security_context": security.container_security(
                            pod, container, image=image_user, seccomp_root=seccomp_root,
                            seccomp_default=seccomp_default)}}
    for field in ("command", "args"):
        if container.get(field):
            config[field] = expand_all(container[field], env)
    if container.get("workingDir"):
        config["working_dir"] = container["workingDir"]
    return config
