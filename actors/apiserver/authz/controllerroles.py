"""The roles of the controllers (Kubernetes' `system:controller:<name>` roles of
plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go): one entry a controller, in
CONTROLLERS' order. kubus's controllers read through their own caches, so a role also lists and watches
what its controller watches."""
from __future__ import annotations

from actors.apiserver.authz.rules import new_rule
from api.rbac import RBAC_GROUP

CORE, APPS = ("",), ("apps",)
EXTENSIONS = "apiextensions.k8s.io"
READ = "get list watch"
CONTROLLERS = ("clusterrole-aggregation-controller", "deployment-controller", "generic-garbage-collector",
               "namespace-controller", "node-controller", "replicaset-controller", "resourcequota-controller",
               "service-account-controller", "endpointslice-controller", "endpoint-controller",
               "root-ca-cert-publisher", "job-controller", "ttl-after-finished-controller", "cronjob-controller",
               "replication-controller", "apiextensions-controller", "disruption-controller",
               "persistent-volume-binder", "daemon-set-controller", "statefulset-controller",
               "horizontal-pod-autoscaler")


def controller_rules() -> dict[str, list[dict]]:
    workloads = ("apps", "extensions")
    return {
        "clusterrole-aggregation-controller": [
            new_rule("escalate get list patch update watch", (RBAC_GROUP,), "clusterroles")],
        "deployment-controller": [
            new_rule("get list update watch", workloads, "deployments"),
            new_rule("update", workloads, "deployments/status"),
            new_rule("update", workloads, "deployments/finalizers"),
            new_rule("create delete get list patch update watch", workloads, "replicasets"),
            new_rule("get list update watch", CORE, "pods")],
        "daemon-set-controller": [
            new_rule("get list watch", workloads, "daemonsets"),
            new_rule("update", workloads, "daemonsets/status"), new_rule("update", workloads, "daemonsets/finalizers"),
            new_rule("list watch", CORE, "nodes"), new_rule("create delete list patch watch", CORE, "pods"),
            new_rule("create", CORE, "pods/binding"),
            new_rule("create delete get list patch update watch", ("apps",), "controllerrevisions")],
        "statefulset-controller": [
            new_rule("get list watch", APPS, "statefulsets"),
            new_rule("update", APPS, "statefulsets/status"), new_rule("update", APPS, "statefulsets/finalizers"),
            new_rule("create delete get list patch update watch", CORE, "pods"),
            new_rule("create delete get list patch update watch", APPS, "controllerrevisions"),
            new_rule("create delete get list patch update watch", CORE, "persistentvolumeclaims")],
        "generic-garbage-collector": [new_rule("delete get list patch update watch", ("*",), "*")],
        "job-controller": [
            new_rule("get list update watch", ("batch",), "jobs"),
            new_rule("update", ("batch",), "jobs/status"), new_rule("update", ("batch",), "jobs/finalizers"),
            new_rule("create delete list patch watch", CORE, "pods")],
        "ttl-after-finished-controller": [new_rule("delete get list watch", ("batch",), "jobs")],
        "apiextensions-controller": [  # kubus: the CRD controllers kube-apiserver runs as itself
            new_rule("get list patch update watch", (EXTENSIONS,), "customresourcedefinitions"),
            new_rule("patch update", (EXTENSIONS,), "customresourcedefinitions/status"),
            new_rule("delete deletecollection list", ("*",), "*")],
        "cronjob-controller": [
            new_rule("get list update watch", ("batch",), "cronjobs"),
            new_rule("create delete get list patch update watch", ("batch",), "jobs"),
            new_rule("update", ("batch",), "cronjobs/status"), new_rule("update", ("batch",), "cronjobs/finalizers"),
            new_rule("delete list", CORE, "pods")],
        "replication-controller": [
            new_rule("get list update watch", CORE, "replicationcontrollers"),
            new_rule("update", CORE, "replicationcontrollers/status"),
            new_rule("update", CORE, "replicationcontrollers/finalizers"),
            new_rule("create delete list patch watch", CORE, "pods")],
        "disruption-controller": [
            new_rule("get list watch", workloads, "deployments replicasets"),
            new_rule("get list watch", CORE, "replicationcontrollers"), new_rule("get list watch", APPS, "statefulsets"),
            new_rule("get list watch", ("policy",), "poddisruptionbudgets"),
            new_rule("update", ("policy",), "poddisruptionbudgets/status"),
            new_rule("get", ("*",), "*/scale"),
            new_rule("list watch", CORE, "pods"),  # kubus: it watches for itself
            new_rule("patch update", CORE, "pods/status")],
        "horizontal-pod-autoscaler": [
            new_rule("get list watch", ("autoscaling",), "horizontalpodautoscalers"),
            new_rule("update", ("autoscaling",), "horizontalpodautoscalers/status"),
            new_rule("get update", ("*",), "*/scale"),
            # kubus: the bus has no scale subresource; `/scale` is the target's spec.replicas, patched
            new_rule("get list watch patch", workloads, "deployments replicasets"),
            new_rule("get list watch patch", APPS, "statefulsets"),
            new_rule("get list watch patch", CORE, "replicationcontrollers"),
            new_rule("list watch", CORE, "pods"),  # kubus: it watches for itself
            new_rule("list", ("metrics.k8s.io",), "pods")],
        "persistent-volume-binder": [  # with the pvc-protection and pv-protection controllers' rules
            new_rule("create delete get list patch update watch", CORE, "persistentvolumes"),
            new_rule("update", CORE, "persistentvolumes/status"),
            new_rule("get list patch update watch", CORE, "persistentvolumeclaims"),
            new_rule("update", CORE, "persistentvolumeclaims/status"),
            new_rule("get list watch", CORE, "pods"), new_rule(READ, ("storage.k8s.io",), "storageclasses")],
        "namespace-controller": [
            new_rule("delete get list watch", CORE, "namespaces"),
            new_rule("update", CORE, "namespaces/finalize namespaces/status"),
            new_rule("update", CORE, "namespaces"),  # kubus: no finalize subresource, the finalizer goes by update
            new_rule("delete deletecollection get list watch", ("*",), "*")],
        "node-controller": [
            new_rule("delete get list patch update watch", CORE, "nodes"),
            new_rule("patch update", CORE, "nodes/status"), new_rule("patch update", CORE, "pods/status"),
            new_rule("delete get list watch", CORE, "pods"),
            new_rule("list watch", ("coordination.k8s.io",), "leases")],  # kubus: it watches for itself
        "replicaset-controller": [
            new_rule("get list update watch", workloads, "replicasets"),
            new_rule("update", workloads, "replicasets/status"),
            new_rule("update", workloads, "replicasets/finalizers"),
            new_rule("create delete list patch watch", CORE, "pods")],
        "resourcequota-controller": [
            new_rule("list watch", ("*",), "*"), new_rule("update", CORE, "resourcequotas/status")],
        "service-account-controller": [new_rule("create", CORE, "serviceaccounts"),
                                       new_rule("list watch", CORE, "namespaces serviceaccounts")],
        "endpointslice-controller": [
            new_rule("get list watch", CORE, "nodes pods services"),
            new_rule("update", CORE, "services/finalizers"),
            new_rule("create delete get list update watch", ("discovery.k8s.io",), "endpointslices")],
        "endpoint-controller": [
            new_rule("get list watch", CORE, "pods services"),
            new_rule("create delete get list update watch", CORE, "endpoints"),
            new_rule("create", CORE, "endpoints/restricted")],
        "root-ca-cert-publisher": [new_rule("create update", CORE, "configmaps"),
                                   new_rule("list watch", CORE, "configmaps namespaces")],
    }
