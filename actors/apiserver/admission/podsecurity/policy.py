"""Pod Security Admission (pod-security-admission v0.35.6) as pure logic: namespace labels to a
policy, the versioned check registry, the enforce/warn/audit decision for pods and pod templates,
and (in `namespace.py`) the dry run of existing pods when a namespace's enforce level tightens.

The checks themselves live in `checks.py` (the restricted level's own in `restricted.py`); this
module says which of them run for a level and version, and turns their findings into Kubernetes'
exact messages.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from actors.apiserver.admission.podsecurity import checks as c
from actors.apiserver.admission.podsecurity import restricted as r
from actors.apiserver.admission.podsecurity.checks import BASELINE, PRIVILEGED, RESTRICTED, CheckFn, go_quote
from api.status import Cause

LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)
LATEST = "latest"
PREFIX = "pod-security.kubernetes.io/"
MODES = ("enforce", "audit", "warn")
ENFORCE_POLICY, AUDIT_VIOLATIONS, EXEMPT, ERROR = (PREFIX + k for k in ("enforce-policy", "audit-violations",
                                                                       "exempt", "error"))
BAD_LEVEL = "must be one of privileged, baseline, restricted"
BAD_VERSION = 'must be "latest" or "v1.x"'
VERSION = re.compile(r"v1\.([0-9]|[1-9][0-9]*)")
IGNORED_POD_SUBRESOURCES = {"exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"}
TEMPLATES = {"ReplicationController": ("spec", "template"), "PodTemplate": ("template",),
             "ReplicaSet": ("spec", "template"), "Deployment": ("spec", "template"),
             "StatefulSet": ("spec", "template"), "DaemonSet": ("spec", "template"), "Job": ("spec", "template"),
             "CronJob": ("spec", "jobTemplate", "spec", "template")}
MAX_PODS_TO_CHECK = 3000


# ---- the check registry (policy/registry.go) ----

@dataclass(frozen=True)
class Versioned:
    since: int                 # the first v1.<since> this version of the check applies to
    fn: CheckFn
    overrides: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    id: str
    level: str
    versions: tuple[Versioned, ...]


_V = Versioned
_userns, _windows, _selinux, _sysctls = c.user_namespaced, c.windows, c.se_linux_options, c.sysctls_allowing
CHECKS = (
    Check("appArmorProfile", BASELINE, (_V(0, c.app_armor_profile),)),
    Check("capabilities_baseline", BASELINE, (_V(0, c.capabilities_baseline),)),
    Check("hostNamespaces", BASELINE, (_V(0, c.host_namespaces),)),
    Check("hostPathVolumes", BASELINE, (_V(0, c.host_path_volumes),)),
    Check("hostPorts", BASELINE, (_V(0, c.host_ports),)),
    Check("hostProbesAndHostLifecycle", BASELINE, (_V(34, c.host_probes_and_host_lifecycle),)),
    Check("privileged", BASELINE, (_V(0, c.privileged),)),
    Check("procMount", BASELINE, (_V(0, c.proc_mount), _V(35, c.unless(_userns, c.proc_mount)))),
    Check("seLinuxOptions", BASELINE, (_V(0, _selinux(c.SELINUX_TYPES_1_0)), _V(31, _selinux(c.SELINUX_TYPES_1_31)))),
    Check("seccompProfile_baseline", BASELINE, (_V(0, c.seccomp_annotations), _V(19, c.seccomp_profile_baseline))),
    Check("sysctls", BASELINE, (_V(0, _sysctls(c.SYSCTLS_1_0)), _V(27, _sysctls(c.SYSCTLS_1_27)),
                                _V(29, _sysctls(c.SYSCTLS_1_29)), _V(32, _sysctls(c.SYSCTLS_1_32)))),
    Check("windowsHostProcess", BASELINE, (_V(0, c.windows_host_process),)),
    Check("allowPrivilegeEscalation", RESTRICTED, (_V(8, r.allow_privilege_escalation),
                                                   _V(25, c.unless(_windows, r.allow_privilege_escalation)))),
    Check("capabilities_restricted", RESTRICTED, (
        _V(22, r.capabilities_restricted, ("capabilities_baseline",)),
        _V(25, c.unless(_windows, r.capabilities_restricted), ("capabilities_baseline",)))),
    Check("procMount_restricted", RESTRICTED, (_V(35, c.proc_mount, ("procMount",)),)),
    Check("restrictedVolumes", RESTRICTED, (_V(0, r.restricted_volumes, ("hostPathVolumes",)),)),
    Check("runAsNonRoot", RESTRICTED, (_V(0, r.run_as_non_root), _V(35, c.unless(_userns, r.run_as_non_root)))),
    Check("runAsUser", RESTRICTED, (_V(23, r.run_as_user), _V(35, c.unless(_userns, r.run_as_user)))),
    Check("seccompProfile_restricted", RESTRICTED, (
        _V(19, c.seccomp_profile_restricted, ("seccompProfile_baseline",)),
        _V(25, c.unless(_windows, c.seccomp_profile_restricted), ("seccompProfile_baseline",)))),
)
NEWEST = max(v.since for check in CHECKS for v in check.versions)
ORDER = sorted(k.id for k in CHECKS if k.level == BASELINE) + sorted(k.id for k in CHECKS if k.level == RESTRICTED)


def _at(check: Check, minor: int) -> Versioned | None:
    """The check's version in force at v1.<minor>; None before its first version."""
    return next((v for v in reversed(check.versions) if v.since <= minor), None)


@lru_cache(maxsize=None)
def checks_for(level: str, minor: int) -> tuple[CheckFn, ...]:
    """The checks a level runs at v1.<minor>, in upstream's order; restricted runs the baseline
    checks that no restricted check in force overrides."""
    levels = {BASELINE: (BASELINE,), RESTRICTED: (BASELINE, RESTRICTED)}.get(level, ())
    chosen = {k.id: (k, v) for k in CHECKS if k.level in levels and (v := _at(k, minor)) is not None}
    dropped = {o for k, v in chosen.values() if k.level == RESTRICTED for o in v.overrides}
    return tuple(chosen[i][1].fn for i in ORDER if i in chosen and i not in dropped)


def _minor(version: str) -> int:
    """`latest`, or a version newer than the newest check, evaluates as the newest check version."""
    match = VERSION.fullmatch(version)
    return NEWEST if match is None else min(int(match.group(1)), NEWEST)


def evaluate(level: str, version: str, pod_meta: dict, pod_spec: dict) -> list[tuple[str, str]]:
    """(ForbiddenReason, ForbiddenDetail) of every failed check; [] means allowed."""
    findings = (check(pod_meta or {}, pod_spec or {}) for check in checks_for(level, _minor(version)))
    return [(reason or "unknown forbidden reason", detail) for reason, detail in filter(None, findings)]


# ---- messages (policy/checks.go, admission/admission.go) ----

def details(results: list[tuple[str, str]]) -> str:
    """`R1 (D1), R2 (D2)`: a reason without a detail stands alone."""
    return ", ".join(f"{r} ({d})" if d else r for r, d in results)


def reasons(results: list[tuple[str, str]]) -> str:
    return ", ".join(r for r, _ in results)


def enforce_message(level_version: str, results: list[tuple[str, str]]) -> str:
    """The caller wraps it as `pods "<name>" is forbidden: <this>`."""
    return f"violates PodSecurity {go_quote(level_version)}: {details(results)}"


def warn_message(level_version: str, results: list[tuple[str, str]]) -> str:
    return f"would violate PodSecurity {go_quote(level_version)}: {details(results)}"


# ---- namespace labels to a policy (api/helpers.go PolicyToEvaluate) ----

@dataclass(frozen=True)
class LevelVersion:
    level: str
    version: str = LATEST

    def __str__(self) -> str:
        return f"{self.level}:{self.version}"


@dataclass(frozen=True)
class Policy:
    enforce: LevelVersion
    audit: LevelVersion
    warn: LevelVersion

    def fully_privileged(self) -> bool:
        return all(lv.level == PRIVILEGED for lv in (self.enforce, self.audit, self.warn))


DEFAULT_POLICY = Policy(LevelVersion(PRIVILEGED), LevelVersion(PRIVILEGED), LevelVersion(PRIVILEGED))


def compare_levels(a: str, b: str) -> int:
    return (LEVELS.index(a) > LEVELS.index(b)) - (LEVELS.index(a) < LEVELS.index(b))


def _invalid(label: str, value: str, message: str) -> Cause:
    return Cause(f"metadata.labels[{label}]", f"Invalid value: {go_quote(value)}: {message}")


def _mode(labels: dict, mode: str, default: LevelVersion, causes: list[Cause]) -> LevelVersion:
    """One mode's level and version. A bad enforce level fails closed (restricted), a bad audit or
    warn level fails open (privileged); a bad version is `latest`."""
    level, version = default.level, default.version
    if (value := labels.get(PREFIX + mode)) is not None:
        level = value if value in LEVELS else (RESTRICTED if mode == "enforce" else PRIVILEGED)
        if value not in LEVELS:
            causes.append(_invalid(PREFIX + mode, value, BAD_LEVEL))
    if (value := labels.get(f"{PREFIX}{mode}-version")) is not None:
        version = value if value == LATEST or VERSION.fullmatch(value) else LATEST
        if version != value:
            causes.append(_invalid(f"{PREFIX}{mode}-version", value, BAD_VERSION))
    return LevelVersion(level, version)


def parse_policy(labels: dict | None, defaults: Policy = DEFAULT_POLICY) -> tuple[Policy, list[Cause]]:
    """The policy a namespace's labels ask for, and a cause per invalid label. An unset warn level
    takes a valid, stricter enforce level (and its version unless warn-version is set)."""
    labels, causes = labels or {}, []
    enforce, audit, warn = (_mode(labels, m, getattr(defaults, m), causes) for m in MODES)
    if (PREFIX + "warn" not in labels and labels.get(PREFIX + "enforce") in LEVELS
            and compare_levels(enforce.level, warn.level) > 0):
        warn = LevelVersion(enforce.level, warn.version if PREFIX + "warn-version" in labels else enforce.version)
    return Policy(enforce, audit, warn), causes


def label_causes(labels: dict | None, old: dict | None = None) -> list[Cause]:
    """Invalid pod-security labels on a Namespace create; on an update (`old` given) only when the
    errors differ from the old object's, so an unchanged bad label does not block other edits."""
    causes = parse_policy(labels)[1]
    if old is not None and causes and causes == parse_policy(old)[1]:
        return []
    return causes


def _aggregate(causes: list[Cause]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message, or `[a, b]` without repeats."""
    texts = list(dict.fromkeys(f"{k.field}: {k.message}" for k in causes))
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


# ---- admission of pods and pod templates (admission/admission.go) ----

@dataclass(frozen=True)
class Result:
    forbidden_message: str | None = None
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)


def admit(namespace_labels: dict | None, kind: str, obj: dict, subresource: str = "", old: dict | None = None,
          exempt_user: bool = False) -> Result:
    """PodSecurity for a create (`old` None) or update of a Pod or a kind with a pod template.
    Only Pods are ever forbidden; templates get warnings and audit annotations."""
    if kind == "Pod":
        return _admit_pod(namespace_labels, obj, subresource, old, exempt_user)
    if kind in TEMPLATES and not subresource:
        return _admit_template(namespace_labels, kind, obj, exempt_user)
    return Result()


def _admit_pod(labels: dict | None, pod: dict, subresource: str, old: dict | None, exempt_user: bool) -> Result:
    if subresource in IGNORED_POD_SUBRESOURCES:
        return Result()
    if exempt_user:
        return Result(audit_annotations={EXEMPT: "user"})
    policy, causes = parse_policy(labels)
    if not causes and policy.fully_privileged():
        return Result(audit_annotations={ENFORCE_POLICY: str(LevelVersion(PRIVILEGED))})
    if old is not None and not significant_update(pod.get("spec") or {}, old.get("spec") or {}):
        return Result()
    return _decide(policy, causes, pod.get("metadata") or {}, pod.get("spec") or {}, enforce=True)


def _admit_template(labels: dict | None, kind: str, obj: dict, exempt_user: bool) -> Result:
    if exempt_user:
        return Result(audit_annotations={EXEMPT: "user"})
    policy, causes = parse_policy(labels)
    if not causes and policy.warn.level == PRIVILEGED and policy.audit.level == PRIVILEGED:
        return Result()
    template = c.dig(obj, *TEMPLATES[kind])
    if not isinstance(template, dict):
        return Result()
    return _decide(policy, causes, template.get("metadata") or {}, template.get("spec") or {}, enforce=False)


def _decide(policy: Policy, causes: list[Cause], meta: dict, spec: dict, enforce: bool) -> Result:
    """Enforce (pods only), then audit, then warn unless the request is already refused."""
    notes = {ERROR: f"Failed to parse policy: {_aggregate(causes)}"} if causes else {}
    forbidden = None
    if enforce:
        notes[ENFORCE_POLICY] = str(policy.enforce)
        if found := _run(policy.enforce, meta, spec):
            forbidden = enforce_message(str(policy.enforce), found)
    if found := _run(policy.audit, meta, spec):
        notes[AUDIT_VIOLATIONS] = warn_message(str(policy.audit), found)
    warned = _run(policy.warn, meta, spec) if forbidden is None else []
    return Result(forbidden, [warn_message(str(policy.warn), warned)] if warned else [], notes)


def _run(lv: LevelVersion, meta: dict, spec: dict) -> list[tuple[str, str]]:
    return evaluate(lv.level, lv.version, meta, spec)


def significant_update(spec: dict, old_spec: dict) -> bool:
    """Only a change of container count or image, or a new or re-imaged ephemeral container,
    can change the verdict; other pod updates are not re-evaluated."""
    for key in ("containers", "initContainers"):
        new, old = spec.get(key) or [], old_spec.get(key) or []
        if len(new) != len(old) or any(a.get("image") != b.get("image") for a, b in zip(new, old)):
            return True
    before = {e.get("name"): e.get("image") for e in old_spec.get("ephemeralContainers") or []}
    return any(e.get("name") not in before or before[e.get("name")] != e.get("image")
               for e in spec.get("ephemeralContainers") or [])
