"""Table cells kubectl users read: selectors and the wide workload columns."""
from __future__ import annotations

from api.printers.columns import header, row
from api.printers.workloads import selector_text


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


# ---- the pod STATUS column, as kubectl's printPod computes it ---------------------------------------
import pytest  # noqa: E402

from api.printers.workloads import pod_status  # noqa: E402

RUNNING = {"running": {"startedAt": "2024-01-01T00:00:00Z"}}
DONE = {"terminated": {"exitCode": 0, "reason": "Completed"}}


def waiting(reason: str) -> dict:
    return {"waiting": {"reason": reason}}


def _status(name: str, state: dict, ready: bool = False, started: bool | None = None) -> dict:
    return {"name": name, "state": state, "ready": ready, **({"started": started} if started is not None else {})}


def _pod_with(phase: str = "Running", inits: list[dict] | None = None, apps: list[dict] | None = None,
              conditions: dict[str, str] | None = None, sidecars: tuple[str, ...] = (), deleted: bool = False,
              reason: str = "") -> dict:
    init_specs = [{"name": s["name"], **({"restartPolicy": "Always"} if s["name"] in sidecars else {})}
                  for s in inits or []]
    status = {"phase": phase, "containerStatuses": apps or [], "initContainerStatuses": inits or [],
              "conditions": [{"type": t, "status": v} for t, v in (conditions or {}).items()],
              **({"reason": reason} if reason else {})}
    meta = {"name": "p", **({"deletionTimestamp": "2024-01-01T00:00:00Z"} if deleted else {})}
    return {"metadata": meta, "spec": {"initContainers": init_specs, "containers": [{"name": "app"}]},
            "status": status}


@pytest.mark.parametrize("pod, shown", [
    pytest.param(_pod_with("Pending", [_status("i1", waiting("PodInitializing")),
                                       _status("i2", waiting("PodInitializing"))],
                           [_status("app", waiting("PodInitializing"))], {"Initialized": "False"}),
                 "Init:0/2", id="init-not-started"),
    pytest.param(_pod_with("Pending", [_status("i1", RUNNING)], [_status("app", waiting("ContainerCreating"))],
                           {"Initialized": "False"}), "Init:0/1", id="init-running"),
    pytest.param(_pod_with("Pending", [_status("i1", DONE), _status("i2", RUNNING)],
                           [_status("app", waiting("PodInitializing"))]), "Init:1/2", id="second-init-running"),
    pytest.param(_pod_with("Pending", [_status("i1", waiting("CrashLoopBackOff"))],
                           [_status("app", waiting("PodInitializing"))]), "Init:CrashLoopBackOff",
                 id="init-crash-loop"),
    pytest.param(_pod_with("Failed", [_status("i1", {"terminated": {"exitCode": 1, "reason": "Error"}})],
                           [_status("app", waiting("PodInitializing"))]), "Init:Error", id="init-error"),
    pytest.param(_pod_with("Pending", [_status("i1", {"terminated": {"exitCode": 137, "signal": 9}})]),
                 "Init:Signal:9", id="init-signal"),
    pytest.param(_pod_with("Pending", [_status("i1", {"terminated": {"exitCode": 3}})]), "Init:ExitCode:3",
                 id="init-exit-code"),
    pytest.param(_pod_with("Pending", [_status("i1", waiting("ImagePullBackOff"))]), "Init:ImagePullBackOff",
                 id="init-waiting-reason"),
    pytest.param(_pod_with("Pending", [_status("i1", DONE)], [_status("app", waiting("PodInitializing"))],
                           {"Initialized": "True"}), "PodInitializing", id="inits-done"),
    pytest.param(_pod_with("Pending", [_status("i1", DONE)], [_status("app", waiting("ContainerCreating"))]),
                 "ContainerCreating", id="app-creating"),
    pytest.param(_pod_with("Running", [_status("i1", DONE)], [_status("app", RUNNING, ready=True)],
                           {"Initialized": "True", "Ready": "True"}), "Running", id="running"),
    pytest.param(_pod_with("Running", [_status("side", RUNNING, started=True)], [_status("app", RUNNING, True)],
                           {"Initialized": "True"}, sidecars=("side",)), "Running", id="sidecar-started"),
    pytest.param(_pod_with("Pending", [_status("side", RUNNING, started=False)],
                           [_status("app", waiting("PodInitializing"))], sidecars=("side",)), "Init:0/1",
                 id="sidecar-not-started"),
    pytest.param(_pod_with("Running", [], [_status("app", waiting("CrashLoopBackOff"))]), "CrashLoopBackOff",
                 id="app-crash-loop"),
    pytest.param(_pod_with("Succeeded", [], [_status("app", DONE)]), "Completed", id="completed"),
    pytest.param(_pod_with("Failed", [], [_status("app", {"terminated": {"exitCode": 2}})]), "ExitCode:2",
                 id="app-exit-code"),
    pytest.param(_pod_with("Failed", [], [_status("app", {"terminated": {"exitCode": 143, "signal": 15}})]),
                 "Signal:15", id="app-signal"),
    pytest.param({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
                  "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}],
                             "containerStatuses": [_status("a", DONE), _status("b", RUNNING, ready=True)]}},
                 "NotReady", id="completed-beside-running-not-ready"),
    pytest.param({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
                  "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                             "containerStatuses": [_status("a", DONE), _status("b", RUNNING, ready=True)]}},
                 "Running", id="completed-beside-running-ready"),
    pytest.param(_pod_with("Running", [], [_status("app", RUNNING, True)], deleted=True), "Terminating",
                 id="terminating"),
    pytest.param(_pod_with("Succeeded", [], [_status("app", DONE)], deleted=True), "Completed",
                 id="deleted-after-finishing"),
    pytest.param(_pod_with("Running", [], [_status("app", RUNNING, True)], deleted=True, reason="NodeLost"),
                 "Unknown", id="node-lost"),
    pytest.param(_pod_with("Failed", [], [], reason="Evicted"), "Evicted", id="status-reason"),
    pytest.param({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "app"}]},
                  "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                                 "reason": "SchedulingGated"}]}},
                 "SchedulingGated", id="scheduling-gated"),
    pytest.param({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "app"}]}}, "Pending",
                 id="no-status-yet"),
])
def test_pod_status_column_matches_kubectl(pod, shown):
    assert pod_status(pod) == shown


def test_networking_kinds_print_kubectls_columns():
    from api.printers import columns as printers
    slice_ = {"metadata": {"name": "web-abcde"}, "addressType": "IPv4", "ports": [{"port": 8080}],
              "endpoints": [{"addresses": [f"10.244.0.{i}"]} for i in range(2, 7)]}
    assert printers.row("EndpointSlice", slice_, False, False)[:4] == [
        "web-abcde", "IPv4", "8080", "10.244.0.2,10.244.0.3,10.244.0.4 + 2 more..."]
    placeholder = {"metadata": {"name": "web-fghij"}, "addressType": "IPv4", "ports": None, "endpoints": None}
    assert printers.row("EndpointSlice", placeholder, False, False)[2:4] == ["<unset>", "<unset>"]
    endpoints = {"metadata": {"name": "web"}, "subsets": [{"addresses": [{"ip": "10.244.0.2"}],
                                                          "ports": [{"port": 8080}]}]}
    assert printers.row("Endpoints", endpoints, False, False)[:2] == ["web", "10.244.0.2:8080"]
    external = {"metadata": {"name": "db"}, "spec": {"type": "ExternalName", "externalName": "db.example.com"}}
    assert printers.row("Service", external, False, False)[:5] == ["db", "ExternalName", "<none>", "db.example.com",
                                                                   "<none>"]
    ingress = {"metadata": {"name": "shop"}, "spec": {"ingressClassName": "kubus", "rules": [{"host": "shop.example"}]},
               "status": {"loadBalancer": {"ingress": [{"ip": "127.0.0.1"}]}}}
    assert printers.row("Ingress", ingress, False, False)[:5] == ["shop", "kubus", "shop.example", "127.0.0.1", "80"]
