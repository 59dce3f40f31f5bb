import pytest

from actors.apiserver.admission import noderestriction as nr
from api.status import StatusError

NODE = {"metadata": {"name": "n1", "uid": "u1"}}
OWNER = {"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": "u1", "controller": True}


def mirror(owners=(OWNER,), annotations=None, **spec):
    return {"metadata": {"name": "m", "namespace": "ns", "ownerReferences": list(owners),
                         "annotations": {"kubernetes.io/config.mirror": "x"} if annotations is None else annotations},
            "spec": {"nodeName": "n1", "containers": [{"name": "c"}], **spec}}


def node(labels=None, taints=None):
    return {"metadata": {"name": "n1", "labels": labels or {}}, "spec": {"taints": taints or []}}


def test_own_mirror_pod_is_allowed():
    assert nr.admit("n1", "create", "Pod", None, mirror(), None, NODE) is None


@pytest.mark.parametrize("verb,sub,obj,old,message", [
    pytest.param("create", None, mirror(annotations={}), None,
                 'pods "m" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can '
                 'only create mirror pods', id="not-mirror"),
    pytest.param("create", None, mirror(nodeName="n2"), None,
                 'pods "m" is forbidden: node "n1" can only create pods with spec.nodeName set to itself',
                 id="other-node"),
    pytest.param("create", None, mirror(owners=()), None,
                 'pods "m" is forbidden: node "n1" can only create pods with an owner reference set to itself',
                 id="no-owner"),
    pytest.param("create", None, mirror(owners=(OWNER, OWNER)), None,
                 'pods "m" is forbidden: node "n1" can only create pods with a single owner reference set to itself',
                 id="two-owners"),
    pytest.param("create", None, mirror(owners=({**OWNER, "controller": False},)), None,
                 'pods "m" is forbidden: node "n1" can only create pods with a controller owner reference set to '
                 'itself', id="not-controller"),
    pytest.param("create", None, mirror(owners=({**OWNER, "blockOwnerDeletion": True},)), None,
                 'pods "m" is forbidden: node "n1" must not set blockOwnerDeletion on an owner reference',
                 id="block-owner-deletion"),
    pytest.param("create", None, mirror(owners=({**OWNER, "uid": "u2"},)), None,
                 'pods "m" is forbidden: node n1 UID mismatch: expected u2 got u1', id="uid-mismatch"),
    pytest.param("create", None, mirror(volumes=[{"name": "v", "configMap": {"name": "c"}}]), None,
                 'pods "m" is forbidden: node "n1" can not create pods that reference configmaps', id="configmap"),
    pytest.param("create", None, mirror(volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}]), None,
                 'pods "m" is forbidden: node "n1" can not create pods that reference persistentvolumeclaims',
                 id="claim"),
    pytest.param("update", None, mirror(), mirror(), 'pods "m" is forbidden: unexpected operation "UPDATE", node "n1" '
                 'can only create and delete mirror pods', id="update"),
    pytest.param("update", "exec", mirror(), mirror(), 'pods "m" is forbidden: unexpected pod subresource "exec", '
                 "only 'status' and 'eviction' are allowed", id="subresource"),
    pytest.param("update", "status", mirror(), mirror(nodeName="n2"), 'pods "m" is forbidden: node "n1" can only '
                 'update pod status for pods with spec.nodeName set to itself', id="status-other-node"),
])
def test_pods_refused(verb, sub, obj, old, message):
    with pytest.raises(StatusError) as err:
        nr.admit("n1", verb, "Pod", sub, obj, old, NODE)
    assert err.value.message == message


def test_status_may_not_change_labels():
    new = mirror()
    new["metadata"]["labels"] = {"a": "b"}
    with pytest.raises(StatusError, match='node "n1" cannot update labels through pod status'):
        nr.admit("n1", "update", "Pod", "status", new, mirror())
    assert nr.admit("n1", "update", "Pod", "status", mirror(), mirror()) is None


@pytest.mark.parametrize("verb,obj,old,message", [
    pytest.param("update", {"metadata": {"name": "n2"}}, {"metadata": {"name": "n2"}},
                 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"', id="other-node"),
    pytest.param("create", node({"node-role.kubernetes.io/master": "", "kubernetes.io/hostname": "n1"}), None,
                 'nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: '
                 'node-role.kubernetes.io/master', id="create-forbidden-label"),
    pytest.param("update", node(taints=[]), node(taints=[{"key": "k", "effect": "NoSchedule"}]),
                 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints', id="taints"),
    pytest.param("update", node({"node-restriction.kubernetes.io/a": "1", "b.k8s.io/x": "1"}), node(),
                 'nodes "n1" is forbidden: is not allowed to modify labels: b.k8s.io/x, '
                 'node-restriction.kubernetes.io/a', id="update-forbidden-labels"),
])
def test_nodes_refused(verb, obj, old, message):
    with pytest.raises(StatusError) as err:
        nr.admit("n1", verb, "Node", None, obj, old)
    assert err.value.message == message


def test_kubelet_labels_are_allowed():
    labels = {"kubernetes.io/arch": "amd64", "node.kubernetes.io/exclude": "", "x.kubelet.kubernetes.io/y": "",
              "example.com/team": "a"}
    assert nr.admit("n1", "update", "Node", None, node(labels), node()) is None


@pytest.mark.parametrize("namespace,name,message", [
    pytest.param("default", "n1", 'leases.coordination.k8s.io "n1" is forbidden: can only access leases in the '
                 '"kube-node-lease" system namespace', id="namespace"),
    pytest.param("kube-node-lease", "n2", 'leases.coordination.k8s.io "n2" is forbidden: can only access node lease '
                 'with the same name as the requesting node', id="name"),
])
def test_leases(namespace, name, message):
    lease = {"metadata": {"name": name, "namespace": namespace}}
    with pytest.raises(StatusError) as err:
        nr.admit("n1", "update", "Lease", None, lease, lease)
    assert err.value.message == message
    assert nr.admit("n1", "create", "Lease", None, {"metadata": {"name": "n1", "namespace": "kube-node-lease"}},
                    None) is None


@pytest.mark.parametrize("kind, verb, namespace, name, obj, message", [
    pytest.param("Node", "update", None, "n2", node(), 'nodes "n1" is forbidden: node "n1" is not allowed to modify '
                 'node "n2"', id="node-requested-another"),
    pytest.param("Node", "update", None, "n1", {"metadata": {"name": "n2"}}, 'nodes "n2" is forbidden: node "n1" '
                 'is not allowed to modify node "n2"', id="node-object-names-another"),
    pytest.param("Lease", "update", "kube-node-lease", "n1",
                 {"metadata": {"name": "n2", "namespace": "kube-node-lease"}},
                 'leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the '
                 'requesting node', id="lease-object-names-another"),
    pytest.param("Lease", "update", "default", "n1", {"metadata": {"name": "n1", "namespace": "kube-node-lease"}},
                 'leases.coordination.k8s.io "n1" is forbidden: can only access leases in the "kube-node-lease" '
                 'system namespace', id="lease-requested-elsewhere"),
])
def test_the_request_and_its_object_must_both_be_the_nodes_own(kind, verb, namespace, name, obj, message):
    """A node's rights are checked on what the request names and on the object it carries."""
    with pytest.raises(StatusError) as err:
        nr.admit("n1", verb, kind, None, obj, obj, namespace=namespace, name=name)
    assert err.value.message == message
