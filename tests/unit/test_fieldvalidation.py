"""fieldValidation: Kubernetes' unknown and duplicate fields, in the body's order, against k8s.io/api's
types (not kubus's subset of them), and what each mode does with them."""
from __future__ import annotations

import pytest

from api.fieldvalidation import checked, loads_pairs, mode_of, plain, problems
from api.status import StatusError

DEPLOYMENT = b"""{"apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "x", "name": "y", "labelz": {}, "labels": {"a": "1", "a": "2"}},
  "spec": {"$retainKeys": [], "paused": true, "paused": false, "template": {"spec": {
    "containers": [{"name": "a", "imagePullPolice": "x", "env": [{"name": "e", "valu": "1"}]}]}}}}"""


@pytest.mark.parametrize("kind, body, expected", [
    ("Deployment", loads_pairs(DEPLOYMENT), [
        'duplicate field "metadata.name"', 'unknown field "metadata.labelz"', 'duplicate field "metadata.labels.a"',
        'duplicate field "spec.paused"', 'unknown field "spec.template.spec.containers[0].imagePullPolice"',
        'unknown field "spec.template.spec.containers[0].env[0].valu"']),
    # fields Kubernetes has and kubus does not model are no problem
    ("Pod", {"spec": {"containers": [{"name": "c", "resizePolicy": [{"resourceName": "cpu"}]}],
                      "os": {"name": "linux"}, "hostUsers": False}}, []),
    ("Pod", {"spec": {"overhead": {"cpu": "1"}, "containers": [{"name": "c", "ports": [{"containerPort": 1, "x": 2}]}]}},
     ['unknown field "spec.containers[0].ports[0].x"']),
    ("ConfigMapLikeUnknownKind", {"anything": 1}, []),
    ("Service", {"spec": {"selector": {"app": "x"}, "ports": [{"port": 80}]}, "specs": {}}, ['unknown field "specs"']),
])
def test_problems_in_order(kind, body, expected):
    assert problems(kind, body) == expected


def test_plain_keeps_the_last_of_a_duplicate():
    assert plain(loads_pairs(b'{"a": 1, "a": {"b": [{"c": 1, "c": 2}]}}')) == {"a": {"b": [{"c": 2}]}}


@pytest.mark.parametrize("mode, outcome", [
    ("Ignore", []),
    ("Warn", ['unknown field "spec.foo"', 'unknown field "spec.bar"']),
    ("Strict", 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.foo", '
               'unknown field "spec.bar"'),
])
def test_each_mode(mode, outcome):
    body = {"spec": {"foo": 1, "containers": [], "bar": 2}}
    if isinstance(outcome, list):
        assert checked("Pod", body, mode) == outcome
    else:
        with pytest.raises(StatusError) as err:
            checked("Pod", body, mode, 'Pod in version "v1" cannot be handled as a Pod: ')
        assert (err.value.code, err.value.message) == (400, outcome)


@pytest.mark.parametrize("text, mode", [(None, "Warn"), ("", "Warn"), ("Strict", "Strict"), ("Ignore", "Ignore")])
def test_the_mode_asked(text, mode):
    assert mode_of(text) == mode


def test_a_mode_kubernetes_does_not_know_is_refused():
    with pytest.raises(StatusError) as err:
        mode_of("strict")
    assert err.value.message == 'fieldValidation: Unsupported value: "strict": supported values: "Ignore", "Strict", "Warn"'
