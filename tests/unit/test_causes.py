"""Every pydantic error a kubus model can raise reads as Kubernetes' field error, never as Python."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from api import causes
from api.admission import admit
from api.registry import lookup
from api.status import StatusError
from bus.messages import parse_request

CONTAINER = {"name": "c", "image": "registry.k8s.io/pause:3.8"}
PREFERENCE = [{"matchExpressions": [{"key": "another-node-label-key", "operator": "In",
                                      "values": ["another-node-label-value"]}]}]
PREFERENCE_JSON = ('[{"matchExpressions":[{"key":"another-node-label-key","operator":"In",'
                   '"values":["another-node-label-value"]}]}]')


def pod(meta=None, container=None, **spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **(meta or {})},
            "spec": {"containers": [{**CONTAINER, **(container or {})}], **spec}}


def obj(kind, **fields):
    info = lookup(kind)
    return {"apiVersion": info.api_version, "kind": kind, "metadata": {"name": "x"}, **fields}


def row(manifest, cause, id, needs_model=False):
    return pytest.param(manifest, cause, id=id)


ROWS = [
    row(pod(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": PREFERENCE}]}}),
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference: "
        f"Invalid value: {PREFERENCE_JSON}: must be of type object", "model_type-docs-node-affinity"),
    row(pod(nodeSelector=["ssd"]), 'spec.nodeSelector: Invalid value: ["ssd"]: must be of type object', "dict_type"),
    row(pod(containers={"name": "c", "image": "x"}),
        'spec.containers: Invalid value: {"image":"x","name":"c"}: must be of type array', "list_type-keys-sorted"),
    row(pod(container={"image": 5}), "spec.containers[0].image: Invalid value: 5: must be of type string",
        "string_type"),
    row(pod(container={"command": "é<>&"}), 'spec.containers[0].command: Invalid value: "é<>&": must be of type array',
        "string-quoted-as-go"),
    row(pod(nodeSelector={"disk": True}), "spec.nodeSelector[disk]: Invalid value: true: must be of type string",
        "string_type-map-value", needs_model=True),
    row(pod(meta={"labels": {"app": None}}), "metadata.labels[app]: Invalid value: null: must be of type string",
        "null-label", needs_model=True),
    row(pod(priority=[1]), "spec.priority: Invalid value: [1]: must be of type integer", "int_type"),
    row(pod(priority="high"), 'spec.priority: Invalid value: "high": must be of type integer', "int_parsing"),
    row(pod(priority=1.5), "spec.priority: Invalid value: 1.5: must be of type integer", "int_from_float"),
    row(obj("PriorityClass", value=1e30), "value: Invalid value: 1e+30: must be of type integer", "int_parsing_size"),
    row(pod(hostNetwork=[True]), "spec.hostNetwork: Invalid value: [true]: must be of type boolean", "bool_type"),
    row(pod(hostNetwork="maybe"), 'spec.hostNetwork: Invalid value: "maybe": must be of type boolean',
        "bool_parsing"),
    row(obj("LimitRange", spec={"limits": [{"type": "Container", "max": {"cpu": [1]}}]}),
        "spec.limits[0].max[cpu]: Invalid value: [1]: must be of type string or number", "float_type-union",
        needs_model=True),
    row(pod(container={"livenessProbe": {"tcpSocket": {"port": [80]}}}),
        "spec.containers[0].livenessProbe.tcpSocket.port: Invalid value: [80]: must be of type int-or-string",
        "int-or-string", needs_model=True),
    row(pod(container={"name": None}), "spec.containers[0].name: Required value", "missing-null"),
    row(pod(containers=[{"image": "x"}]), "spec.containers[0].name: Required value", "missing"),
    row(pod(restartPolicy="Sometimes"),
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
        "literal_error"),
    row(pod(restartPolicy=5), 'spec.restartPolicy: Unsupported value: 5: supported values: "Always", "OnFailure", '
        '"Never"', "literal_error-number"),
    row(pod(container={"ports": [{"containerPort": 0}]}),
        "spec.containers[0].ports[0].containerPort: Invalid value: 0: must be greater than or equal to 1",
        "greater_than_equal"),
    row(pod(container={"ports": [{"containerPort": 70000}]}),
        "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be less than or equal to 65535",
        "less_than_equal"),
    row(pod(priority=float("nan")), "spec.priority: Invalid value: NaN: must be a finite number", "finite_number"),
    row(pod(container={"resources": {"limits": {"cpu": "lots"}}}),
        "spec.containers[0].resources.limits[cpu]: Invalid value: \"lots\": quantities must match the regular "
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", "value_error", needs_model=True),
    row({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": None},
        "spec: Required value", "null-object"),
    row(obj("Role", rules=[{"verbs": "get"}]), 'rules[0].verbs: Invalid value: "get": must be of type array',
        "rbac-list_type"),
    row(obj("Node", spec={"taints": [{"key": "k", "effect": "Bad"}]}),
        'spec.taints[0].effect: Unsupported value: "Bad": supported values: "NoSchedule", "PreferNoSchedule", '
        '"NoExecute"', "node-literal_error"),
]


def _admitted_causes(manifest: dict) -> list[str]:
    with pytest.raises(StatusError) as err:
        admit(manifest["kind"], manifest)
    assert (err.value.reason, err.value.code) == ("Invalid", 422)
    return [f"{c.field}: {c.message}" for c in err.value.causes]


@pytest.mark.parametrize("manifest,cause", ROWS)
def test_admission_refuses_in_kubernetes_words(manifest, cause):
    found = _admitted_causes(manifest)
    assert found == [cause], found


@pytest.mark.parametrize("manifest,cause", [pytest.param(*p.values, id=p.id) for p in ROWS])
def test_the_model_given_every_cause_reads_as_kubernetes(manifest, cause):
    """What admission answers once it hands cause_of its model: map keys as `[key]`, one cause per union."""
    model = lookup(manifest["kind"]).model
    with pytest.raises(ValidationError) as err:
        model.model_validate(manifest)
    found = [f"{c.field}: {c.message}" for c in causes.causes_of(err.value.errors(), model=model)]
    assert found == [cause], found
    assert not any(p in cause for p in ("Input should", "should be", "'preference'", "True", "None"))


REQUESTS = [
    pytest.param({"verb": "get", "kind": "Pod", "name": "n" * 300},
                 "name: Too long: may not be more than 253 characters", id="string_too_long"),
    pytest.param({"verb": "get", "kind": ""}, "kind: Required value", id="string_too_short"),
    pytest.param({"verb": "watch", "kind": "Pod", "options": {"keys": [], "queue": "q"}},
                 "options.keys: Required value", id="too_short"),
    pytest.param({"verb": "watch", "kind": "Pod", "options": {"keys": ["k"] * 1001, "queue": "q"}},
                 "options.keys: Too many: 1001: must have at most 1000 items", id="too_long"),
    pytest.param({"verb": "list", "kind": "Pod", "options": {"limit": 5}},
                 'options.limit: unknown field "options.limit"', id="extra_forbidden"),
    pytest.param({"verb": "logs", "kind": "Pod", "options": {"tail": "5"}},
                 'options.tail: Invalid value: "5": must be of type integer', id="strict-int_type"),
    pytest.param({"verb": "get", "kind": "Pod", "options": [1]}, "options: Invalid value: [1]: must be of type object",
                 id="dict_type"),
    pytest.param({"verb": "bind", "kind": "Pod", "object": {"target": {"name": "n", "kind": "Pod"}}},
                 'object.target.kind: Unsupported value: "Pod": supported values: "Node", ""', id="literal-empty"),
]


@pytest.mark.parametrize("body,cause", REQUESTS)
def test_request_options_are_refused_in_kubernetes_words(body, cause):
    with pytest.raises(StatusError) as err:
        parse_request(body)
    assert [f"{c.field}: {c.message}" for c in err.value.causes] == [cause]


def test_a_validators_words_are_kept_and_a_long_value_is_cut():
    with pytest.raises(StatusError) as err:
        parse_request({"verb": "watch", "kind": "Pod", "options": {"keys": ["k"], "queue": "q" * 300}})
    (cause,) = err.value.causes
    assert cause.message == (f'Invalid value: "{"q" * (causes.MAX_SHOWN - 1)}...: '
                             "must be at most 255 bytes (an AMQP short string)")


@pytest.mark.parametrize("value,shown", [
    pytest.param("a\"b\\\n\x01\x7f\u00a0é", '"a\\"b\\\\\\n\\x01\\x7f\\u00a0é"', id="string-as-go-%q"),
    pytest.param(True, "true", id="bool"), pytest.param(None, "null", id="null"),
    pytest.param(5, "5", id="int"), pytest.param(1.5, "1.5", id="float"),
    pytest.param(100.0, "100", id="whole-float"), pytest.param(1e6, "1e+06", id="float-as-%v"),
    pytest.param(1e-7, "1e-07", id="small-float-as-%v"),
    pytest.param([100.0, 1e-7, 1e21, 1e20], "[100,1e-7,1e+21,100000000000000000000]", id="floats-as-json"),
    pytest.param({"b": ["<&>"], "a": {"é": None}}, '{"a":{"é":null},"b":["\\u003c\\u0026\\u003e"]}', id="json"),
    pytest.param(["x" * 400], '["' + "x" * (causes.MAX_SHOWN - 2) + "...", id="cut"),
])
def test_values_are_shown_as_apimachinery_prints_them(value, shown):
    assert causes.show(value) == shown


@pytest.mark.parametrize("loc,path", [
    pytest.param(("spec", "containers", 0, "ports", 1, "containerPort"), "spec.containers[0].ports[1].containerPort",
                 id="fields-and-indexes"),
    pytest.param(("spec", "limits", 0, "max", "cpu", "float"), "spec.limits[0].max.cpu", id="union-tag-dropped"),
    pytest.param(("spec", "x", "function-after[_short(), str]"), "spec.x", id="validator-tag-dropped"),
])
def test_a_path_without_its_model_drops_pydantics_names(loc, path):
    assert causes.field_path(loc) == path
