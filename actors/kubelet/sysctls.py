"""The kubelet's sysctl admission (pkg/kubelet/sysctl/allowlist.go, safe_sysctls.go): a pod may set the
safe sysctls and those the node allows beyond them (`allowedUnsafeSysctls`, names or `prefix*`
patterns, namespaced ones only); any other is refused at admission — the pod fails with reason
`SysctlForbidden` — and so is a net sysctl with hostNetwork or an ipc one with hostIPC."""
from __future__ import annotations

import structlog

log = structlog.get_logger("kubelet")
REASON = "SysctlForbidden"
NET, IPC = "net", "ipc"
# safe_sysctls.go as of 1.32 (the Pod Security baseline's list of the same version)
SAFE = {"kernel.shm_rmid_forced": IPC, "net.ipv4.ip_local_port_range": NET, "net.ipv4.tcp_syncookies": NET,
        "net.ipv4.ping_group_range": NET, "net.ipv4.ip_unprivileged_port_start": NET,
        "net.ipv4.ip_local_reserved_ports": NET, "net.ipv4.tcp_keepalive_time": NET,
        "net.ipv4.tcp_fin_timeout": NET, "net.ipv4.tcp_keepalive_intvl": NET,
        "net.ipv4.tcp_keepalive_probes": NET, "net.ipv4.tcp_rmem": NET, "net.ipv4.tcp_wmem": NET}
# namespaces.go: which sysctls a namespace holds (the others are the host's: never allowed)
NAMESPACED = (("kernel.shm", IPC), ("kernel.msg", IPC), ("kernel.sem", IPC), ("fs.mqueue.", IPC), ("net.", NET))


def normalize(name: str) -> str:
    """NormalizeName: `net/ipv4/ip_forward` → `net.ipv4.ip_forward` (the first separator decides)."""
    slash, dot = name.find("/"), name.find(".")
    if slash != -1 and (dot == -1 or slash < dot):
        return name.replace(".", "\0").replace("/", ".").replace("\0", "/")
    return name


def namespace_of(name: str) -> str | None:
    return next((ns for prefix, ns in NAMESPACED if name.startswith(prefix)), None)


class Allowlist:
    def __init__(self, unsafe: tuple[str, ...] = ()):
        self.sysctls, self.prefixes = dict(SAFE), {}
        for pattern in unsafe:
            ns = namespace_of(normalize(pattern).rstrip("*"))
            if ns is None:
                log.warning("kubelet.sysctl_not_namespaced", sysctl=pattern)  # the kubelet refuses to start
            elif pattern.endswith("*"):
                self.prefixes[normalize(pattern[:-1])] = ns
            else:
                self.sysctls[normalize(pattern)] = ns

    def validate(self, name: str, host_net: bool, host_ipc: bool) -> str | None:
        """validateSysctl: why the sysctl may not be set, or None."""
        name = normalize(name)
        ns = self.sysctls.get(name) or next((n for p, n in self.prefixes.items() if name.startswith(p)), None)
        if ns is None:
            return f'"{name}" not allowlisted'
        if (ns == IPC and host_ipc) or (ns == NET and host_net):
            return f'"{name}" not allowed with host {ns} enabled'
        return None

    def admit(self, pod: dict) -> tuple[str, str] | None:
        """The pod's refusal (reason, message), or None."""
        spec = pod.get("spec") or {}
        for sysctl in (spec.get("securityContext") or {}).get("sysctls") or []:
            why = self.validate(sysctl.get("name", ""), bool(spec.get("hostNetwork")), bool(spec.get("hostIPC")))
            if why:
                return REASON, f"forbidden sysctl: {why}"
        return None
