"""ReplicaSet deletion order and expectations, on plain objects."""
from actors.controllers.expectations import Expectations
from actors.controllers.ranking import pods_to_delete


def pod(name, node="", phase="Running", ready=True, created="2026-01-01T00:00:00Z", restarts=0, cost=None):
    conditions = [{"type": "Ready", "status": "True" if ready else "False",
                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]
    notes = {"controller.kubernetes.io/pod-deletion-cost": str(cost)} if cost is not None else {}
    return {"metadata": {"name": name, "creationTimestamp": created, "annotations": notes},
            "spec": {"nodeName": node},
            "status": {"phase": phase, "conditions": conditions, "containerStatuses": [{"restartCount": restarts}]}}


def test_deletion_order_follows_kubernetes():
    pods = [pod("running", "n1"), pod("unassigned", ""), pod("pending", "n1", phase="Pending"),
            pod("not-ready", "n1", ready=False), pod("cheap", "n1", cost=-5),
            pod("newer", "n1", created="2026-06-01T00:00:00Z"), pod("crashy", "n1", restarts=4)]
    order = [p["metadata"]["name"] for p in pods_to_delete(pods, pods, len(pods))]
    assert order[:4] == ["unassigned", "pending", "not-ready", "cheap"]
    assert order.index("crashy") < order.index("running") and order.index("newer") < order.index("running")


def test_crowded_nodes_lose_pods_first():
    pods = [pod("alone", "n1"), pod("crowd-a", "n2"), pod("crowd-b", "n2")]
    assert pods_to_delete(pods, pods, 1)[0]["metadata"]["name"].startswith("crowd")


def test_expectations():
    now = [0.0]
    e = Expectations(lambda: now[0])
    e.expect("ns/rs", adds=2, deletes={"u1"})
    assert not e.satisfied("ns/rs")
    e.created("ns/rs"), e.created("ns/rs"), e.deleted("ns/rs", "u1")
    assert e.satisfied("ns/rs")
    e.expect("ns/rs", adds=1)
    now[0] = 301
    assert e.satisfied("ns/rs")  # records expire after five minutes


def _rs(name, replicas, created, max_replicas=13):
    return {"metadata": {"name": name, "creationTimestamp": created,
                         "annotations": {"deployment.kubernetes.io/max-replicas": str(max_replicas),
                                         "deployment.kubernetes.io/desired-replicas": "10"}},
            "spec": {"replicas": replicas}}


def test_proportional_scaling_spreads_the_change_by_share():
    from actors.controllers.rollout import is_scaling_event, proportional_sizes

    d = {"spec": {"replicas": 20, "strategy": {"type": "RollingUpdate"}}}
    active = [_rs("old", 6, "2026-01-01T00:00:00Z"), _rs("new", 5, "2026-01-02T00:00:00Z")]
    assert is_scaling_event(d, active)
    # 20 + 5 surge allowed, 11 now: old 6*25/13 -> 12 (+6), new 5*25/13 -> 10 (+5), 3 left to the largest
    assert proportional_sizes(d, active) == {"old": 15, "new": 10}
    d["spec"]["replicas"] = 4  # down: 4 + 1 surge allowed
    sizes = proportional_sizes(d, active)
    assert sum(sizes.values()) == 5 and all(v >= 0 for v in sizes.values())


def test_deployment_conditions():
    from actors.controllers.conditions import deployment_conditions

    d = {"metadata": {"generation": 2}, "spec": {"replicas": 4, "progressDeadlineSeconds": 60}, "status": {}}
    rs = {"metadata": {"name": "web-abc"}}
    status = {"replicas": 4, "updatedReplicas": 1, "availableReplicas": 3, "readyReplicas": 3, "observedGeneration": 2}
    first = {c["type"]: c for c in deployment_conditions(d, status, rs, 1000.0)}
    assert (first["Available"]["status"], first["Available"]["reason"]) == ("True", "MinimumReplicasAvailable")
    assert first["Progressing"]["reason"] == "NewReplicaSetCreated"
    d["status"] = {**status, "conditions": list(first.values())}
    stuck = {c["type"]: c for c in deployment_conditions(d, status, rs, 1000.0 + 61)}
    assert (stuck["Progressing"]["status"], stuck["Progressing"]["reason"]) == ("False", "ProgressDeadlineExceeded")
    done = {**status, "updatedReplicas": 4, "availableReplicas": 4}
    final = {c["type"]: c for c in deployment_conditions(d, done, rs, 1100.0)}
    assert final["Progressing"]["reason"] == "NewReplicaSetAvailable"


def test_a_found_replicaset_is_not_reported_as_created():
    from actors.controllers.conditions import deployment_conditions

    d = {"metadata": {"generation": 1}, "spec": {"replicas": 2}, "status": {}}
    status = {"replicas": 2, "updatedReplicas": 2, "availableReplicas": 1, "readyReplicas": 1}
    adopted = {c["type"]: c for c in deployment_conditions(d, status, {"metadata": {"name": "web-1"}}, 1000.0,
                                                            created_here=False)}
    assert (adopted["Progressing"]["reason"], adopted["Progressing"]["message"]) == \
        ("FoundNewReplicaSet", 'Found new replica set "web-1"')
    d["status"] = {**status, "conditions": list(adopted.values())}
    rolled_back = {c["type"]: c for c in deployment_conditions(d, status, {"metadata": {"name": "web-0"}}, 1001.0,
                                                                created_here=False)}
    assert (rolled_back["Progressing"]["reason"], rolled_back["Progressing"]["message"]) == \
        ("ReplicaSetUpdated", 'ReplicaSet "web-0" is progressing.')


def test_pods_whose_deletes_are_in_flight_count_as_gone_in_every_status():
    """A ReplicaSet scaled 3 -> 2 deletes one pod; an event that comes before that delete's (a sibling's
    status, say) syncs the set again. Its status must not count the pod it is deleting as available
    once more: a Deployment scales old sets down by their availableReplicas, and a full test run saw
    it take one pod too many (5 ready where maxUnavailable allows no fewer than 6)."""
    from actors.controllers.replicaset import ReplicaSetController

    pods = [pod(f"p{i}", "n1", created=f"2026-01-0{i + 1}T00:00:00Z") for i in range(3)]
    for i, p in enumerate(pods):
        p["metadata"]["uid"] = f"u{i}"
    controller = object.__new__(ReplicaSetController)  # its decisions only: no bus, no cache
    controller.expectations, controller.failures = Expectations(lambda: 0.0), {}
    controller.owner = lambda ns, name: {"metadata": {"namespace": ns, "name": name}, "spec": {"replicas": 2}}
    controller._claim = controller.in_namespace = lambda *_: pods
    deleted, reported = [], []
    controller._delete = lambda rs, key, p: deleted.append(p["metadata"]["name"])
    controller._report = lambda rs, active: reported.append(sorted(p["metadata"]["name"] for p in active))
    controller.reconcile("ns/web")
    controller.reconcile("ns/web")  # before the delete came back as an event
    assert len(deleted) == 1 and reported == [sorted({"p0", "p1", "p2"} - set(deleted))] * 2
