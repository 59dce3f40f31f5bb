"""Which pod spec updates Kubernetes allows (ValidatePodUpdate)."""
from __future__ import annotations

import copy

import pytest

from api.updates import pod_spec_update

OLD = {"containers": [{"name": "app", "image": "nginx:1.25", "command": ["nginx"]}],
       "initContainers": [{"name": "init", "image": "busybox:1.36"}],
       "tolerations": [{"key": "a", "operator": "Exists"}], "nodeName": "node-1",
       "activeDeadlineSeconds": 60, "terminationGracePeriodSeconds": -1}


def changed(**edits) -> dict:
    spec = copy.deepcopy(OLD)
    for path, value in edits.items():
        target, *keys = path.split("__")
        holder = spec
        for key in [target, *keys][:-1]:
            holder = holder[int(key)] if key.isdigit() else holder[key]
        last = [target, *keys][-1]
        holder[int(last) if last.isdigit() else last] = value
    return spec


@pytest.mark.parametrize("edits", [
    {"containers__0__image": "nginx:1.27"},
    {"initContainers__0__image": "busybox:1.37"},
    {"tolerations": OLD["tolerations"] + [{"key": "b", "operator": "Exists", "effect": "NoExecute"}]},
    {"activeDeadlineSeconds": 30},
    {"terminationGracePeriodSeconds": 1},
    {},
])
def test_allowed(edits):
    assert pod_spec_update(OLD, changed(**edits)) == []


@pytest.mark.parametrize("edits, field, words", [
    ({"nodeName": "node-2"}, "spec", "changed: spec.nodeName"),
    ({"containers__0__command": ["sh"]}, "spec", "changed: spec.containers"),
    ({"tolerations": []}, "spec.tolerations", "existing toleration can not be modified"),
    ({"activeDeadlineSeconds": 90}, "spec.activeDeadlineSeconds", "must be less than or equal to the previous value 60"),
    ({"terminationGracePeriodSeconds": 5}, "spec", "changed: spec.terminationGracePeriodSeconds"),
])
def test_forbidden(edits, field, words):
    causes = pod_spec_update(OLD, changed(**edits))
    assert [c.field for c in causes] == [field]
    assert words in causes[0].message


class _Counted(dict):
    """A toleration that counts how often it is compared whole."""
    compared = 0

    def __eq__(self, other):
        _Counted.compared += 1
        return dict.__eq__(self, other)

    __hash__ = None


def test_an_update_keeping_thousands_of_tolerations_compares_each_a_bounded_number_of_times():
    """12,000 tolerations cost 1.4 s of the apiserver's mailbox an update when each old one was looked
    for in the new list by a scan; now each is hashed once."""
    n = 3000
    old = [_Counted(key=f"k{i}", operator="Exists", effect="NoSchedule") for i in range(n)]
    new = [_Counted(t) for t in reversed(old)] + [_Counted(key="extra", operator="Exists")]
    _Counted.compared = 0
    assert pod_spec_update({"tolerations": old}, {"tolerations": new}) == []
    assert _Counted.compared <= 2 * n
