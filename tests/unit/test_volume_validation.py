"""A pod's volumes, mounts, env and envFrom refused with Kubernetes' field errors."""
from __future__ import annotations

import pytest

from api.admission import admit
from api.status import StatusError


def pod(volumes: list | None = None, **container) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"volumes": volumes or [], "containers": [{"name": "c", "image": "busybox", **container}]}}


def causes(obj: dict) -> list[tuple[str, str]]:
    with pytest.raises(StatusError) as refused:
        admit("Pod", obj, "default")
    return [(c.field, c.message) for c in refused.value.causes]


CM = {"name": "cfg"}


@pytest.mark.parametrize("obj, expected", [
    pytest.param(pod([{"name": "v", "configMap": CM, "secret": {"secretName": "s"}}]),
                 [("spec.volumes[0].secret", "Forbidden: may not specify more than 1 volume type")], id="two-types"),
    pytest.param(pod([{"name": "v", "emptyDir": {}}, {"name": "v", "emptyDir": {}}]),
                 [("spec.volumes[1].name", 'Duplicate value: "v"')], id="duplicate-name"),
    pytest.param(pod([{"name": "v", "secret": {}}]), [("spec.volumes[0].secret.secretName", "Required value")],
                 id="secret-name"),
    pytest.param(pod([{"name": "v", "configMap": {**CM, "defaultMode": 0o1000}}]),
                 [("spec.volumes[0].configMap.defaultMode",
                   "Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive")], id="mode"),
    pytest.param(pod([{"name": "v", "configMap": {**CM, "items": [{"key": "k", "path": "/abs"},
                                                                 {"key": "k", "path": "a/../b"},
                                                                 {"key": "", "path": "..x"}]}}]),
                 [("spec.volumes[0].configMap.items[0].path", 'Invalid value: "/abs": must be a relative path'),
                  ("spec.volumes[0].configMap.items[1].path", "Invalid value: \"a/../b\": must not contain '..'"),
                  ("spec.volumes[0].configMap.items[2].key", "Required value"),
                  ("spec.volumes[0].configMap.items[2].path", "Invalid value: \"..x\": must not start with '..'")],
                 id="item-paths"),
    pytest.param(pod([{"name": "v", "downwardAPI": {"items": [{"path": "a"}]}}]),
                 [("spec.volumes[0].downwardAPI.items[0]", "Required value: one of fieldRef and resourceFieldRef "
                                                           "is required")], id="downward-no-ref"),
    pytest.param(pod([{"name": "v", "projected": {"sources": [{"configMap": CM, "secret": {"name": "s"}}]}}]),
                 [("spec.volumes[0].projected.sources[0].secret",
                   "Forbidden: may not specify more than 1 volume type per source")], id="projected-two"),
    pytest.param(pod(volumeMounts=[{"name": "nope", "mountPath": "/a"}]),
                 [("spec.containers[0].volumeMounts[0].name", 'Not found: "nope"')], id="mount-unknown"),
    pytest.param(pod([{"name": "v", "emptyDir": {}}], volumeMounts=[
        {"name": "v", "mountPath": "/a"}, {"name": "v", "mountPath": "/a", "subPath": "x", "subPathExpr": "y"}]),
        [("spec.containers[0].volumeMounts[1].mountPath", 'Invalid value: "/a": must be unique'),
         ("spec.containers[0].volumeMounts[1].subPathExpr",
          'Invalid value: "y": subPathExpr and subPath are mutually exclusive')], id="mount-path-and-subpath"),
    pytest.param(pod(env=[{"name": "A", "valueFrom": {}}]),
                 [("spec.containers[0].env[0].valueFrom", 'Invalid value: "": must specify one of: `fieldRef`, '
                   '`resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`')], id="env-no-source"),
    pytest.param(pod(env=[{"name": "A", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"},
                                                                    "secretKeyRef": {"name": "s", "key": "k"}}}]),
                 [("spec.containers[0].env[0].valueFrom",
                   'Invalid value: "": may not have more than one field specified at a time'),
                  ("spec.containers[0].env[0].valueFrom",
                   'Invalid value: "": may not be specified when `value` is not empty')], id="env-two-and-value"),
    pytest.param(pod(envFrom=[{"prefix": "X"}]),
                 [("spec.containers[0].envFrom[0]", 'Invalid value: "": must specify one of: `configMapRef` or '
                                                    '`secretRef`')], id="envfrom-no-ref"),
    pytest.param(pod(["not-an-object"]),
                 [("spec.volumes", "Invalid value: volumes, volumeMounts, env and envFrom must be arrays of objects")],
                 id="not-objects"),
])
def test_refused(obj, expected):
    assert causes(obj) == expected


def test_a_valid_pod_passes():
    admit("Pod", pod([{"name": "v", "configMap": {**CM, "items": [{"key": "k", "path": "a/b", "mode": 0o400}]}},
                      {"name": "d", "downwardAPI": {"items": [{"path": "l", "fieldRef": {"fieldPath": "metadata.labels"}}]}}],
                     volumeMounts=[{"name": "v", "mountPath": "/a", "subPath": "a"}, {"name": "d", "mountPath": "/d"}],
                     env=[{"name": "A", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}],
                     envFrom=[{"configMapRef": CM}]), "default")
