import pytest

from api import policy_validation as policy


def messages(causes):
    return [f"{c.field}: {c.message}" for c in causes]


@pytest.mark.parametrize("obj,expected", [
    pytest.param({"metadata": {"name": "high"}, "value": 1000}, [], id="user-class"),
    pytest.param({"metadata": {"name": "huge"}, "value": 1000000001},
                 ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"], id="too-high"),
    pytest.param({"metadata": {"name": "system-mine"}, "value": 5},
                 ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use "
                  "only. error: system-mine is not a known system priority class"], id="reserved-prefix"),
    pytest.param({"metadata": {"name": "system-node-critical"}, "value": 2000001000}, [], id="builtin"),
    pytest.param({"metadata": {"name": "system-node-critical"}, "value": 1},
                 ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use "
                  "only. error: value of system-node-critical PriorityClass must be 2000001000"], id="builtin-value"),
    pytest.param({"metadata": {"name": "x"}, "value": 1, "preemptionPolicy": "Sometimes"},
                 ['preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", '
                  '"Never"'], id="policy"),
])
def test_priority_class(obj, expected):
    assert messages(policy.validate_priority_class(obj)) == expected


def test_priority_class_value_is_immutable():
    assert messages(policy.validate_priority_class_update({"value": 2}, {"value": 1})) == [
        "value: Forbidden: may not be changed in an update."]


def lr(*items):
    return {"metadata": {"name": "l"}, "spec": {"limits": list(items)}}


@pytest.mark.parametrize("obj,expected", [
    pytest.param(lr({"type": "Container", "min": {"cpu": "100m"}, "max": {"cpu": "1"}, "default": {"cpu": "500m"},
                     "defaultRequest": {"cpu": "200m"}}), [], id="ordered"),
    pytest.param(lr({"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}}),
                 ['spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
                  'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default '
                  'request value 1',
                  'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1'],
                 id="min-over-max-with-defaults-from-max"),
    pytest.param(lr({"type": "Container", "default": {"memory": "1Gi"}, "defaultRequest": {"memory": "2Gi"}}),
                 ['spec.limits[0].defaultRequest[memory]: Invalid value: "2Gi": default request value 2Gi is greater '
                  'than default limit value 1Gi'], id="request-over-default"),
    pytest.param(lr({"type": "Pod", "default": {"cpu": "1"}}),
                 ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"], id="pod-default"),
    pytest.param(lr({"type": "Node"}), ['spec.limits[0].type: Invalid value: "Node": must be a standard limit type '
                                        'or fully qualified'], id="type"),
    pytest.param(lr({"type": "Pod"}, {"type": "Pod"}), ['spec.limits[1].type: Duplicate value: "Pod"'], id="dup"),
    pytest.param(lr({"type": "Container", "maxLimitRequestRatio": {"cpu": "0.5"}}),
                 ['spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1'],
                 id="ratio-below-one"),
    pytest.param(lr({"type": "PersistentVolumeClaim"}),
                 ["spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but "
                  "neither was provided"], id="claim-needs-storage"),
    pytest.param(lr({"type": "Container", "max": {"cpu": "lots"}}),
                 ["spec.limits[0].max[cpu]: Invalid value: \"lots\": quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"], id="bad-quantity"),
])
def test_limit_range(obj, expected):
    assert messages(policy.validate_limit_range(obj)) == expected


def rq(hard, **spec):
    return {"metadata": {"name": "q"}, "spec": {"hard": hard, **spec}}


@pytest.mark.parametrize("obj,expected", [
    pytest.param(rq({"pods": "10", "requests.cpu": "2", "count/deployments.apps": "3"}), [], id="valid"),
    pytest.param(rq({"pods": "1.5"}), ['spec.hard[pods]: Invalid value: "1500m": must be an integer'], id="integer"),
    pytest.param(rq({"cpu": "-1"}), ['spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0'],
                 id="negative"),
    pytest.param(rq({"gpus": "1"}), ['spec.hard[gpus]: Invalid value: "gpus": must be a standard resource type or '
                                     'fully qualified'], id="unknown-resource"),
    pytest.param(rq({"storage": "1"}), ['spec.hard[storage]: Invalid value: "storage": must be a standard resource '
                                        'for quota'], id="not-for-quota"),
    pytest.param(rq({"pods": "1"}, scopes=["Sometimes"]),
                 ['spec.scopes: Invalid value: ["Sometimes"]: unsupported scope'], id="scope"),
    pytest.param(rq({"cpu": "1"}, scopes=["BestEffort"]),
                 ['spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource'],
                 id="best-effort-compute"),
    pytest.param(rq({"pods": "1"}, scopes=["Terminating", "NotTerminating"]),
                 ['spec.scopes: Invalid value: ["Terminating", "NotTerminating"]: conflicting scopes'], id="conflict"),
])
def test_resource_quota(obj, expected):
    assert messages(policy.validate_resource_quota(obj)) == expected
