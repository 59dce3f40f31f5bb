import pytest

from actors.apiserver.admission import priority
from api.status import StatusError


def pc(name, value, default=False, policy=None):
    body = {"metadata": {"name": name}, "value": value, "globalDefault": default}
    return {**body, "preemptionPolicy": policy} if policy else body


def pod(**spec):
    return {"metadata": {"name": "p", "namespace": "ns"}, "spec": {"containers": [{"name": "c"}], **spec}}


@pytest.mark.parametrize("classes,p,expected", [
    pytest.param([], pod(), (None, 0, "PreemptLowerPriority"), id="no-default-class"),
    pytest.param([pc("low", 10, True), pc("lower", 5, True)], pod(), ("lower", 5, "PreemptLowerPriority"),
                 id="lowest-default-wins"),
    pytest.param([pc("high", 1000, policy="Never")], pod(priorityClassName="high"), ("high", 1000, "Never"),
                 id="named-class"),
    pytest.param([pc("high", 1000)], pod(priorityClassName="high", priority=1000), ("high", 1000,
                                                                                     "PreemptLowerPriority"),
                 id="same-priority-stated"),
])
def test_admit_pod_resolves(classes, p, expected):
    spec = priority.admit_pod(p, classes)["spec"]
    assert (spec.get("priorityClassName"), spec["priority"], spec["preemptionPolicy"]) == expected


@pytest.mark.parametrize("classes,p,message", [
    pytest.param([], pod(priorityClassName="gold"), "no PriorityClass with name gold was found", id="unknown"),
    pytest.param([pc("high", 1000)], pod(priorityClassName="high", priority=7),
                 "the integer value of priority (7) must not be provided in pod spec; priority admission "
                 "controller computed 1000 from the given PriorityClass name", id="priority-mismatch"),
    pytest.param([pc("high", 1000)], pod(priorityClassName="high", preemptionPolicy="Never"),
                 "the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority "
                 "admission controller computed PreemptLowerPriority from the given PriorityClass name",
                 id="policy-mismatch"),
])
def test_admit_pod_refuses(classes, p, message):
    with pytest.raises(StatusError) as err:
        priority.admit_pod(p, classes)
    assert err.value.message == f'pods "p" is forbidden: {message}'


def test_update_keeps_old_priority():
    old = pod(priority=5, preemptionPolicy="Never")
    assert priority.admit_pod_update(pod(), old)["spec"]["priority"] == 5


@pytest.mark.parametrize("new,existing,update,refused", [
    pytest.param(pc("b", 1, True), [pc("a", 1, True)], False, True, id="second-default"),
    pytest.param(pc("a", 1, True), [pc("a", 1, True)], True, False, id="default-updates-itself"),
    pytest.param(pc("b", 1, True), [pc("a", 1, True)], True, True, id="update-to-second-default"),
    pytest.param(pc("b", 1, False), [pc("a", 1, True)], False, False, id="not-default"),
])
def test_one_global_default(new, existing, update, refused):
    if refused:
        with pytest.raises(StatusError, match='priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a '
                                              'is already marked as default. Only one default can exist'):
            priority.validate_class_write(new, existing, update)
    else:
        priority.validate_class_write(new, existing, update)


def test_builtins_cannot_be_deleted():
    assert [b["value"] for b in priority.BUILTIN_CLASSES] == [2000000000, 2000001000]
    with pytest.raises(StatusError, match="this is a system priority class and cannot be deleted"):
        priority.validate_class_delete("system-node-critical")
    priority.validate_class_delete("mine")
