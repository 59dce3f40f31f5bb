"""Encodings built by hand from the field numbers of k8s.io/api's generated.proto (cited beside each),
so a wrong number in a table fails here: what kubectl >= 1.32 sends decodes to the JSON it would have
sent, and what kubus writes is those bytes."""
from __future__ import annotations

import pytest

from api import protobuf
from api.protobuf.codec import MAGIC
from api.protobuf.wire import field
from api.status import StatusError

GO_ZERO_TIME = field(1, -62135596800)  # Time{seconds=1}: Go's zero time, which kubectl always writes


def envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    """runtime.Unknown{typeMeta=1{apiVersion=1, kind=2}, raw=2, contentEncoding=3, contentType=4}"""
    type_meta = field(1, api_version.encode()) + field(2, kind.encode())
    return MAGIC + field(1, type_meta) + field(2, raw) + field(3, b"") + field(4, b"")


def meta(name: bytes, *more: bytes) -> bytes:
    """ObjectMeta{name=1, namespace=3, creationTimestamp=8, labels=11}: kubectl writes every non-pointer field."""
    return field(1, name) + field(2, b"") + field(3, b"") + field(8, GO_ZERO_TIME) + b"".join(more)


DEPLOYMENT = envelope("apps/v1", "Deployment", field(1, meta(b"web", field(11, field(1, b"app") + field(2, b"web"))))
                      # DeploymentSpec{replicas=1, selector=2{matchLabels=1}, template=3{metadata=1, spec=2}}
                      + field(2, field(1, 0) + field(2, field(1, field(1, b"app") + field(2, b"web")))
                              + field(3, field(1, meta(b"")) + field(2, field(2, field(1, b"nginx") + field(2, b"nginx")
                                                                     + field(13, b"") + field(14, b"")))))
                      + field(3, b""))  # DeploymentStatus, empty
SERVICE_PORT = (field(1, b"80-8080") + field(2, b"TCP") + field(3, 80)  # ServicePort{name=1, protocol=2, port=3,
                + field(4, field(1, 0) + field(2, 8080) + field(3, b"")) + field(5, 0))  # targetPort=4, nodePort=5}
SERVICE = envelope("v1", "Service", field(1, meta(b"api"))  # ServiceSpec{ports=1, type=4}
                   + field(2, field(1, SERVICE_PORT) + field(4, b"NodePort")) + field(3, b""))
RULE = field(1, b"get") + field(2, b"") + field(3, b"pods")  # PolicyRule{verbs=1, apiGroups=2, resources=3}
ROLE = envelope("rbac.authorization.k8s.io/v1", "Role", field(1, meta(b"reader", field(3, b"shop"))) + field(2, RULE))


@pytest.mark.parametrize("raw, expected", [
    pytest.param(DEPLOYMENT, {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "creationTimestamp": None, "labels": {"app": "web"}},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"creationTimestamp": None},
                              "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}},
        "status": {}}, id="kubectl-create-deployment"),
    pytest.param(SERVICE, {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "api", "creationTimestamp": None},
        "spec": {"ports": [{"name": "80-8080", "protocol": "TCP", "port": 80, "targetPort": 8080}],
                 "type": "NodePort"}, "status": {}}, id="kubectl-create-service-nodeport"),  # nodePort 0: omitempty
    pytest.param(ROLE, {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "reader", "namespace": "shop", "creationTimestamp": None},
        "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]}, id="kubectl-create-role"),
    pytest.param(envelope("v1", "DeleteOptions", field(1, 0) + field(2, field(1, b"uid-1")) + field(4, b"Background")
                          + field(5, b"All")), {
        "apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0, "preconditions": {"uid": "uid-1"},
        "propagationPolicy": "Background", "dryRun": ["All"]}, id="kubectl-delete"),
    pytest.param(envelope("v1", "DeleteOptions", field(1, -1)), {  # a negative int64: ten bytes, no zigzag
        "apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": -1}, id="negative-grace"),
    pytest.param(envelope("policy/v1", "Eviction", field(1, field(1, b"web-1") + field(3, b"shop"))
                          + field(2, field(1, 30) + field(5, b"All"))), {
        "apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web-1", "namespace": "shop"},
        "deleteOptions": {"gracePeriodSeconds": 30, "dryRun": ["All"]}}, id="kubectl-drain"),
    pytest.param(envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview",  # spec=2{resourceAttributes=1}
                          field(2, field(1, field(1, b"shop") + field(2, b"create") + field(5, b"pods")))), {
        "apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"namespace": "shop", "verb": "create", "resource": "pods"}}},
        id="kubectl-auth-can-i"),
])
def test_kubectl_bodies_decode_to_their_json(raw, expected):
    assert protobuf.decode_object(raw) == expected


@pytest.mark.parametrize("obj, raw", [
    pytest.param({"apiVersion": "v1", "kind": "Namespace",
                  "metadata": {"name": "shop", "labels": {"b": "2", "a": "1"}}},
                 envelope("v1", "Namespace", field(1, field(1, b"shop") + field(11, field(1, b"a") + field(2, b"1"))
                                                   + field(11, field(1, b"b") + field(2, b"2")))),
                 id="map-entries-sorted-by-key"),
    pytest.param({"apiVersion": "v1", "kind": "Pod", "metadata": {"creationTimestamp": "2024-01-02T03:04:05Z"},
                  "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "500m"}}}]}},
                 envelope("v1", "Pod", field(1, field(8, field(1, 1704164645)))  # ResourceRequirements{limits=1}
                          + field(2, field(2, field(1, b"c") + field(8, field(1, field(1, b"cpu")
                                                                                + field(2, field(1, b"500m"))))))),
                 id="time-and-quantity"),
    pytest.param({"apiVersion": "v1", "kind": "Service", "spec": {"ports": [{"port": 80, "targetPort": "http"}]}},
                 envelope("v1", "Service", field(2, field(1, field(3, 80) + field(4, field(1, 1) + field(2, 0)
                                                                                     + field(3, b"http"))))),
                 id="int-or-string-as-string"),
    pytest.param({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                  "spec": {"renewTime": "2024-01-02T03:04:05.250000Z"}},  # LeaseSpec{renewTime=4 MicroTime}
                 envelope("coordination.k8s.io/v1", "Lease", field(2, field(4, field(1, 1704164645)
                                                                           + field(2, 250_000_000)))),
                 id="micro-time"),
    pytest.param({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "NotFound",
                  "code": 404},  # Status{metadata=1, status=2, reason=4, code=6}
                 envelope("v1", "Status", field(1, b"") + field(2, b"Failure") + field(4, b"NotFound") + field(6, 404)),
                 id="status"),
])
def test_kubus_writes_the_bytes_kubernetes_reads(obj, raw):
    assert protobuf.encode_object(obj) == raw
    assert protobuf.decode_object(raw) == obj


def test_a_watch_frame_is_a_length_and_a_bare_watch_event():
    obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
    frame = protobuf.watch_frame("ADDED", obj)
    event = field(1, b"ADDED") + field(2, field(1, protobuf.encode_object(obj)))  # WatchEvent{type=1, object=2{raw=1}}
    assert frame == len(event).to_bytes(4, "big") + event
    assert protobuf.read_frames(frame * 2) == [{"type": "ADDED", "object": obj}] * 2


@pytest.mark.parametrize("raw, reason, words", [
    pytest.param(envelope("v1", "ComponentStatus", b""), "UnsupportedMediaType", "the body of a ComponentStatus as "
                 "application/vnd.kubernetes.protobuf is not supported: send JSON", id="a-kind-kubus-does-not-serve"),
    pytest.param(b"not protobuf", "BadRequest", "must start with the k8s envelope", id="no-envelope"),
    pytest.param(MAGIC + b"\x0a\xff", "BadRequest", "truncated", id="a-length-past-the-end"),
    pytest.param(envelope("v1", "Namespace", field(1, b"\x08")), "BadRequest", "truncated", id="a-cut-message"),
    pytest.param(envelope("v1", "Namespace", field(1, field(1, 5))), "BadRequest", "sent as a number",
                 id="a-string-sent-as-a-number"),
    pytest.param(MAGIC + field(1, field(1, b"v1") + field(2, b"Namespace")) + field(3, b"gzip"), "BadRequest",
                 "content encoding", id="an-encoded-body"),
])
def test_what_cannot_be_read_is_refused_clearly(raw, reason, words):
    with pytest.raises(StatusError) as refused:
        protobuf.decode_object(raw)
    assert refused.value.reason == reason and words in refused.value.message
