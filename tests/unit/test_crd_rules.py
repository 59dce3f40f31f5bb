"""x-kubernetes-validations: compiled at CRD write with Kubernetes' messages, run on custom objects."""
from __future__ import annotations

import pytest

from api.crdschema import rules


def schema(*validations: dict) -> dict:
    return {"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-validations": list(validations),
        "properties": {"replicas": {"type": "integer"}, "limit": {"type": "integer"},
                       "name": {"type": "string"}}}}}


@pytest.mark.parametrize("rule,detail", [
    pytest.param({"rule": ""}, "rule: Required value: rule is not specified", id="empty"),
    pytest.param({"rule": "self.nope > 1"}, "compilation failed: ERROR: <input>:1:5: undefined field 'nope'",
                 id="undefined-field"),
    pytest.param({"rule": "self.replicas"}, None, id="dyn-result-passes"),
    pytest.param({"rule": "'text'"}, "compilation failed: cel expression must evaluate to a bool", id="not-bool"),
    pytest.param({"rule": "self.replicas > 1", "optionalOldSelf": True},
                 "optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule", id="optional"),
    pytest.param({"rule": "self.replicas > 1", "reason": "Odd"}, 'reason: Unsupported value: "Odd"', id="reason"),
    pytest.param({"rule": "self.replicas >\n 1"}, "message must be specified if rule contains line breaks",
                 id="line-breaks"),
])
def test_rules_at_crd_write(rule, detail):
    found = [f"{c.field}: {c.message}" for c in rules.rule_causes(schema(rule), "s")]
    if detail is None:
        assert found == []
    else:
        assert found and found[0].startswith("s.properties[spec].x-kubernetes-validations[0].") and detail in found[0]


@pytest.mark.parametrize("rule,obj,old,want", [
    pytest.param({"rule": "self.replicas <= self.limit", "message": "over"}, {"replicas": 5, "limit": 3}, None,
                 'spec: Invalid value: "object": over', id="message"),
    pytest.param({"rule": "self.replicas <= self.limit"}, {"replicas": 5, "limit": 3}, None,
                 'spec: Invalid value: "object": failed rule: self.replicas <= self.limit', id="failed-rule"),
    pytest.param({"rule": "self.replicas <= 3", "messageExpression": "'have ' + string(self.replicas)",
                  "fieldPath": ".replicas", "reason": "FieldValueForbidden"}, {"replicas": 5}, None,
                 "spec.replicas: Forbidden: have 5", id="messageExpression-fieldPath-reason"),
    pytest.param({"rule": "self.replicas >= oldSelf.replicas", "message": "no scaling down"}, {"replicas": 1},
                 None, None, id="transition-skipped-on-create"),
    pytest.param({"rule": "self.replicas >= oldSelf.replicas", "message": "no scaling down"}, {"replicas": 1},
                 {"spec": {"replicas": 2}}, 'spec: Invalid value: "object": no scaling down', id="transition"),
    pytest.param({"rule": "self.limit > 0"}, {"replicas": 1}, None,
                 'spec: Invalid value: "object": no such key: limit evaluating rule: self.limit > 0',
                 id="runtime-error"),
])
def test_rules_on_objects(rule, obj, old, want):
    found = [f"{c.field}: {c.message}" for c in rules.object_causes({"spec": obj}, old, schema(rule))]
    assert found == ([want] if want else [])
