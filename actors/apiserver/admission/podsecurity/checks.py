"""The Pod Security Standards checks, as pod-security-admission v0.35.6 `policy/check_*.go` words them.

Each check is one small function of (pod metadata, pod spec) returning None when allowed or a
(ForbiddenReason, ForbiddenDetail) pair, so the strings can be compared with upstream's tests one
check at a time. Which version of a check runs for a level and `v1.x`, and in what order, is the
registry's business (`policy.CHECKS`). Objects are plain dicts in Kubernetes JSON shape;
a missing key is Go's nil pointer.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

Finding = tuple[str, str] | None
CheckFn = Callable[[dict, dict], Finding]

PRIVILEGED, BASELINE, RESTRICTED = "privileged", "baseline", "restricted"


# ---- helpers (policy/helpers.go, policy/visitor.go) ----

def pluralize(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def join_quote(items: list[str]) -> str:
    """`"a", "b"`: upstream quotes without escaping."""
    return '"' + '", "'.join(items) + '"' if items else ""


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
            "\t": "\\t", "\v": "\\v"}


def go_quote(text: str) -> str:
    """Go's %q (strconv.Quote), which upstream uses for annotation and label values."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def dig(obj: Any, *path: str) -> Any:
    """A nested field, or None when any step is missing: Go's nil pointer chain."""
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _containers(spec: dict) -> Iterator[dict]:
    """initContainers, containers, ephemeralContainers: the order every detail lists names in."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        yield from spec.get(key) or ()


def _names(spec: dict, bad: Callable[[dict], bool]) -> list[str]:
    return [c.get("name", "") for c in _containers(spec) if bad(c)]


def _who(names: list[str]) -> str:
    return f'{pluralize("container", "containers", len(names))} {join_quote(names)}'


def _setters(pod: bool, names: list[str]) -> str:
    """`pod`, `container(s) "a"` or both joined by ` and `."""
    return " and ".join((["pod"] if pod else []) + ([_who(names)] if names else []))


def unless(predicate: Callable[[dict], bool], check: CheckFn) -> CheckFn:
    """A later check version that allows pods matching `predicate` and otherwise runs `check`."""
    def versioned(meta: dict, spec: dict) -> Finding:
        return None if predicate(spec) else check(meta, spec)
    return versioned


def windows(spec: dict) -> bool:
    return dig(spec, "os", "name") == "windows"


def user_namespaced(spec: dict) -> bool:
    """relaxPolicyForUserNamespacePod: `hostUsers: false` set explicitly."""
    return spec.get("hostUsers") is False


# ---- baseline ----

APPARMOR_TYPES = {"RuntimeDefault", "Localhost"}
APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"


def _bad_type(holder: Any, key: str, allowed: set[str]) -> str | None:
    profile = dig(holder, key)
    if profile is None:
        return None
    kind = profile.get("type", "") if isinstance(profile, dict) else ""
    return None if kind in allowed else kind


def app_armor_profile(meta: dict, spec: dict) -> Finding:
    pod = _bad_type(spec.get("securityContext"), "appArmorProfile", APPARMOR_TYPES)
    values = {pod} if pod is not None else set()
    names = []
    for c in _containers(spec):
        if (bad := _bad_type(c.get("securityContext"), "appArmorProfile", APPARMOR_TYPES)) is not None:
            names.append(c.get("name", ""))
            values.add(bad)
    notes = sorted(f"{k}={go_quote(v)}" for k, v in (meta.get("annotations") or {}).items()
                   if k.startswith(APPARMOR_ANNOTATION) and not _apparmor_annotation_ok(v))
    setters = [s for s in [_setters(pod is not None, names)] if s]
    if notes:
        setters.append(pluralize("annotation", "annotations", len(notes)))
    if not setters:
        return None
    listed = sorted(values) + notes
    return (pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", len(listed)),
            f"{' and '.join(setters)} must not set AppArmor profile type to {join_quote(listed)}")


def _apparmor_annotation_ok(value: str) -> bool:
    return value in ("", "runtime/default") or value.startswith("localhost/")


BASELINE_CAPABILITIES = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                         "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}


def capabilities_baseline(meta: dict, spec: dict) -> Finding:
    names, caps = [], set()
    for c in _containers(spec):
        added = [a for a in dig(c, "securityContext", "capabilities", "add") or () if a not in BASELINE_CAPABILITIES]
        if added:
            names.append(c.get("name", ""))
            caps.update(added)
    if not names:
        return None
    return ("non-default capabilities",
            f"{_who(names)} must not include {join_quote(sorted(caps))} in securityContext.capabilities.add")


def host_namespaces(meta: dict, spec: dict) -> Finding:
    shared = [f"{key}=true" for key in ("hostNetwork", "hostPID", "hostIPC") if spec.get(key) is True]
    return ("host namespaces", ", ".join(shared)) if shared else None


def host_path_volumes(meta: dict, spec: dict) -> Finding:
    names = [v.get("name", "") for v in spec.get("volumes") or () if v.get("hostPath") is not None]
    return ("hostPath volumes", f'{pluralize("volume", "volumes", len(names))} {join_quote(names)}') if names else None


def host_ports(meta: dict, spec: dict) -> Finding:
    names, ports = [], set()
    for c in _containers(spec):
        used = {str(p["hostPort"]) for p in c.get("ports") or () if p.get("hostPort") not in (None, 0)}
        if used:
            names.append(c.get("name", ""))
            ports |= used
    if not names:
        return None
    return ("hostPort", f'{_who(names)} {pluralize("uses", "use", len(names))} '
                        f'{pluralize("hostPort", "hostPorts", len(ports))} {", ".join(sorted(ports))}')


def _handler_hosts(handler: Any) -> list[str]:
    return [h for h in (dig(handler, "httpGet", "host"), dig(handler, "tcpSocket", "host")) if h]


def host_probes_and_host_lifecycle(meta: dict, spec: dict) -> Finding:
    """Upstream collects names into a set, so they come out sorted, not in visiting order."""
    names, hosts = set(), set()
    for c in _containers(spec):
        handlers = [c.get(p) for p in ("livenessProbe", "readinessProbe", "startupProbe")]
        handlers += [dig(c, "lifecycle", h) for h in ("postStart", "preStop")]
        found = [h for handler in handlers for h in _handler_hosts(handler)]
        if found:
            names.add(c.get("name", ""))
            hosts.update(found)
    if not names:
        return None
    return ("probe or lifecycle host",
            f'{_who(sorted(names))} {pluralize("uses", "use", len(names))} '
            f'{pluralize("probe or lifecycle host", "probe or lifecycle hosts", len(hosts))} '
            f'{join_quote(sorted(hosts))}')


def privileged(meta: dict, spec: dict) -> Finding:
    names = _names(spec, lambda c: dig(c, "securityContext", "privileged") is True)
    return ("privileged", f"{_who(names)} must not set securityContext.privileged=true") if names else None


def proc_mount(meta: dict, spec: dict) -> Finding:
    mounts = [(c.get("name", ""), dig(c, "securityContext", "procMount")) for c in _containers(spec)]
    bad = [(name, kind) for name, kind in mounts if kind is not None and kind != "Default"]
    if not bad:
        return None
    return ("procMount", f"{_who([n for n, _ in bad])} must not set securityContext.procMount to "
                         f"{join_quote(sorted({k for _, k in bad}))}")


SELINUX_TYPES_1_0 = {"", "container_t", "container_init_t", "container_kvm_t"}
SELINUX_TYPES_1_31 = SELINUX_TYPES_1_0 | {"container_engine_t"}


def se_linux_options(allowed: set[str]) -> CheckFn:
    """seLinuxOptions with the types allowed at a version (1.31 adds container_engine_t)."""
    def check(meta: dict, spec: dict) -> Finding:
        types, flags = set(), set()

        def invalid(opts: Any) -> bool:
            if not isinstance(opts, dict):
                return False
            found = [f for f in ("user", "role") if opts.get(f)]
            flags.update(found)
            if opts.get("type", "") not in allowed:
                types.add(opts.get("type", ""))
                return True
            return bool(found)

        pod = invalid(dig(spec, "securityContext", "seLinuxOptions"))
        names = _names(spec, lambda c: invalid(dig(c, "securityContext", "seLinuxOptions")))
        if not (pod or names):
            return None
        data = [f'{pluralize("type", "types", len(types))} {join_quote(sorted(types))}'] if types else []
        data += [f"{f} may not be set" for f in ("user", "role") if f in flags]
        return ("seLinuxOptions",
                f"{_setters(pod, names)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}")
    return check


SECCOMP_TYPES = {"RuntimeDefault", "Localhost"}
SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_ANNOTATION = "container.seccomp.security.alpha.kubernetes.io/"


def seccomp_annotations(meta: dict, spec: dict) -> Finding:
    """Before v1.19 the seccomp profile was set by annotations."""
    notes = meta.get("annotations") or {}
    keys = [SECCOMP_POD_ANNOTATION] + [SECCOMP_CONTAINER_ANNOTATION + c.get("name", "") for c in _containers(spec)]
    bad = sorted({f"{k}={go_quote(notes[k])}" for k in keys if k in notes and not _seccomp_annotation_ok(notes[k])})
    if not bad:
        return None
    return ("seccompProfile", f'forbidden {pluralize("annotation", "annotations", len(bad))} {", ".join(bad)}')


def _seccomp_annotation_ok(value: str) -> bool:
    return value in ("runtime/default", "docker/default") or value.startswith("localhost/")


def _seccomp_faults(spec: dict) -> tuple[str | None, list[str], list[str], set[str]]:
    """The pod's bad type, containers setting a bad type, containers leaving it unset, the bad types."""
    pod = _bad_type(spec.get("securityContext"), "seccompProfile", SECCOMP_TYPES)
    values = {pod} if pod is not None else set()
    explicit, implicit = [], []
    for c in _containers(spec):
        bad = _bad_type(c.get("securityContext"), "seccompProfile", SECCOMP_TYPES)
        if bad is not None:
            explicit.append(c.get("name", ""))
            values.add(bad)
        elif dig(c, "securityContext", "seccompProfile") is None:
            implicit.append(c.get("name", ""))
    return pod, explicit, implicit, values


def _seccomp_explicit(pod: str | None, explicit: list[str], values: set[str]) -> Finding:
    if pod is None and not explicit:
        return None
    return ("seccompProfile", f"{_setters(pod is not None, explicit)} must not set securityContext.seccompProfile.type "
                              f"to {join_quote(sorted(values))}")


def seccomp_profile_baseline(meta: dict, spec: dict) -> Finding:
    pod, explicit, _, values = _seccomp_faults(spec)
    return _seccomp_explicit(pod, explicit, values)


def seccomp_profile_restricted(meta: dict, spec: dict) -> Finding:
    """Like baseline, and a container must set a profile unless the pod sets a good one."""
    pod, explicit, implicit, values = _seccomp_faults(spec)
    if (found := _seccomp_explicit(pod, explicit, values)) is not None:
        return found
    if implicit and dig(spec, "securityContext", "seccompProfile") is None:
        return ("seccompProfile", f'pod or {_who(implicit)} must set securityContext.seccompProfile.type to '
                                  f'"RuntimeDefault" or "Localhost"')
    return None


SYSCTLS_1_0 = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
               "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"}
SYSCTLS_1_27 = SYSCTLS_1_0 | {"net.ipv4.ip_local_reserved_ports"}
SYSCTLS_1_29 = SYSCTLS_1_27 | {"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                               "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"}
SYSCTLS_1_32 = SYSCTLS_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}


def sysctls_allowing(allowed: set[str]) -> CheckFn:
    """sysctls with the safe set of a version; names keep their order and repeats."""
    def check(meta: dict, spec: dict) -> Finding:
        names = [s.get("name", "") for s in dig(spec, "securityContext", "sysctls") or ()]
        bad = [n for n in names if n not in allowed]
        return ("forbidden sysctls", ", ".join(bad)) if bad else None
    return check


def windows_host_process(meta: dict, spec: dict) -> Finding:
    pod = dig(spec, "securityContext", "windowsOptions", "hostProcess") is True
    names = _names(spec, lambda c: dig(c, "securityContext", "windowsOptions", "hostProcess") is True)
    if not (pod or names):
        return None
    return ("hostProcess", f"{_setters(pod, names)} must not set securityContext.windowsOptions.hostProcess=true")
