"""Field selectors read an absent selectable field as Kubernetes' field sets do: its Go zero value."""
import pytest

from api.fieldselectors import parse_fields

NODE = {"kind": "Node", "metadata": {"name": "n"}, "spec": {}}


@pytest.mark.parametrize("obj, selector, selected", [
    (NODE, "spec.unschedulable=false", True),  # the conformance suite's setup lists nodes so
    (NODE, "spec.unschedulable!=true", True),
    (NODE, "spec.unschedulable=true", False),
    ({**NODE, "spec": {"unschedulable": True}}, "spec.unschedulable=false", False),
    ({"kind": "Pod", "metadata": {}, "spec": {}}, "spec.hostNetwork=false", True),
    ({"kind": "Job", "metadata": {}, "status": {}}, "status.successful=0", True),
    ({"kind": "ReplicationController", "metadata": {}}, "status.replicas=0", True),
    ({"kind": "ReplicaSet", "metadata": {}, "status": {"replicas": 2}}, "status.replicas=0", False),
    ({"kind": "Pod", "metadata": {}, "status": {}}, "status.podIP=", True),  # a string's zero value is ""
    ({"kind": "ConfigMap", "metadata": {}}, "spec.unschedulable=false", False),  # only where the kind has it
    ({"kind": "Event", "source": {"component": "kubelet", "host": "n"}}, "source=kubelet", True),
    ({"kind": "Event", "source": {}, "reportingComponent": "kubus-scheduler"}, "source=kubus-scheduler", True),
])
def test_absent_fields_read_as_their_zero_value(obj, selector, selected):
    assert parse_fields(selector).matches(obj) is selected
