"""Ingress and IngressClass admission in Kubernetes' words, and the default class's choice (pure)."""
from __future__ import annotations

import pytest

from api.admission import admit
from api.ingress_validation import default_class
from api.status import StatusError


def ingress(rules=None, **spec) -> dict:
    if rules is not None:
        spec["rules"] = rules
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "shop", "namespace": "default"},
            "spec": spec}


def rule(path="/api", path_type="Prefix", host="shop.example", **backend) -> dict:
    backend = backend or {"service": {"name": "web", "port": {"number": 80}}}
    item = {"path": path, "backend": backend}
    if path_type:
        item["pathType"] = path_type
    return {"host": host, "http": {"paths": [item]}}


def causes_of(obj: dict) -> list[str]:
    with pytest.raises(StatusError) as err:
        admit(obj["kind"], obj)
    return [f"{c.field}: {c.message}" for c in err.value.causes]


@pytest.mark.parametrize("obj, expected", [
    pytest.param(ingress(), ["spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"],
                 id="empty"),
    pytest.param(ingress([rule(path_type=None)]),
                 ["spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"], id="no-type"),
    pytest.param(ingress([rule(path="api")]),
                 ['spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path'], id="relative"),
    pytest.param(ingress([rule(path="/a//b")]),
                 ["spec.rules[0].http.paths[0].path: Invalid value: \"/a//b\": must not contain '//'"], id="double"),
    pytest.param(ingress([rule(host="10.0.0.1")]),
                 ['spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address'], id="ip"),
    pytest.param(ingress([rule(service={"name": "web", "port": {"name": "http", "number": 80}})]),
                 ['spec.rules[0].http.paths[0].backend.service.port: Invalid value: "": cannot set both port name '
                  '& port number'], id="both-ports"),
    pytest.param(ingress([{"host": "a.example", "http": {"paths": []}}]),
                 ["spec.rules[0].http.paths: Required value"], id="no-paths"),
    pytest.param({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": {"name": "kubus"},
                  "spec": {"controller": "kubus"}},
                 ['spec.controller: Invalid value: "kubus": must be a domain-prefixed path (such as "acme.io/foo")'],
                 id="class-controller"),
])
def test_validation_speaks_kubernetes(obj, expected):
    assert causes_of(obj) == expected


def test_a_wildcard_host_and_a_default_backend_are_fine():
    assert admit("Ingress", ingress([rule(host="*.shop.example")],
                                     defaultBackend={"service": {"name": "web", "port": {"number": 80}}}))


def test_the_newest_default_class_wins():
    def cls(name, stamp, default=True):
        annotations = {"ingressclass.kubernetes.io/is-default-class": "true"} if default else {}
        return {"metadata": {"name": name, "creationTimestamp": stamp, "annotations": annotations}}
    assert default_class([cls("old", "2026-01-01T00:00:00Z"), cls("new", "2026-02-01T00:00:00Z"),
                          cls("plain", "2026-03-01T00:00:00Z", default=False)]) == "new"
    assert default_class([cls("b", "2026-01-01T00:00:00Z"), cls("a", "2026-01-01T00:00:00Z")]) == "a"
    assert default_class([cls("plain", "2026-03-01T00:00:00Z", default=False)]) is None
