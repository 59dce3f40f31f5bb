"""The ConfigMaps and Secrets a pod references: the node authorizer's pod -> object edges."""
from __future__ import annotations

import pytest

from api.podrefs import pod_refs


def pod(**spec) -> dict:
    return {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}], **spec}}


@pytest.mark.parametrize("spec, refs", [
    pytest.param({}, set(), id="none"),
    pytest.param({"containers": [{"name": "c", "env": [
        {"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}},
        {"name": "B", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
        {"name": "C", "value": "x"}]}]},
        {("ConfigMap", "cm"), ("Secret", "s")}, id="env"),
    pytest.param({"initContainers": [{"name": "i", "envFrom": [{"configMapRef": {"name": "cm"}},
                                                                {"secretRef": {"name": "s"}}]}]},
                 {("ConfigMap", "cm"), ("Secret", "s")}, id="init-envFrom"),
    pytest.param({"volumes": [{"name": "a", "configMap": {"name": "cm"}}, {"name": "b", "secret": {"secretName": "s"}},
                              {"name": "c", "projected": {"sources": [{"configMap": {"name": "pcm"}},
                                                                      {"secret": {"name": "ps"}},
                                                                      {"downwardAPI": {"items": []}}]}},
                              {"name": "d", "emptyDir": {}}]},
                 {("ConfigMap", "cm"), ("Secret", "s"), ("ConfigMap", "pcm"), ("Secret", "ps")}, id="volumes"),
    pytest.param({"imagePullSecrets": [{"name": "reg"}]}, {("Secret", "reg")}, id="pull-secrets"),
])
def test_pod_refs(spec, refs):
    assert pod_refs(pod(**spec)) == refs
