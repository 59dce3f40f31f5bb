"""Bad input gets 422 Invalid with the field path, and nothing is stored."""
from __future__ import annotations

import pytest

from api.status import StatusError

pytestmark = pytest.mark.shared_plane  # one control plane for the module, a namespace per test
CONTAINER = {"name": "app", "image": "busybox"}
TEMPLATE = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [CONTAINER]}}


@pytest.mark.parametrize("obj,field,fragment", [
    pytest.param({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "Bad_Name"},
                  "spec": {"containers": [CONTAINER]}}, "metadata.name", "RFC 1123 subdomain", id="bad-name"),
    pytest.param({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"},
                  "spec": {"replicas": -1, "selector": {"matchLabels": {"app": "x"}}, "template": TEMPLATE}},
                 "spec.replicas", "must be greater than or equal to 0", id="negative-replicas"),
    pytest.param({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                  "spec": {"restartPolicy": "Sometimes", "containers": [CONTAINER]}},
                 "spec.restartPolicy", 'Unsupported value: "Sometimes"', id="unknown-restart-policy"),
    pytest.param({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}},
                 "spec.containers", "Required value", id="no-containers"),
    pytest.param({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                  "spec": {"containers": [{"name": "app", "image": "x", "resources": {"requests": {"cpu": "lots"}}}]}},
                 "spec.containers[0].resources.requests[cpu]", "quantities must match", id="bad-quantity"),
    pytest.param({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                  "spec": {"selector": {"matchLabels": {"app": "y"}}, "template": TEMPLATE}},
                 "spec.template.metadata.labels", "does not match", id="selector-mismatch"),
])
def test_invalid_objects_get_422_with_the_field_path(cluster, obj, field, fragment):
    with pytest.raises(StatusError) as err:
        cluster.create(obj)
    status = err.value
    assert (status.reason, status.code) == ("Invalid", 422)
    causes = {c.field: c.message for c in status.causes}
    assert field in causes, causes
    assert fragment in causes[field]
    with pytest.raises(StatusError) as missing:
        cluster.get(obj["kind"], obj["metadata"]["name"])
    assert missing.value.reason == "NotFound"


def test_unknown_kind_is_not_found(cluster):
    with pytest.raises(StatusError) as err:
        cluster.request("create", "Gadget", namespace=cluster.namespace,
                        obj={"kind": "Gadget", "metadata": {"name": "g"}})
    assert err.value.reason == "NotFound" and "Gadget" in err.value.message


def test_unknown_fields_that_kubernetes_accepts_are_kept(cluster):
    cluster.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "builder"}})
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "keeps"},
           "spec": {"serviceAccountName": "builder", "volumes": [{"name": "v", "emptyDir": {}}],
                    "containers": [{**CONTAINER, "securityContext": {"runAsUser": 1000},
                                    "volumeMounts": [{"name": "v", "mountPath": "/data"}]}]}}
    stored = cluster.create(obj)
    assert stored["spec"]["serviceAccountName"] == "builder"
    assert stored["spec"]["containers"][0]["volumeMounts"] == [{"name": "v", "mountPath": "/data"}]
    assert stored["spec"]["restartPolicy"] == "Always"  # and defaults applied


def test_the_docs_malformed_node_affinity_is_refused_as_kubernetes_words_it(cluster):
    """The documentation's pod-with-node-affinity with `preference` written as a list (kubernetes/website#35771):
    422 naming the field as Kubernetes writes it, the value as JSON, Kubernetes' type word; no pydantic, no repr."""
    preference = [{"matchExpressions": [{"key": "another-node-label-key", "operator": "In",
                                         "values": ["another-node-label-value"]}]}]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "with-node-affinity"}, "spec": {
        "affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In",
                 "values": ["antarctica-east1", "antarctica-west1"]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": preference}]}},
        "containers": [{"name": "with-node-affinity", "image": "registry.k8s.io/pause:2.0"}]}}
    with pytest.raises(StatusError) as err:
        cluster.create(pod)
    field = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference"
    body = ('Invalid value: [{"matchExpressions":[{"key":"another-node-label-key","operator":"In",'
            '"values":["another-node-label-value"]}]}]: must be of type object')
    assert (err.value.reason, err.value.code) == ("Invalid", 422)
    assert err.value.message == f'Pod "with-node-affinity" is invalid: {field}: {body}'
    assert [(c.field, c.message, c.reason) for c in err.value.causes] == [(field, body, "FieldValueTypeInvalid")]
    with pytest.raises(StatusError) as missing:
        cluster.get("Pod", "with-node-affinity")
    assert missing.value.reason == "NotFound"
