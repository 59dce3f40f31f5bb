"""`kubus describe node`: what the node runs and what that asks of it, as kubectl shows it."""
from __future__ import annotations

from cli.describe import node_lines


def _pod(name: str, cpu: str, memory: str, phase: str = "Running") -> dict:
    return {"metadata": {"name": name, "namespace": "shop", "creationTimestamp": None},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]},
            "status": {"phase": phase}}


def test_node_lines_show_taints_pods_and_allocated_requests():
    node = {"spec": {"unschedulable": True, "taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}
    pods = [_pod("a", "500m", "512Mi"), _pod("b", "1", "1Gi"), _pod("done", "1", "1Gi", phase="Succeeded")]
    text = "\n".join(node_lines(node, pods))
    assert "Taints:       dedicated=db:NoSchedule" in text
    assert "Unschedulable: true" in text
    assert "Non-terminated Pods:  (2 in total)" in text
    rows = [line.split() for line in text.splitlines() if line.startswith("  shop")]
    assert [r[1:4] for r in rows] == [["a", "500m", "512Mi"], ["b", "1", "1024Mi"]]
    assert "  cpu        1500m (75%)" in text and "  memory     1536Mi (37%)" in text


# ---- pods: init containers before containers; Events oldest first ----------------------------------
from types import SimpleNamespace  # noqa: E402

import pytest  # noqa: E402

from cli.describe import describe  # noqa: E402


class _Events:
    """A client whose only read is the Events list `describe` asks for."""

    def __init__(self, events: list[dict]):
        self.events = events

    def list(self, kind: str, namespace: str | None = None, field_selector: str = "") -> SimpleNamespace:
        assert kind == "Event"
        return SimpleNamespace(items=self.events)


def _event(reason: str, rv: str, last: str | None = None, event_time: str | None = None,
           created: str = "2024-05-01T10:00:00Z", kind: str = "Deployment") -> dict:
    return {"metadata": {"name": f"e{rv}", "resourceVersion": rv, "creationTimestamp": created},
            "involvedObject": {"kind": kind, "name": "web"}, "type": "Normal", "reason": reason,
            "message": reason, "lastTimestamp": last, "eventTime": event_time}


def _reasons(text: str) -> list[str]:
    return [line.split()[1] for line in text.split("Events:", 1)[1].splitlines()[2:]]


@pytest.mark.parametrize("events, order", [
    pytest.param([_event("c", "12", "2024-05-01T10:00:01Z"), _event("b", "11", "2024-05-01T10:00:01Z"),
                  _event("a", "9", "2024-05-01T10:00:01Z")], ["a", "b", "c"], id="same-second-by-revision"),
    pytest.param([_event("late", "5", "2024-05-01T10:00:09Z"), _event("early", "50", "2024-05-01T10:00:02Z")],
                 ["early", "late"], id="by-time-first"),
    pytest.param([_event("micro", "3", event_time="2024-05-01T10:00:01.500000Z"),
                  _event("last", "4", "2024-05-01T10:00:01Z"),
                  _event("created", "2", created="2024-05-01T10:00:00Z")],
                 ["created", "last", "micro"], id="eventTime-and-creationTimestamp-stand-in"),
])
def test_describe_lists_events_oldest_first(events, order):
    deployment = {"metadata": {"name": "web", "namespace": "shop"}, "spec": {}}
    assert _reasons(describe(_Events(events), "Deployment", deployment)) == order


def test_describe_pod_lists_init_containers_before_containers():
    pod = {"metadata": {"name": "myapp", "namespace": "shop"},
           "spec": {"initContainers": [{"name": "init-myservice", "image": "busybox:1.28"},
                                       {"name": "init-mydb", "image": "busybox:1.28"}],
                    "containers": [{"name": "myapp-container", "image": "busybox:1.28"}]},
           "status": {"phase": "Pending",
                      "initContainerStatuses": [
                          {"name": "init-myservice", "ready": False, "restartCount": 2,
                           "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                           "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}}},
                          {"name": "init-mydb", "ready": False, "restartCount": 0,
                           "state": {"waiting": {"reason": "PodInitializing"}}}],
                      "containerStatuses": [{"name": "myapp-container", "ready": False, "restartCount": 0,
                                             "state": {"waiting": {"reason": "PodInitializing"}}}]}}
    lines = describe(_Events([]), "Pod", pod).splitlines()
    assert "Status:       Init:CrashLoopBackOff" in lines
    titles = [line for line in lines if line.endswith(":") and not line.startswith(" ")]
    assert titles[:2] == ["Init Containers:", "Containers:"]
    at = lines.index("  init-myservice:")
    assert lines[at:at + 10] == [
        "  init-myservice:", "    Image:    busybox:1.28", "    State:    Waiting", "      Reason:   CrashLoopBackOff",
        "    Last State: Terminated", "      Reason:   Error", "      Exit Code: 1", "    Ready:    False",
        "    Restarts: 2", "  init-mydb:"]
    assert lines.index("  init-mydb:") < lines.index("Containers:") < lines.index("  myapp-container:")


# ---- PodDisruptionBudgets: kubectl's PodDisruptionBudgetDescriber ---------------------------------
from cli.describe_policy import budget_lines  # noqa: E402


@pytest.mark.parametrize("spec,first", [
    pytest.param({"minAvailable": 2}, "Min available:  2", id="min-available"),
    pytest.param({"maxUnavailable": "25%"}, "Max unavailable:  25%", id="max-unavailable"),
])
def test_budget_lines_show_its_bound_selector_and_status(spec, first):
    pdb = {"spec": {**spec, "selector": {"matchLabels": {"app": "web"}}},
           "status": {"disruptionsAllowed": 1, "currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3}}
    assert budget_lines(pdb) == [first, "Selector:     app=web", "Status:", "    Allowed disruptions:  1",
                                 "    Current:              3", "    Desired:              2",
                                 "    Total:                3"]


def test_budget_lines_of_a_budget_without_selector_or_status():
    assert budget_lines({"spec": {"minAvailable": 1}})[:2] == ["Min available:  1", "Selector:     <unset>"]
    assert budget_lines({"spec": {"minAvailable": 1}})[-1] == "    Total:                0"
