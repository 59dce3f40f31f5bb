"""Table cells kubectl users read: selectors and the wide workload columns."""
from __future__ import annotations

from cli.printers import header, row, selector_text


def test_selector_text_as_kubectl_prints_it():
    selector = {"matchLabels": {"tier": "web", "app": "shop"},
                "matchExpressions": [{"key": "env", "operator": "In", "values": ["a", "b"]},
                                     {"key": "zone", "operator": "NotIn", "values": ["z"]},
                                     {"key": "canary", "operator": "DoesNotExist"},
                                     {"key": "team", "operator": "Exists"}]}
    assert selector_text(selector) == "app=shop,tier=web,env in (a,b),zone notin (z),!canary,team"
    assert selector_text(None) == "<none>"


def test_wide_deployment_shows_containers_images_and_selector():
    d = {"metadata": {"name": "web", "creationTimestamp": None},
         "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"spec": {"containers": [{"name": "app", "image": "nginx:1.27"},
                                                       {"name": "log", "image": "busybox:1.36"}]}}},
         "status": {"readyReplicas": 2, "updatedReplicas": 2, "availableReplicas": 2}}
    assert header("Deployment", True, False)[-3:] == ["CONTAINERS", "IMAGES", "SELECTOR"]
    assert row("Deployment", d, True, False)[-3:] == ["app,log", "nginx:1.27,busybox:1.36", "app=web"]
    assert len(row("Deployment", d, False, False)) == len(header("Deployment", False, False))


def test_the_front_doors_kinds_print_kubectls_columns():
    quota = {"metadata": {"name": "compute"}, "status": {"hard": {"pods": "3", "limits.cpu": "2"},
                                                         "used": {"pods": "1"}}}
    assert header("ResourceQuota", False, False) == ["NAME", "AGE", "REQUEST", "LIMIT"]
    assert row("ResourceQuota", quota, False, False)[2:] == ["pods: 1/3", "limits.cpu: 0/2"]
    binding = {"metadata": {"name": "b"}, "roleRef": {"kind": "ClusterRole", "name": "view"},
               "subjects": [{"kind": "User", "name": "alice"}, {"kind": "ServiceAccount", "name": "ci",
                                                                "namespace": "dev"}]}
    assert row("RoleBinding", binding, True, False) == ["b", "ClusterRole/view", "<unknown>", "alice", "", "dev/ci"]
    assert header("Unheard", False, False) == ["NAME", "AGE"]
