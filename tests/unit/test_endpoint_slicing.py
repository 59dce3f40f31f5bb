"""Which pods become endpoints and how they are packed into slices, as Kubernetes' EndpointSlice and
Endpoints controllers decide (pure logic)."""
from __future__ import annotations

from actors.controllers import endpoints as legacy
from actors.controllers import endpointsets, slicing

SERVICE = {"metadata": {"name": "web", "namespace": "default", "uid": "svc-uid", "labels": {"tier": "front"}},
           "spec": {"selector": {"app": "web"}, "clusterIP": "10.96.0.20",
                    "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}]}}


def pod(name: str, ip: str | None = "10.244.0.5", ready: bool = True, port: str = "http", number: int = 8080,
        **meta) -> dict:
    status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}
    if ip:
        status["podIP"] = ip
    return {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": {"app": "web"},
                         **meta},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "ports": [{"name": port,
                                                                                     "containerPort": number}]}]},
            "status": status}


def test_conditions_follow_readiness_and_deletion():
    ready, waiting = pod("a"), pod("b", ready=False)
    going = pod("c", deletionTimestamp="2026-11-25T00:00:00Z")
    got = {e.pod["metadata"]["name"]: (e.ready, e.serving, e.terminating)
           for e in endpointsets.by_ports(SERVICE, [ready, waiting, going])[(("http", "TCP", 8080, None),)]}
    assert got == {"a": (True, True, False), "b": (False, False, False), "c": (False, True, True)}
    publish = {**SERVICE, "spec": {**SERVICE["spec"], "publishNotReadyAddresses": True}}
    assert all(e.ready for e in endpointsets.by_ports(publish, [waiting])[(("http", "TCP", 8080, None),)])


def test_pods_without_an_address_or_finished_are_left_out_and_named_ports_resolve_per_pod():
    done = pod("done")
    done["status"]["phase"] = "Succeeded"
    groups = endpointsets.by_ports(SERVICE, [pod("a"), pod("b", number=9090), pod("c", port="metrics"),
                                            pod("d", ip=None), done])
    assert {k: [e.pod["metadata"]["name"] for e in v] for k, v in groups.items()} == {
        (("http", "TCP", 8080, None),): ["a"], (("http", "TCP", 9090, None),): ["b"], (): ["c"]}


def endpoint(i: int) -> dict:
    return {"addresses": [f"10.244.0.{i}"], "conditions": {"ready": True, "serving": True, "terminating": False},
            "targetRef": {"kind": "Pod", "namespace": "default", "name": f"p{i}", "uid": f"u{i}"}}


PORTS = [{"name": "http", "protocol": "TCP", "port": 8080}]
KEY = (("http", "TCP", 8080, None),)


def stored(endpoints: list[dict], name: str = "web-aaaaa") -> dict:
    made = slicing.new_slice(SERVICE, PORTS, endpoints)
    made["metadata"] = {**made["metadata"], "name": name, "resourceVersion": "7"}
    return made


def test_new_endpoints_are_packed_at_most_max_per_slice_with_kubernetes_labels():
    plan = slicing.plan(SERVICE, {KEY: (PORTS, [endpoint(i) for i in range(1, 6)])}, [], max_per_slice=2)
    assert [len(s["endpoints"]) for s in plan.create] == [2, 2, 1] and not plan.update and not plan.delete
    made = plan.create[0]
    assert made["metadata"]["generateName"] == "web-"
    assert made["metadata"]["labels"] == {"tier": "front", "kubernetes.io/service-name": "web",
                                          "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}
    assert made["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Service", "name": "web",
                                                    "uid": "svc-uid", "controller": True, "blockOwnerDeletion": True}]


def test_an_unchanged_slice_is_left_alone_and_a_changed_one_updated_in_place():
    current = stored([endpoint(1), endpoint(2)])
    assert slicing.plan(SERVICE, {KEY: (PORTS, [endpoint(1), endpoint(2)])}, [current]).empty()
    not_ready = {**endpoint(2), "conditions": {"ready": False, "serving": False, "terminating": False}}
    plan = slicing.plan(SERVICE, {KEY: (PORTS, [endpoint(1), not_ready, endpoint(3)])}, [current])
    assert not plan.create and not plan.delete
    assert [e["addresses"][0] for e in plan.update[0]["endpoints"]] == ["10.244.0.1", "10.244.0.2", "10.244.0.3"]
    assert plan.update[0]["endpoints"][1]["conditions"]["ready"] is False
    assert plan.update[0]["metadata"]["name"] == "web-aaaaa"


def test_no_endpoints_leave_one_placeholder_and_creates_reuse_slices_being_deleted():
    plan = slicing.plan(SERVICE, {}, [stored([endpoint(1)])])
    assert not plan.create and not plan.delete
    assert plan.update[0]["metadata"]["name"] == "web-aaaaa" and plan.update[0]["endpoints"] == []
    assert plan.update[0]["ports"] == []
    placeholder = {**stored([]), "ports": []}
    assert slicing.plan(SERVICE, {}, [placeholder]).empty()
    headless = {**SERVICE, "spec": {**SERVICE["spec"], "clusterIP": "None"}}
    assert slicing.labels_for(headless)["service.kubernetes.io/headless"] == ""


def test_the_legacy_endpoints_split_ready_from_not_ready_and_leave_terminating_out():
    subsets, cut = legacy.subsets(SERVICE, [pod("a", ip="10.244.0.2"), pod("b", ip="10.244.0.3", ready=False),
                                            pod("c", ip="10.244.0.4", deletionTimestamp="2026-11-25T00:00:00Z")])
    assert not cut
    assert [(s["ports"], [a["ip"] for a in s.get("addresses", [])], [a["ip"] for a in s.get("notReadyAddresses", [])])
            for s in subsets] == [([{"name": "http", "protocol": "TCP", "port": 8080}], ["10.244.0.2"],
                                   ["10.244.0.3"])]


def test_the_legacy_endpoints_are_cut_at_a_thousand_not_ready_first():
    pods = [pod(f"r{i}", ip=f"10.244.{i // 250}.{i % 250 + 1}") for i in range(900)] + \
           [pod(f"w{i}", ip=f"10.245.{i // 250}.{i % 250 + 1}", ready=False) for i in range(200)]
    subsets, cut = legacy.subsets(SERVICE, pods)
    assert cut
    assert (len(subsets[0]["addresses"]), len(subsets[0]["notReadyAddresses"])) == (900, 100)
