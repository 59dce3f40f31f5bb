"""The scheduler as a real process: placements Kubernetes would make, FailedScheduling then a
fitting node, racing schedulers that never double-bind, a standby that takes over."""
from __future__ import annotations

from runtime.client import Client
from tests.conftest import control_plane
from testkit.waiting import wait_until
from tests.integration.test_crud import pod
from tests.integration.test_watch import drain
from testkit import cli

TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


def node(name: str, cpu: str = "4", memory: str = "8Gi", labels=None, taints=None) -> dict:
    alloc = {"cpu": cpu, "memory": memory, "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": {"taints": taints or []}, "status": {"capacity": alloc, "allocatable": alloc}}


def requesting(name: str, cpu: str, memory: str = "1Gi", **spec) -> dict:
    p = pod(name, **spec)
    p["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu, "memory": memory}}
    return p


def bound_to(client: Client, name: str) -> str:
    return client.get("Pod", name)["spec"].get("nodeName") or ""


def _cluster_with_nodes(procs, settings, schedulers: tuple[str, ...] = ("scheduler",)) -> Client:
    client = control_plane(procs, settings)
    for n in (node("node-a", labels={"disk": "ssd"}), node("node-b", taints=[TAINT], labels={"gpu": "yes"}),
              node("node-c", cpu="2")):
        client.create(n)
    for name in schedulers:
        procs.start("actors.scheduler", "--name", name, label=name)
    return client


def test_pods_land_where_kubernetes_would_put_them(procs, settings):
    client = _cluster_with_nodes(procs, settings)
    client.create(requesting("roomy", "1"))
    client.create(requesting("ssd", "1", nodeSelector={"disk": "ssd"}))
    client.create(requesting("gpu", "1", nodeSelector={"gpu": "yes"},
                             tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu"}]))
    client.create(requesting("pinned", "1", nodeName="node-c"))
    wait_until(lambda: all(bound_to(client, n) for n in ("roomy", "ssd", "gpu")), 30, what="the pods to be bound")
    # 4-cpu node-a scores 75/87 least-allocated and 93 balanced against node-c's 50/87 and 81
    assert [bound_to(client, n) for n in ("roomy", "ssd", "gpu", "pinned")] == ["node-a", "node-a", "node-b", "node-c"]
    scheduled = client.get("Pod", "roomy")["status"]["conditions"]
    assert {"type": "PodScheduled", "status": "True"}.items() <= scheduled[0].items()
    events = wait_until(lambda: [e for e in client.list("Event", "default").items if e["reason"] == "Scheduled"
                                 and e["involvedObject"]["name"] == "roomy"], what="the Scheduled event")
    assert events[0]["message"] == "Successfully assigned default/roomy to node-a"
    client.close()


def test_unschedulable_pod_reports_then_lands_on_a_new_node(procs, settings):
    client = _cluster_with_nodes(procs, settings)
    client.create(requesting("huge", "5", memory="1Gi"))
    condition = wait_until(lambda: [c for c in (client.get("Pod", "huge").get("status") or {}).get("conditions") or []
                                    if c["type"] == "PodScheduled" and c["status"] == "False"], 30,
                           what="PodScheduled=False")[0]
    assert condition["reason"] == "Unschedulable"
    assert condition["message"] == \
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."
    failed = wait_until(lambda: [e for e in client.list("Event", "default").items if e["reason"] == "FailedScheduling"],
                        what="the FailedScheduling event")
    assert failed[0]["type"] == "Warning" and failed[0]["message"] == condition["message"]
    client.create(node("node-big", cpu="16"))
    assert wait_until(lambda: bound_to(client, "huge"), 30, what="the pod on the new node") == "node-big"
    client.close()


def test_racing_schedulers_never_double_bind(procs, settings):
    client = _cluster_with_nodes(procs, settings, ("scheduler-a", "scheduler-b"))
    watch = client.watch("Pod", "default").wait_synced()
    for i in range(40):
        client.create(requesting(f"race-{i}", "10m", memory="10Mi"))
    seen = drain(watch, lambda s: sum(1 for d in s if d.object["spec"].get("nodeName")) >= 40, timeout=60)
    nodes: dict[str, set[str]] = {}
    for d in seen:
        if d.object["spec"].get("nodeName"):
            nodes.setdefault(d.object["metadata"]["name"], set()).add(d.object["spec"]["nodeName"])
    assert len(nodes) == 40 and all(len(v) == 1 for v in nodes.values())
    logs = "".join(p.read_text() for p in procs.logdir.glob("scheduler-*.log"))
    assert "scheduler.synced" in logs
    client.close()


def test_standby_scheduler_takes_over(procs, settings):
    client = _cluster_with_nodes(procs, settings)
    standby = procs.start("actors.scheduler", label="scheduler-standby")
    client.create(requesting("first", "100m"))
    wait_until(lambda: bound_to(client, "first"), 30, what="the first pod bound")
    active = next(p for p in procs.procs if p.args[-1] == "scheduler" and p is not standby)
    procs.kill9(active)
    client.create(requesting("second", "100m"))
    wait_until(lambda: bound_to(client, "second"), 30, what="the standby to bind the second pod")
    assert standby.poll() is None
    client.close()


def priority_class(name: str, value: int, **fields) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, **fields}


def test_preemption_evicts_the_lower_priority_pod(procs, settings):
    client = _cluster_with_nodes(procs, settings)
    client.create(priority_class("low", 10))
    client.create(priority_class("high", 1000))
    client.create(priority_class("high-never", 1000, preemptionPolicy="Never"))
    for name, cpu in (("low-a", "3"), ("low-c", "1500m")):
        low = requesting(name, cpu, priorityClassName="low")
        client.create(low)
    wait_until(lambda: bound_to(client, "low-a") and bound_to(client, "low-c"), 30, what="the low pods bound")
    assert (bound_to(client, "low-a"), bound_to(client, "low-c")) == ("node-a", "node-c")
    client.create(requesting("never", "3", priorityClassName="high-never"))  # Priority admission sets them
    client.create(requesting("urgent", "3", priorityClassName="high"))
    urgent = wait_until(lambda: (client.get("Pod", "urgent").get("status") or {}).get("nominatedNodeName") and
                        client.get("Pod", "urgent"), 30, what="the nomination")
    assert urgent["status"]["nominatedNodeName"] == "node-a"  # node-c has 2 cpu: evicting there does not help
    victim = client.get("Pod", "low-a")
    assert victim["metadata"]["deletionTimestamp"]
    assert any(c["type"] == "DisruptionTarget" and c["reason"] == "PreemptionByScheduler"
               for c in victim["status"]["conditions"])
    assert not client.get("Pod", "low-c")["metadata"].get("deletionTimestamp")
    client.delete("Pod", "low-a", grace_period=0)  # what the node's kubelet does once the containers stop
    assert wait_until(lambda: bound_to(client, "urgent"), 30, what="the preemptor bound") == "node-a"
    assert not bound_to(client, "never")
    client.close()


def test_recorded_decisions_show_in_describe(procs, settings, tmp_path):
    import yaml

    config = tmp_path / "scheduler.yaml"
    config.write_text(yaml.safe_dump({"profiles": [{"schedulerName": "default-scheduler", "recordDecisions": True}]}))
    client = _cluster_with_nodes(procs, settings, ())  # only the recording scheduler below
    procs.start("actors.scheduler", "--config", str(config), label="recording")
    client.create(requesting("traced", "1"))
    annotations = wait_until(lambda: client.get("Pod", "traced")["metadata"].get("annotations"), 30,
                             what="the decision annotations")
    filters = __import__("json").loads(annotations["kube-scheduler-simulator.sigs.k8s.io/filter-result"])
    assert filters["node-b"]["TaintToleration"] == "node(s) had untolerated taint(s)"
    assert filters["node-a"]["NodeResourcesFit"] == "passed"
    out = cli.kubus("describe", "pod", "traced", env=procs.env).stdout
    assert "Scheduling decision:" in out and "Scheduled to: node-a" in out
    client.close()


def _unschedulable_message(client: Client, name: str) -> str:
    conditions = (client.get("Pod", name).get("status") or {}).get("conditions") or []
    return next((c["message"] for c in conditions if c["type"] == "PodScheduled" and c["status"] == "False"), "")


def test_enforced_affinity_untolerated_taints_and_unparsable_terms_in_the_fit_error(procs, settings, tmp_path):
    """Issue 13: a profile's addedAffinity filters with its own reason, every untolerated taint counts under
    one reason that names none, and a term whose values are no label values matches no node."""
    import yaml

    pool = {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["main"]}]}
    config = tmp_path / "scheduler.yaml"
    config.write_text(yaml.safe_dump({"profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
        {"name": "NodeAffinity", "args": {"addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [pool]}}}}]}]}))
    client = control_plane(procs, settings)
    for n in (node("gpu", labels={"pool": "main"}, taints=[TAINT]), node("other"),
              node("team-b", labels={"pool": "main"}, taints=[{"key": "team", "value": "b", "effect": "NoExecute"}])):
        client.create(n)
    procs.start("actors.scheduler", "--config", str(config), label="enforcing")
    odd = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["___@#$%^"]}]}]}}}
    client.create(requesting("web", "100m"))
    client.create(requesting("odd", "100m", affinity=odd, tolerations=[{"operator": "Exists"}]))
    assert wait_until(lambda: _unschedulable_message(client, "web"), 30, what="web unschedulable") == \
        "0/3 nodes are available: 1 node(s) didn't match scheduler-enforced node affinity, " \
        "2 node(s) had untolerated taint(s)."
    assert wait_until(lambda: _unschedulable_message(client, "odd"), 30, what="odd unschedulable") == \
        "0/3 nodes are available: 1 node(s) didn't match scheduler-enforced node affinity, " \
        "2 node(s) didn't match Pod's node affinity/selector."
    client.create(node("main", labels={"pool": "main"}))
    assert wait_until(lambda: bound_to(client, "web"), 30, what="web on the new node") == "main"
    assert wait_until(lambda: "0/4" in _unschedulable_message(client, "odd") and
                      _unschedulable_message(client, "odd"), 30, what="odd still refused") == \
        "0/4 nodes are available: 1 node(s) didn't match scheduler-enforced node affinity, " \
        "3 node(s) didn't match Pod's node affinity/selector."
    assert not bound_to(client, "odd")
    client.close()
