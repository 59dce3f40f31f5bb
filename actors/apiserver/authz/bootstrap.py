"""The default ClusterRoles and ClusterRoleBindings kube-apiserver keeps (bootstrappolicy,
`testdata/cluster-roles.yaml`, `controller-roles.yaml`), as far as kubus's kinds reach, and the
auto-reconciliation that adds what a default lost at every start unless autoupdate is "false"."""
from __future__ import annotations

import copy

from actors.apiserver.authz.controllerroles import APPS, CONTROLLERS, CORE, controller_rules
from actors.apiserver.authz.escalation import covers
from actors.apiserver.authz.node import node_rules
from actors.apiserver.authz.rules import new_rule
from api.rbac import AUTOUPDATE, RBAC_GROUP, RBAC_VERSION

BOOTSTRAP_LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
AGGREGATE = "rbac.authorization.k8s.io/aggregate-to-"
READ = "get list watch"
WRITE = "create delete deletecollection patch update"
READ_WRITE = f"{READ} {WRITE}"
EVENTS = new_rule("create patch update", ("", "events.k8s.io"), "events")


def _meta(name: str, labels: dict[str, str] | None = None) -> dict:
    return {"name": name, "labels": {**BOOTSTRAP_LABELS, **(labels or {})}, "annotations": {AUTOUPDATE: "true"}}


def cluster_role(name: str, rules: list[dict], labels: dict[str, str] | None = None,
                 aggregate_from: str | None = None) -> dict:
    role = {"apiVersion": RBAC_VERSION, "kind": "ClusterRole", "metadata": _meta(name, labels), "rules": rules}
    if aggregate_from:
        role["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {AGGREGATE + aggregate_from: "true"}}]}
    return role


def cluster_role_binding(name: str, subjects: list[dict], role: str | None = None) -> dict:
    binding = {"apiVersion": RBAC_VERSION, "kind": "ClusterRoleBinding", "metadata": _meta(name),
               "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role or name}}
    if subjects:
        binding["subjects"] = subjects
    return binding


def _subjects(kind: str, *names: str) -> list[dict]:
    return [{"kind": kind, "apiGroup": RBAC_GROUP, "name": n} for n in names]


# ---- the user-facing roles (§5.1) ------------------------------------------------------------------

def _aggregate_to_edit() -> list[dict]:
    return [
        new_rule(READ, CORE, "pods/attach pods/exec pods/portforward pods/proxy secrets services/proxy"),
        new_rule("impersonate", CORE, "serviceaccounts"),
        new_rule(WRITE, CORE, "pods pods/attach pods/exec pods/portforward pods/proxy"),
        new_rule("create", CORE, "pods/eviction"),
        new_rule(WRITE, CORE, "configmaps events persistentvolumeclaims replicationcontrollers "
                              "replicationcontrollers/scale secrets serviceaccounts services services/proxy"),
        new_rule("create", CORE, "serviceaccounts/token"),
        new_rule(WRITE, APPS, "daemonsets deployments deployments/rollback deployments/scale replicasets "
                              "replicasets/scale statefulsets statefulsets/scale"),
        new_rule(WRITE, ("autoscaling",), "horizontalpodautoscalers"),
        new_rule(WRITE, ("batch",), "cronjobs jobs"),
        new_rule(WRITE, ("extensions",), "daemonsets deployments deployments/rollback deployments/scale ingresses "
                                         "networkpolicies replicasets replicasets/scale replicationcontrollers/scale"),
        new_rule(WRITE, ("policy",), "poddisruptionbudgets"),
        new_rule(WRITE, ("networking.k8s.io",), "ingresses networkpolicies"),
        new_rule(READ_WRITE, ("coordination.k8s.io",), "leases"),
    ]


def _aggregate_to_view() -> list[dict]:
    return [
        new_rule(READ, CORE, "configmaps endpoints persistentvolumeclaims persistentvolumeclaims/status pods "
                             "replicationcontrollers replicationcontrollers/scale serviceaccounts services "
                             "services/status"),
        new_rule(READ, CORE, "bindings events limitranges namespaces/status pods/log pods/status "
                             "replicationcontrollers/status resourcequotas resourcequotas/status"),
        new_rule(READ, CORE, "namespaces"),
        new_rule(READ, ("discovery.k8s.io",), "endpointslices"),
        new_rule(READ, APPS, "controllerrevisions daemonsets daemonsets/status deployments deployments/scale "
                             "deployments/status replicasets replicasets/scale replicasets/status statefulsets "
                             "statefulsets/scale statefulsets/status"),
        new_rule(READ, ("autoscaling",), "horizontalpodautoscalers horizontalpodautoscalers/status"),
        new_rule(READ, ("batch",), "cronjobs cronjobs/status jobs jobs/status"),
        new_rule(READ, ("extensions",), "daemonsets daemonsets/status deployments deployments/scale "
                                        "deployments/status ingresses ingresses/status networkpolicies replicasets "
                                        "replicasets/scale replicasets/status replicationcontrollers/scale"),
        new_rule(READ, ("policy",), "poddisruptionbudgets poddisruptionbudgets/status"),
        new_rule(READ, ("networking.k8s.io",), "ingresses ingresses/status networkpolicies"),
    ]


def to(target: str) -> dict[str, str]:
    """The label that aggregates a ClusterRole into `admin`, `edit` or `view`."""
    return {AGGREGATE + target: "true"}


def _user_facing() -> list[dict]:
    return [
        cluster_role("cluster-admin", [new_rule("*", ("*",), "*"), new_rule("*", urls="*")]),
        cluster_role("admin", [], aggregate_from="admin"),
        cluster_role("edit", [], to("admin"), aggregate_from="edit"),
        cluster_role("view", [], to("edit"), aggregate_from="view"),
        cluster_role("system:aggregate-to-admin", [
            new_rule("create", ("authorization.k8s.io",), "localsubjectaccessreviews"),
            new_rule(READ_WRITE, (RBAC_GROUP,), "rolebindings roles")], to("admin")),
        cluster_role("system:aggregate-to-edit", _aggregate_to_edit(), to("edit")),
        cluster_role("system:aggregate-to-view", _aggregate_to_view(), to("view")),
        # metrics-server's role, shipped with kubus's built-in metrics API: view, edit and admin read metrics
        cluster_role("system:aggregated-metrics-reader", [new_rule(READ, ("metrics.k8s.io",), "pods nodes")],
                     {**to("view"), **to("edit"), **to("admin")}),
    ]


# ---- discovery, basic and component roles (§5.2, §5.3) ---------------------------------------------

def _basic() -> list[dict]:
    public = "/healthz /livez /readyz /version /version/"
    return [
        cluster_role("system:basic-user", [
            new_rule("create", ("authorization.k8s.io",), "selfsubjectaccessreviews selfsubjectrulesreviews"),
            new_rule("create", ("authentication.k8s.io",), "selfsubjectreviews")]),
        cluster_role("system:discovery",
                     [new_rule("get", urls=f"/api /api/* /apis /apis/* /openapi /openapi/* {public}")]),
        cluster_role("system:public-info-viewer", [new_rule("get", urls=public)]),
    ]


def _leader(name: str) -> list[dict]:
    return [new_rule("create", ("coordination.k8s.io",), "leases"),
            new_rule("get update", ("coordination.k8s.io",), "leases", names=name)]


def _reviews() -> list[dict]:
    return [new_rule("create", ("authentication.k8s.io",), "tokenreviews"),
            new_rule("create", ("authorization.k8s.io",), "subjectaccessreviews")]


def _components() -> list[dict]:
    scheduler = [EVENTS, *_leader("kube-scheduler"), new_rule(READ, CORE, "nodes"),
                 new_rule("delete get list watch", CORE, "pods"), new_rule("create", CORE, "bindings pods/binding"),
                 new_rule("patch update", CORE, "pods/status"), new_rule(READ, CORE, "replicationcontrollers services"),
                 new_rule(READ, ("apps", "extensions"), "replicasets"), new_rule(READ, APPS, "statefulsets"),
                 new_rule(READ, ("policy",), "poddisruptionbudgets"),
                 new_rule(READ, CORE, "persistentvolumeclaims persistentvolumes"), *_reviews(),
                 new_rule("patch update", CORE, "persistentvolumeclaims persistentvolumes"),  # system:volume-
                 new_rule(READ, ("storage.k8s.io",), "storageclasses"),  # scheduler's, folded in
                 new_rule(READ, ("storage.k8s.io",), "csinodes"), new_rule(READ, CORE, "namespaces"),
                 new_rule(READ, ("storage.k8s.io",), "csidrivers"),
                 new_rule(READ, ("storage.k8s.io",), "csistoragecapacities"),
                 new_rule("patch", CORE, "pods")]  # kubus: `recordDecisions` writes its verdicts as an annotation
    controller_manager = [EVENTS, *_leader("kube-controller-manager"),
                          new_rule("create", CORE, "secrets serviceaccounts"), new_rule("delete", CORE, "secrets"),
                          new_rule("get", CORE, "configmaps namespaces secrets serviceaccounts"),
                          new_rule("update", CORE, "secrets serviceaccounts"), *_reviews(),
                          new_rule("list watch", ("*",), "*"), new_rule("create", CORE, "serviceaccounts/token")]
    proxier = [new_rule("list watch", CORE, "endpoints services"), new_rule(READ, CORE, "nodes"), EVENTS,
               new_rule("list watch", ("discovery.k8s.io",), "endpointslices")]
    coredns = [new_rule("list watch", CORE, "endpoints services pods namespaces"),
               new_rule("list watch", ("discovery.k8s.io",), "endpointslices")]
    ingress = [new_rule("list watch", CORE, "services"),
               new_rule("list watch", ("discovery.k8s.io",), "endpointslices"),
               new_rule("get list watch", ("networking.k8s.io",), "ingresses ingressclasses"),
               new_rule("create", ("networking.k8s.io",), "ingressclasses"),  # its own, in a fresh cluster
               new_rule("patch update", ("networking.k8s.io",), "ingresses/status"), EVENTS]
    local_path = [new_rule(READ, CORE, "nodes persistentvolumeclaims"), EVENTS,  # rancher's role, in short
                  new_rule("create delete get list watch", CORE, "persistentvolumes pods"),  # pods: its helpers
                  new_rule("create get list watch", ("storage.k8s.io",), "storageclasses")]  # its own, once
    return [cluster_role("system:kube-scheduler", scheduler),
            cluster_role("system:kube-controller-manager", controller_manager),
            cluster_role("system:node-proxier", proxier),
            cluster_role("system:coredns", coredns),  # kubeadm's (its CoreDNS addon), not the apiserver's
            cluster_role("system:kubus:ingress-controller", ingress),  # ingress-nginx's ClusterRole, in short
            cluster_role("system:kubus:local-path-provisioner", local_path),
            cluster_role("system:node", node_rules())]


# ---- controller roles (§5.4) ---------------------------------------------------------------------

def _controllers() -> list[dict]:
    """kubus's controllers read through their own caches (Kubernetes' share kube-controller-manager's
    informers), so node-controller and service-account-controller also list and watch what they
    watch. Every controller role also writes Events (Kubernetes leaves that out of the namespace and
    aggregation controllers' roles; kubus's controllers all record events)."""
    rules = controller_rules()
    return [cluster_role(f"system:controller:{name}", [*rules[name], EVENTS]) for name in CONTROLLERS]


# ---- the public surface ------------------------------------------------------------------------------

def cluster_roles() -> list[dict]:
    """Fresh copies of every default ClusterRole."""
    return copy.deepcopy([*_user_facing(), *_basic(), *_components(), *_controllers()])


def cluster_role_bindings() -> list[dict]:
    """Fresh copies of every default ClusterRoleBinding."""
    authenticated = _subjects("Group", "system:authenticated")
    bindings = [
        cluster_role_binding("cluster-admin", _subjects("Group", "system:masters")),
        cluster_role_binding("system:basic-user", authenticated),
        cluster_role_binding("system:discovery", authenticated),
        cluster_role_binding("system:public-info-viewer", _subjects("Group", "system:authenticated",
                                                                    "system:unauthenticated")),
        cluster_role_binding("system:kube-scheduler", _subjects("User", "system:kube-scheduler")),
        cluster_role_binding("system:kube-controller-manager", _subjects("User", "system:kube-controller-manager")),
        cluster_role_binding("system:node-proxier", _subjects("User", "system:kube-proxy")),
        cluster_role_binding("system:coredns", [{"kind": "ServiceAccount", "name": "coredns",
                                                 "namespace": "kube-system"}]),
        cluster_role_binding("system:kubus:ingress-controller",
                             [{"kind": "ServiceAccount", "name": "ingress-controller", "namespace": "kube-system"}]),
        cluster_role_binding("system:kubus:local-path-provisioner",
                             [{"kind": "ServiceAccount", "name": "local-path-provisioner-service-account",
                               "namespace": "kube-system"}]),
        cluster_role_binding("system:node", []),
        *(cluster_role_binding(f"system:controller:{name}",
                               [{"kind": "ServiceAccount", "name": name, "namespace": "kube-system"}])
          for name in CONTROLLERS),
    ]
    return copy.deepcopy(bindings)


# ---- auto-reconciliation (`pkg/registry/rbac/reconciliation`) -----------------------------------------

def reconcile(existing: dict | None, default: dict) -> dict | None:
    """The object to write so `existing` holds at least what `default` holds, or None when nothing
    changes. Missing rules, selectors and subjects are added, labels and annotations merged (the
    existing values win); autoupdate "false" leaves the object alone. A binding returned with a
    different roleRef must be deleted and created again: roleRef is immutable."""
    if existing is None:
        return copy.deepcopy(default)
    if ((existing.get("metadata") or {}).get("annotations") or {}).get(AUTOUPDATE) == "false":
        return None
    result = copy.deepcopy(existing)
    _merge_meta(result.setdefault("metadata", {}), default.get("metadata") or {})
    if "roleRef" in default:
        _reconcile_binding(result, default)
    else:
        _reconcile_role(result, default)
    return None if result == existing else result


def _merge_meta(meta: dict, default_meta: dict) -> None:
    for key in ("labels", "annotations"):
        merged = {**(default_meta.get(key) or {}), **(meta.get(key) or {})}
        if merged:
            meta[key] = merged


def _reconcile_role(result: dict, default: dict) -> None:
    _, missing = covers(result.get("rules") or [], default.get("rules") or [])
    if missing:
        result["rules"] = [*(result.get("rules") or []), *missing]
    wanted = (default.get("aggregationRule") or {}).get("clusterRoleSelectors")
    if default.get("aggregationRule") is None:
        result.pop("aggregationRule", None)
        return
    held = (result.get("aggregationRule") or {}).get("clusterRoleSelectors") or []
    absent = [s for s in wanted or [] if s not in held]
    if absent:
        result["aggregationRule"] = {**(result.get("aggregationRule") or {}), "clusterRoleSelectors": [*held, *absent]}


def _reconcile_binding(result: dict, default: dict) -> None:
    if result.get("roleRef") != default["roleRef"]:
        result["roleRef"] = copy.deepcopy(default["roleRef"])
    held = result.get("subjects") or []
    absent = [s for s in default.get("subjects") or [] if _subject_key(s) not in {_subject_key(h) for h in held}]
    if absent:
        result["subjects"] = [*held, *absent]


def _subject_key(subject: dict) -> tuple[str, str, str, str]:
    return (subject.get("kind") or "", subject.get("apiGroup") or "", subject.get("name") or "",
            subject.get("namespace") or "")
