"""Pod Security Admission: every check's words, the registry's versions and order, the label
rules, and the admission decisions, against pod-security-admission v0.35.6."""
from __future__ import annotations

import pytest

from api import podsecurity as psa
from api.podsecurity_checks import go_quote
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
                                                            {"name": "p", "projected": {}}]), {}, None,
                 id="volumes-ok"),
    case("restrictedVolumes", spec(ctr("a"), volumes=[{"name": "h", "hostPath": {"path": "/"}},
                                                            {"name": "n", "nfs": {}}, {"name": "x"}]), {},
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
