import pytest

from api.admission import admit
from api.qos import qos_class
from api.status import StatusError


def _pod(**spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}], **spec}}


def test_pod_defaults_match_kubernetes():
    pod = admit("Pod", {**_pod(), "spec": {"containers": [{
        "name": "c", "image": "nginx", "ports": [{"containerPort": 80}],
        "resources": {"limits": {"cpu": "1"}}, "livenessProbe": {"httpGet": {"port": 80}}}]}})
    spec, c = pod["spec"], pod["spec"]["containers"][0]
    assert (spec["restartPolicy"], spec["terminationGracePeriodSeconds"], spec["dnsPolicy"],
            spec["schedulerName"]) == ("Always", 30, "ClusterFirst", "default-scheduler")
    assert "priority" not in spec and "tolerations" not in spec  # admission's (Priority, DefaultTolerationSeconds)
    assert c["imagePullPolicy"] == "Always"  # no tag means latest
    assert c["resources"]["requests"] == {"cpu": "1"}
    assert c["ports"][0]["protocol"] == "TCP"
    assert {k: c["livenessProbe"][k] for k in ("timeoutSeconds", "periodSeconds", "successThreshold",
                                                "failureThreshold")} == {"timeoutSeconds": 1, "periodSeconds": 10,
                                                                         "successThreshold": 1, "failureThreshold": 3}
    assert pod["metadata"]["namespace"] == "default"


def test_tagged_image_pulls_if_not_present():
    assert admit("Pod", _pod())["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"


def test_deployment_defaults():
    d = admit("Deployment", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                             "spec": {"selector": {"matchLabels": {"a": "b"}},
                                      "template": {"metadata": {"labels": {"a": "b"}},
                                                   "spec": {"containers": [{"name": "c", "image": "x"}]}}}})
    spec = d["spec"]
    assert (spec["replicas"], spec["revisionHistoryLimit"], spec["progressDeadlineSeconds"]) == (1, 10, 600)
    assert spec["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}


def test_node_allocatable_defaults_to_capacity():
    node = admit("Node", {"kind": "Node", "metadata": {"name": "n1"}, "status": {"capacity": {"cpu": "4"}}})
    assert node["status"]["allocatable"] == {"cpu": "4"} and "namespace" not in node["metadata"]


@pytest.mark.parametrize("obj,field", [
    pytest.param({**_pod(), "metadata": {}}, "metadata.name", id="no-name"),
    pytest.param({**_pod(), "metadata": {"name": "p", "labels": {"bad key": "v"}}}, "metadata.labels",
                 id="bad-label-key"),
    pytest.param(_pod(containers=[{"name": "c", "image": "x"}, {"name": "c", "image": "y"}]),
                 "spec.containers[1].name", id="duplicate-container"),
    pytest.param(_pod(containers=[{"name": "c"}]), "spec.containers[0].image", id="no-image"),
    pytest.param(_pod(containers=[{"name": "c", "image": "x", "resources": {"requests": {"cpu": "2"},
                                                                            "limits": {"cpu": "1"}}}]),
                 "spec.containers[0].resources.requests", id="request-over-limit"),
    pytest.param(_pod(tolerations=[{"key": "k", "operator": "Exists", "value": "v"}]),
                 "spec.tolerations[0].operator", id="exists-with-value"),
    pytest.param({"kind": "Node", "metadata": {"name": "n", "namespace": "default"}}, "metadata.namespace",
                 id="cluster-scoped-with-namespace"),
])
def test_invalid(obj, field):
    with pytest.raises(StatusError) as err:
        admit(obj["kind"], obj)
    assert err.value.reason == "Invalid"
    assert field in [c.field for c in err.value.causes]


def test_kind_mismatch_is_bad_request():
    with pytest.raises(StatusError) as err:
        admit("Node", _pod())
    assert err.value.reason == "BadRequest"


@pytest.mark.parametrize("kind, obj", [("Pod", _pod()), ("ConfigMap", {"apiVersion": "v1", "kind": "ConfigMap"})])
def test_empty_metadata_maps_and_lists_are_not_stored(kind, obj):
    """ObjectMeta writes them `omitempty` (kubectl diff's dry-run patch carries `annotations: {}`)."""
    meta = {"name": "x", "labels": {}, "annotations": {}, "finalizers": [], "ownerReferences": []}
    stored = admit(kind, {**obj, "metadata": meta})["metadata"]
    assert stored == {"name": "x", "namespace": "default"}
    kept = admit(kind, {**obj, "metadata": {"name": "x", "labels": {"a": "b"}}})["metadata"]
    assert kept["labels"] == {"a": "b"}


@pytest.mark.parametrize("resources, qos", [
    ({}, "BestEffort"), ({"requests": {"cpu": "100m"}}, "Burstable"),
    ({"limits": {"cpu": "1", "memory": "1Gi"}}, "Guaranteed")])
def test_a_new_pods_status_is_pending_with_its_qos_class_whatever_it_was_sent_with(resources, qos):
    from api.admission import prepare_for_create
    pod = admit("Pod", {**_pod(), "status": {"phase": "Running", "podIP": "10.0.0.9"}})
    pod["spec"]["containers"][0]["resources"] = resources
    prepare_for_create("Pod", pod)
    assert pod["status"] == {"phase": "Pending", "qosClass": qos}


@pytest.mark.parametrize("spec", [
    {"containers": [[{"x": "../x"}, None]]},  # the fuzz's: a container that is a list
    {"containers": "nope", "initContainers": [None]},
    {"containers": [{"name": "a", "resources": ["cpu"]}]},
    {"containers": [{"name": "a", "resources": {"limits": {"cpu": "lots", "memory": [1]}}}]},
])
def test_the_qos_class_of_a_pod_nothing_validated_yet_is_besteffort_not_an_error(spec):
    """The store classes a created pod before anything need have validated it (a create sent to it
    straight): a malformed container was an AttributeError, answered as a 500."""
    assert qos_class({"spec": spec}) == "BestEffort"
