"""Pod Security Admission: every check's words, the registry's versions and order, the label
rules, and the admission decisions, against pod-security-admission v0.35.6."""
from __future__ import annotations

import pytest

from actors.apiserver.admission.podsecurity import policy as psa
from actors.apiserver.admission.podsecurity.checks import go_quote
from actors.apiserver.admission.podsecurity.namespace import namespace_warnings
from api.status import Cause

P = "pod-security.kubernetes.io/"
GOOD_SC = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
           "seccompProfile": {"type": "RuntimeDefault"}}
NGINX_MESSAGE = (
    'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set '
    'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set '
    'securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set '
    'securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set '
    'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")')


def ctr(name: str, image: str = "nginx", **sc) -> dict:
    return {"name": name, "image": image, **({"securityContext": sc} if sc else {})}


def spec(*containers: dict, **fields) -> dict:
    return {"containers": list(containers), **fields}


def finding(check_id: str, pod_spec: dict, meta: dict | None = None, minor: int = psa.NEWEST):
    """One check's result at v1.<minor>, as the registry would pick its version."""
    check = next(k for k in psa.CHECKS if k.id == check_id)
    return psa._at(check, minor).fn(meta or {}, pod_spec)


def pod(name: str = "nginx", *containers: dict, owner: str | None = None, **fields) -> dict:
    meta = {"name": name, "namespace": "ns"}
    if owner:
        meta["ownerReferences"] = [{"kind": "ReplicaSet", "name": owner, "uid": owner, "controller": True}]
    return {"metadata": meta, "spec": spec(*(containers or [ctr("nginx")]), **fields)}


# ---- every check, pass and fail ----

def case(check_id: str, pod_spec: dict, meta: dict, expected, id: str, minor: int = psa.NEWEST):
    return pytest.param(check_id, pod_spec, meta, minor, expected, id=id)


CHECK_CASES = [
    # appArmorProfile
    case("appArmorProfile", spec(ctr("a", appArmorProfile={"type": "Localhost"})),
                 {"annotations": {"container.apparmor.security.beta.kubernetes.io/a": "localhost/x"}}, None,
                 id="apparmor-ok"),
    case("appArmorProfile", spec(ctr("a"), securityContext={"appArmorProfile": {"type": "Unconfined"}}), {},
                 ("forbidden AppArmor profile", 'pod must not set AppArmor profile type to "Unconfined"'),
                 id="apparmor-pod"),
    case("appArmorProfile", spec(ctr("a", appArmorProfile={"type": "Unconfined"}),
                                         securityContext={"appArmorProfile": {"type": "Bogus"}}),
                 {"annotations": {"container.apparmor.security.beta.kubernetes.io/a": "unconfined",
                                  "container.apparmor.security.beta.kubernetes.io/b": "runtime/default"}},
                 ("forbidden AppArmor profiles", 'pod and container "a" and annotation must not set AppArmor profile '
                  'type to "Bogus", "Unconfined", "container.apparmor.security.beta.kubernetes.io/a="unconfined""'),
                 id="apparmor-pod-container-annotation"),
    # capabilities_baseline
    case("capabilities_baseline", spec(ctr("a", capabilities={"add": ["CHOWN", "NET_BIND_SERVICE"]})), {},
                 None, id="caps-baseline-ok"),
    case("capabilities_baseline", spec(ctr("a", capabilities={"add": ["SYS_ADMIN", "NET_ADMIN"]}),
                                               ctr("b", capabilities={"add": ["NET_ADMIN", "KILL"]})), {},
                 ("non-default capabilities", 'containers "a", "b" must not include "NET_ADMIN", "SYS_ADMIN" in '
                  'securityContext.capabilities.add'), id="caps-baseline-bad"),
    # hostNamespaces
    case("hostNamespaces", spec(ctr("a"), hostNetwork=False), {}, None, id="hostns-ok"),
    case("hostNamespaces", spec(ctr("a"), hostIPC=True, hostNetwork=True), {},
                 ("host namespaces", "hostNetwork=true, hostIPC=true"), id="hostns-bad"),
    # hostPathVolumes
    case("hostPathVolumes", spec(ctr("a"), volumes=[{"name": "v", "emptyDir": {}}]), {}, None, id="hostpath-ok"),
    case("hostPathVolumes", spec(ctr("a"), volumes=[{"name": "v1", "hostPath": {"path": "/"}},
                                                          {"name": "v2", "hostPath": {"path": "/x"}}]), {},
                 ("hostPath volumes", 'volumes "v1", "v2"'), id="hostpath-bad"),
    # hostPorts
    case("hostPorts", spec({"name": "a", "ports": [{"containerPort": 80, "hostPort": 0}]}), {}, None,
                 id="hostports-ok"),
    case("hostPorts", spec({"name": "a", "ports": [{"hostPort": 8080}, {"hostPort": 80}, {"hostPort": 443}]}),
                 {}, ("hostPort", 'container "a" uses hostPorts 443, 80, 8080'), id="hostports-bad-sorted-as-text"),
    # hostProbesAndHostLifecycle
    case("hostProbesAndHostLifecycle", spec({"name": "a", "livenessProbe": {"httpGet": {"port": 80}}}), {},
                 None, id="probe-host-ok"),
    case("hostProbesAndHostLifecycle", spec(
        {"name": "z", "readinessProbe": {"tcpSocket": {"host": "b.com"}}},
        {"name": "y", "lifecycle": {"preStop": {"httpGet": {"host": "a.com"}}}}), {},
        ("probe or lifecycle host", 'containers "y", "z" use probe or lifecycle hosts "a.com", "b.com"'),
        id="probe-host-bad-names-sorted"),
    # privileged
    case("privileged", spec(ctr("a", privileged=False)), {}, None, id="privileged-ok"),
    case("privileged", spec(ctr("a", privileged=True)), {},
                 ("privileged", 'container "a" must not set securityContext.privileged=true'), id="privileged-bad"),
    # procMount
    case("procMount", spec(ctr("a", procMount="Default")), {}, None, id="procmount-ok"),
    case("procMount", spec(ctr("a", procMount="Unmasked")), {},
                 ("procMount", 'container "a" must not set securityContext.procMount to "Unmasked"'),
                 id="procmount-bad"),
    case("procMount", spec(ctr("a", procMount="Unmasked"), hostUsers=False), {}, None,
                 id="procmount-user-namespace-1.35"),
    case("procMount", spec(ctr("a", procMount="Unmasked"), hostUsers=False), {},
                 ("procMount", 'container "a" must not set securityContext.procMount to "Unmasked"'),
                 id="procmount-user-namespace-1.34", minor=34),
    # seLinuxOptions
    case("seLinuxOptions", spec(ctr("a", seLinuxOptions={"type": "container_engine_t"})), {}, None,
                 id="selinux-ok"),
    case("seLinuxOptions", spec(
        ctr("a", seLinuxOptions={"type": "container_t"}), ctr("e", seLinuxOptions={"type": "bar"}),
        ctr("f", seLinuxOptions={"user": "bar"}), ctr("g", seLinuxOptions={"role": "baz"}),
        securityContext={"seLinuxOptions": {"type": "foo", "user": "bar", "role": "baz"}}), {},
        ("seLinuxOptions", 'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: '
                           'types "bar", "foo"; user may not be set; role may not be set'), id="selinux-upstream"),
    case("seLinuxOptions", spec(ctr("a", seLinuxOptions={"type": "container_engine_t"})), {},
                 ("seLinuxOptions", 'container "a" set forbidden securityContext.seLinuxOptions: '
                                    'type "container_engine_t"'), id="selinux-engine-before-1.31",
                 minor=30),
    # seccompProfile_baseline
    case("seccompProfile_baseline", spec(ctr("a")), {}, None, id="seccomp-baseline-unset-ok"),
    case("seccompProfile_baseline", spec(ctr("a", seccompProfile={"type": "Unconfined"}),
                                                 securityContext={"seccompProfile": {"type": "Unconfined"}}), {},
                 ("seccompProfile", 'pod and container "a" must not set securityContext.seccompProfile.type to '
                                    '"Unconfined"'), id="seccomp-baseline-bad"),
    case("seccompProfile_baseline", spec(ctr("a")),
                 {"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined",
                                  "container.seccomp.security.alpha.kubernetes.io/a": "docker/default"}},
                 ("seccompProfile", 'forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined"'),
                 id="seccomp-annotations-1.18", minor=18),
    # sysctls
    case("sysctls", spec(ctr("a"), securityContext={"sysctls": [{"name": "net.ipv4.tcp_rmem"}]}), {}, None,
                 id="sysctls-ok"),
    case("sysctls", spec(ctr("a"), securityContext={"sysctls": [{"name": "kernel.msgmax"},
                                                                        {"name": "a.b"}]}), {},
                 ("forbidden sysctls", "kernel.msgmax, a.b"), id="sysctls-bad-in-order"),
    case("sysctls", spec(ctr("a"), securityContext={"sysctls": [{"name": "net.ipv4.tcp_rmem"}]}), {},
                 ("forbidden sysctls", "net.ipv4.tcp_rmem"), id="sysctls-rmem-before-1.32",
                 minor=31),
    # windowsHostProcess
    case("windowsHostProcess", spec(ctr("a", windowsOptions={"hostProcess": False})), {}, None,
                 id="hostprocess-ok"),
    case("windowsHostProcess", spec(ctr("a", windowsOptions={"hostProcess": True}),
                                            securityContext={"windowsOptions": {"hostProcess": True}}), {},
                 ("hostProcess", 'pod and container "a" must not set securityContext.windowsOptions.hostProcess=true'),
                 id="hostprocess-bad"),
    # allowPrivilegeEscalation
    case("allowPrivilegeEscalation", spec(ctr("a", allowPrivilegeEscalation=False)), {}, None, id="ape-ok"),
    case("allowPrivilegeEscalation", {"initContainers": [ctr("i")], **spec(ctr("a", allowPrivilegeEscalation=True)),
                                              "ephemeralContainers": [ctr("e")]}, {},
                 ("allowPrivilegeEscalation != false", 'containers "i", "a", "e" must set '
                  'securityContext.allowPrivilegeEscalation=false'), id="ape-bad-visiting-order"),
    case("allowPrivilegeEscalation", spec(ctr("a"), os={"name": "windows"}), {}, None, id="ape-windows"),
    # capabilities_restricted
    case("capabilities_restricted", spec(ctr("a", capabilities={"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]})),
                 {}, None, id="caps-restricted-ok"),
    case("capabilities_restricted", spec(ctr("a"), ctr("b", capabilities={"drop": ["ALL"], "add": ["SYS_ADMIN"]})),
                 {}, ("unrestricted capabilities", 'container "a" must set securityContext.capabilities.drop=["ALL"]; '
                      'container "b" must not include "SYS_ADMIN" in securityContext.capabilities.add'),
                 id="caps-restricted-bad"),
    # procMount_restricted
    case("procMount_restricted", spec(ctr("a")), {}, None, id="procmount-restricted-ok"),
    case("procMount_restricted", spec(ctr("a", procMount="Unmasked"), hostUsers=False), {},
                 ("procMount", 'container "a" must not set securityContext.procMount to "Unmasked"'),
                 id="procmount-restricted-ignores-user-namespace"),
    # restrictedVolumes
    case("restrictedVolumes", spec(ctr("a"), volumes=[{"name": "c", "configMap": {"name": "x"}},
                                                            {"name": "p", "projected": {}}, {"name": "d"}]), {}, None,
                 id="volumes-ok-and-sourceless-defaults-to-emptydir"),
    case("restrictedVolumes", spec(ctr("a"), volumes=[{"name": "h", "hostPath": {"path": "/"}},
                                                            {"name": "n", "nfs": {}}, {"name": "x", "fancy": {}}]), {},
                 ("restricted volume types", 'volumes "h", "n", "x" use restricted volume types '
                  '"hostPath", "nfs", "unknown"'), id="volumes-bad"),
    # runAsNonRoot
    case("runAsNonRoot", spec(ctr("a"), securityContext={"runAsNonRoot": True}), {}, None, id="nonroot-pod-ok"),
    case("runAsNonRoot", spec(ctr("a", runAsNonRoot=False), ctr("b")), {},
                 ("runAsNonRoot != true", 'container "a" must not set securityContext.runAsNonRoot=false'),
                 id="nonroot-explicit-first"),
    case("runAsNonRoot", spec(ctr("a"), ctr("b")), {},
                 ("runAsNonRoot != true", 'pod or containers "a", "b" must set securityContext.runAsNonRoot=true'),
                 id="nonroot-implicit"),
    case("runAsNonRoot", spec(ctr("a"), hostUsers=False), {}, None, id="nonroot-user-namespace"),
    # runAsUser
    case("runAsUser", spec(ctr("a", runAsUser=1000)), {}, None, id="runasuser-ok"),
    case("runAsUser", spec(ctr("a", runAsUser=0), securityContext={"runAsUser": 0}), {},
                 ("runAsUser=0", 'pod and container "a" must not set runAsUser=0'), id="runasuser-bad"),
    # seccompProfile_restricted
    case("seccompProfile_restricted", spec(ctr("a"), securityContext={"seccompProfile": {"type": "Localhost"}}),
                 {}, None, id="seccomp-restricted-pod-ok"),
    case("seccompProfile_restricted", spec(ctr("a", seccompProfile={"type": "Unconfined"}), ctr("b")), {},
                 ("seccompProfile", 'container "a" must not set securityContext.seccompProfile.type to "Unconfined"'),
                 id="seccomp-restricted-explicit"),
    case("seccompProfile_restricted", spec(ctr("a"), ctr("b", seccompProfile={"type": "RuntimeDefault"})), {},
                 ("seccompProfile", 'pod or container "a" must set securityContext.seccompProfile.type to '
                                    '"RuntimeDefault" or "Localhost"'), id="seccomp-restricted-unset"),
]


@pytest.mark.parametrize("check_id, pod_spec, meta, minor, expected", CHECK_CASES)
def test_check(check_id, pod_spec, meta, minor, expected):
    assert finding(check_id, pod_spec, meta, minor) == expected


# ---- the registry: versions, overrides, order ----

def reasons_at(level: str, version: str, pod_spec: dict, meta: dict | None = None) -> list[str]:
    return [r for r, _ in psa.evaluate(level, version, meta or {}, pod_spec)]


BAD_EVERYWHERE = spec({**ctr("a", privileged=True, procMount="Unmasked", capabilities={"add": ["SYS_ADMIN"]}),
                       "startupProbe": {"httpGet": {"host": "h"}}},
                      hostPID=True, volumes=[{"name": "h", "hostPath": {"path": "/"}}],
                      securityContext={"sysctls": [{"name": "kernel.msgmax"}], "runAsUser": 0})


@pytest.mark.parametrize("level, version, pod_spec, expected", [
    pytest.param("privileged", "latest", BAD_EVERYWHERE, [], id="privileged-runs-nothing"),
    pytest.param("baseline", "latest", BAD_EVERYWHERE,
                 ["non-default capabilities", "host namespaces", "hostPath volumes", "probe or lifecycle host",
                  "privileged", "procMount", "forbidden sysctls"], id="baseline-order"),
    pytest.param("baseline", "v1.33", BAD_EVERYWHERE,
                 ["non-default capabilities", "host namespaces", "hostPath volumes", "privileged", "procMount",
                  "forbidden sysctls"], id="baseline-1.33-no-probe-host"),
    pytest.param("restricted", "latest", BAD_EVERYWHERE,
                 ["host namespaces", "probe or lifecycle host", "privileged", "forbidden sysctls",
                  "allowPrivilegeEscalation != false", "unrestricted capabilities", "procMount",
                  "restricted volume types", "runAsNonRoot != true", "runAsUser=0", "seccompProfile"],
                 id="restricted-overrides-and-order"),
    pytest.param("restricted", "v1.99", BAD_EVERYWHERE,
                 ["host namespaces", "probe or lifecycle host", "privileged", "forbidden sysctls",
                  "allowPrivilegeEscalation != false", "unrestricted capabilities", "procMount",
                  "restricted volume types", "runAsNonRoot != true", "runAsUser=0", "seccompProfile"],
                 id="future-version-is-newest"),
    pytest.param("restricted", "v1.21", BAD_EVERYWHERE,
                 ["non-default capabilities", "host namespaces", "privileged", "procMount", "forbidden sysctls",
                  "allowPrivilegeEscalation != false", "restricted volume types", "runAsNonRoot != true",
                  "seccompProfile"], id="restricted-1.21-baseline-capabilities-no-runasuser"),
    pytest.param("restricted", "v1.7", spec(ctr("a")), ["runAsNonRoot != true"], id="restricted-1.7-no-ape-no-seccomp"),
    pytest.param("restricted", "v1.0", spec(ctr("a"), volumes=[{"name": "h", "hostPath": {}}]),
                 ["restricted volume types", "runAsNonRoot != true"], id="restricted-1.0-hostpath-overridden"),
    pytest.param("restricted", "latest", spec(ctr("a", **GOOD_SC)), [], id="restricted-clean"),
    pytest.param("restricted", "latest", spec(ctr("a", allowPrivilegeEscalation=True), os={"name": "windows"}),
                 ["runAsNonRoot != true"], id="restricted-windows-skips-three"),
    pytest.param("restricted", "v1.24", spec(ctr("a", allowPrivilegeEscalation=True), os={"name": "windows"}),
                 ["allowPrivilegeEscalation != false", "unrestricted capabilities", "runAsNonRoot != true",
                  "seccompProfile"], id="restricted-1.24-windows-not-skipped"),
    pytest.param("restricted", "latest", spec(ctr("a", **{**GOOD_SC, "runAsNonRoot": None}, procMount="Unmasked",
                                                   runAsUser=0), hostUsers=False),
                 ["procMount"], id="restricted-user-namespace-1.35"),
    pytest.param("restricted", "v1.34", spec(ctr("a", **{**GOOD_SC, "runAsNonRoot": None}, procMount="Unmasked",
                                                  runAsUser=0), hostUsers=False),
                 ["procMount", "runAsNonRoot != true", "runAsUser=0"], id="restricted-user-namespace-1.34"),
    pytest.param("baseline", "latest", spec(ctr("a", procMount="Unmasked"), hostUsers=False), [],
                 id="baseline-user-namespace-procmount"),
])
def test_evaluate(level, version, pod_spec, expected):
    assert reasons_at(level, version, pod_spec) == expected


@pytest.mark.parametrize("version, annotations, expected", [
    pytest.param("v1.18", {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}, ["seccompProfile"],
                 id="annotations-before-1.19"),
    pytest.param("v1.19", {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}, [], id="fields-from-1.19"),
])
def test_seccomp_versions(version, annotations, expected):
    assert reasons_at("baseline", version, spec(ctr("a")), {"annotations": annotations}) == expected


# ---- messages ----

@pytest.mark.parametrize("build, level_version, results, expected", [
    pytest.param(psa.enforce_message, "restricted:latest", psa.evaluate("restricted", "latest", {}, spec(ctr("nginx"))),
                 NGINX_MESSAGE, id="nginx-enforce"),
    pytest.param(psa.warn_message, "baseline:v1.33", [("host namespaces", "hostPID=true"), ("R", "")],
                 'would violate PodSecurity "baseline:v1.33": host namespaces (hostPID=true), R', id="warn-no-detail"),
])
def test_messages(build, level_version, results, expected):
    assert build(level_version, results) == expected


@pytest.mark.parametrize("text, expected", [
    pytest.param("plain", '"plain"', id="plain"),
    pytest.param('a"b\\c\n\x01é', '"a\\"b\\\\c\\n\\x01é"', id="escapes"),
])
def test_go_quote(text, expected):
    assert go_quote(text) == expected


# ---- labels to policy ----

LV = psa.LevelVersion


@pytest.mark.parametrize("labels, enforce, audit, warn", [
    pytest.param({}, LV("privileged"), LV("privileged"), LV("privileged"), id="defaults"),
    pytest.param({P + "enforce": "baseline", P + "enforce-version": "v1.33"},
                 LV("baseline", "v1.33"), LV("privileged"), LV("baseline", "v1.33"), id="warn-inherits-enforce"),
    pytest.param({P + "enforce": "restricted", P + "warn-version": "v1.30"},
                 LV("restricted"), LV("privileged"), LV("restricted", "v1.30"), id="warn-inherits-level-keeps-version"),
    pytest.param({P + "enforce": "restricted", P + "warn": "baseline"},
                 LV("restricted"), LV("privileged"), LV("baseline"), id="warn-set-not-inherited"),
    pytest.param({P + "enforce": "restricted", P + "warn": "nope"},
                 LV("restricted"), LV("privileged"), LV("privileged"), id="bad-warn-fails-open-no-inherit"),
    pytest.param({P + "enforce": "nope"}, LV("restricted"), LV("privileged"), LV("privileged"),
                 id="bad-enforce-fails-closed-no-inherit"),
    pytest.param({P + "audit": "nope", P + "audit-version": "1.30"}, LV("privileged"), LV("privileged"),
                 LV("privileged"), id="bad-audit-fails-open-bad-version-latest"),
    pytest.param({P + "enforce": "baseline", P + "enforce-version": "v1.07"}, LV("baseline"), LV("privileged"),
                 LV("baseline"), id="leading-zero-version-is-latest"),
])
def test_parse_policy(labels, enforce, audit, warn):
    assert psa.parse_policy(labels)[0] == psa.Policy(enforce, audit, warn)


def bad(label: str, value: str, message: str) -> Cause:
    return Cause(f"metadata.labels[{P}{label}]", f'Invalid value: "{value}": {message}')


@pytest.mark.parametrize("labels, old, expected", [
    pytest.param({P + "enforce": "restricted", P + "warn-version": "v1.35", "x": "y"}, None, [], id="valid"),
    pytest.param({P + "enforce": "x"}, None, [bad("enforce", "x", "must be one of privileged, baseline, restricted")],
                 id="bad-level"),
    pytest.param({P + "warn-version": "v2.0", P + "audit": "Baseline"}, None,
                 [bad("audit", "Baseline", "must be one of privileged, baseline, restricted"),
                  bad("warn-version", "v2.0", 'must be "latest" or "v1.x"')], id="mode-order"),
    pytest.param({P + "enforce": "x", "app": "b"}, {P + "enforce": "x"}, [], id="update-unchanged-bad-label-allowed"),
    pytest.param({P + "enforce": "y"}, {P + "enforce": "x"},
                 [bad("enforce", "y", "must be one of privileged, baseline, restricted")],
                 id="update-changed-bad-label"),
    pytest.param({P + "enforce": "y"}, {}, [bad("enforce", "y", "must be one of privileged, baseline, restricted")],
                 id="update-new-bad-label"),
])
def test_label_causes(labels, old, expected):
    assert psa.label_causes(labels, old) == expected


# ---- admission of pods and templates ----

RESTRICTED = {P + "enforce": "restricted"}
WARN_ONLY = {P + "warn": "baseline", P + "audit": "restricted", P + "audit-version": "v1.33"}
PRIV_POD = pod("p", ctr("c", privileged=True))
NGINX_AUDIT = NGINX_MESSAGE.replace("violates", "would violate", 1).replace("restricted:latest", "restricted:v1.33")


def template(kind: str, pod_obj: dict) -> dict:
    inner = {"metadata": {"labels": {"app": "x"}}, "spec": pod_obj["spec"]}
    if kind == "CronJob":
        return {"kind": kind, "spec": {"jobTemplate": {"spec": {"template": inner}}}}
    return {"kind": kind, "spec": {"template": inner}}


@pytest.mark.parametrize("labels, kind, obj, kwargs, expected", [
    pytest.param(RESTRICTED, "Pod", pod(), {},
                 psa.Result(NGINX_MESSAGE, [], {P + "enforce-policy": "restricted:latest"}),
                 id="pod-enforce-denies-no-warning"),
    pytest.param({}, "Pod", PRIV_POD, {}, psa.Result(None, [], {P + "enforce-policy": "privileged:latest"}),
                 id="pod-privileged-namespace"),
    pytest.param(WARN_ONLY, "Pod", PRIV_POD, {}, psa.Result(None, [
        'would violate PodSecurity "baseline:latest": privileged (container "c" must not set '
        'securityContext.privileged=true)'], {P + "enforce-policy": "privileged:latest", P + "audit-violations":
        'would violate PodSecurity "restricted:v1.33": privileged (container "c" must not set '
        'securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set '
        'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set '
        'securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set '
        'securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set '
        'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'}),
                 id="pod-warn-and-audit"),
    pytest.param({P + "enforce": "bogus"}, "Pod", pod(), {}, psa.Result(NGINX_MESSAGE, [], {
        P + "error": f'Failed to parse policy: metadata.labels[{P}enforce]: Invalid value: "bogus": must be one of '
                     'privileged, baseline, restricted', P + "enforce-policy": "restricted:latest"}),
                 id="pod-bad-label-fails-closed"),
    pytest.param(RESTRICTED, "Pod", pod(), {"subresource": "status"}, psa.Result(), id="pod-status-skipped"),
    pytest.param(RESTRICTED, "Pod", pod(), {"exempt_user": True}, psa.Result(None, [], {P + "exempt": "user"}),
                 id="pod-exempt-user"),
    pytest.param(RESTRICTED, "Pod", pod(), {"old": {**pod(), "metadata": {"name": "nginx", "labels": {"a": "b"}}}},
                 psa.Result(), id="pod-insignificant-update"),
    pytest.param(RESTRICTED, "Pod", pod(), {"old": pod("nginx", ctr("nginx", "nginx:old"))},
                 psa.Result(NGINX_MESSAGE, [], {P + "enforce-policy": "restricted:latest"}), id="pod-image-update"),
    pytest.param(RESTRICTED, "Pod",
                 {**pod(), "spec": {**pod()["spec"], "ephemeralContainers": [ctr("dbg", **GOOD_SC)]}},
                 {"subresource": "ephemeralcontainers", "old": pod()}, psa.Result(NGINX_MESSAGE, [], {
                     P + "enforce-policy": "restricted:latest"}), id="pod-ephemeral-added-evaluated"),
    pytest.param({**RESTRICTED, P + "audit": "restricted", P + "audit-version": "v1.33"}, "Deployment",
                 template("Deployment", pod()), {},
                 psa.Result(None, [NGINX_MESSAGE.replace("violates", "would violate", 1)],
                            {P + "audit-violations": NGINX_AUDIT}), id="deployment-never-enforced"),
    pytest.param(RESTRICTED, "CronJob", template("CronJob", pod()), {},
                 psa.Result(None, [NGINX_MESSAGE.replace("violates", "would violate", 1)], {}), id="cronjob-template"),
    pytest.param({P + "enforce": "restricted", P + "warn": "privileged"}, "ReplicaSet", template("ReplicaSet", pod()),
                 {}, psa.Result(), id="replicaset-warn-privileged"),
    pytest.param(RESTRICTED, "ReplicaSet", template("ReplicaSet", pod()), {"subresource": "scale"}, psa.Result(),
                 id="replicaset-subresource-skipped"),
    pytest.param(RESTRICTED, "Service", {"spec": {}}, {}, psa.Result(), id="other-kind"),
])
def test_admit(labels, kind, obj, kwargs, expected):
    assert psa.admit(labels, kind, obj, **kwargs) == expected


# ---- namespace updates that tighten enforce ----

def clean(name: str, owner: str | None = None) -> dict:
    return pod(name, ctr("c", **GOOD_SC), owner=owner)


BASELINE_REASONS = "allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"
EXISTING = 'existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"'


@pytest.mark.parametrize("new, old, pods, kwargs, expected", [
    pytest.param(RESTRICTED, {}, [clean("ok"), pod("b"), pod("a"), pod("c", ctr("c", privileged=True))], {}, [
        EXISTING, f"a (and 1 other pod): {BASELINE_REASONS}",
        f"c: privileged, {BASELINE_REASONS}"], id="grouped-and-sorted"),
    pytest.param(RESTRICTED, {}, [pod("z"), pod("y"), pod("x")], {},
                 [EXISTING, f"x (and 2 other pods): {BASELINE_REASONS}"],
                 id="three-pods"),
    pytest.param(RESTRICTED, {}, [clean("ok")], {}, [], id="all-pass"),
    pytest.param(RESTRICTED, RESTRICTED, [pod()], {}, [], id="unchanged"),
    pytest.param({P + "enforce": "baseline"}, RESTRICTED, [pod("p", ctr("c", privileged=True))], {}, [],
                 id="looser-same-version"),
    pytest.param({P + "enforce": "baseline", P + "enforce-version": "v1.30"}, {P + "enforce": "restricted"},
                 [pod("p", ctr("c", privileged=True))], {}, [
                     'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:v1.30"',
                     "p: privileged"], id="other-version-checked"),
    pytest.param({P + "enforce": "privileged"}, RESTRICTED, [pod()], {}, [], id="to-privileged"),
    pytest.param(RESTRICTED, {}, None, {}, ["failed to list pods while checking new PodSecurity enforce level"],
                 id="list-failed"),
    pytest.param(RESTRICTED, {}, [pod("a", owner="rs"), pod("b", owner="rs"), pod("c", ctr("c", privileged=True))],
                 {"max_pods": 2}, [
                     "new PodSecurity enforce level only checked against the first 2 of 3 existing pods", EXISTING,
                     f"a: {BASELINE_REASONS}", f"c: privileged, {BASELINE_REASONS}"], id="one-per-controller-first"),
    pytest.param(RESTRICTED, {}, [pod("a"), pod("b")], {"out_of_time": lambda: True, "namespace": "team"}, [
        "new PodSecurity enforce level only checked against the first 1 of 2 existing pods",
        'existing pods in namespace "team" violate the new PodSecurity enforce level "restricted:latest"',
        f"a: {BASELINE_REASONS}"], id="deadline"),
])
def test_namespace_warnings(new, old, pods, kwargs, expected):
    assert namespace_warnings(new, old, pods, **kwargs) == expected
