import pytest

from actors.apiserver.admission import limitranger
from api.status import StatusError


def lr(*items):
    return {"metadata": {"name": "limits", "namespace": "ns"}, "spec": {"limits": list(items)}}


def pod(*containers, init=()):
    return {"metadata": {"name": "p", "namespace": "ns"},
            "spec": {"containers": [{"name": n, "resources": r} for n, r in containers],
                     "initContainers": [{"name": n, "resources": r} for n, r in init]}}


def test_defaults_fill_missing_and_annotate():
    ranges = [lr({"type": "Container", "default": {"cpu": "500m", "memory": "512Mi"},
                  "defaultRequest": {"cpu": "100m", "memory": "256Mi"}})]
    out = limitranger.default(pod(("app", {"requests": {"memory": "64Mi"}}), init=[("x", {})]), ranges)
    app, x = out["spec"]["containers"][0], out["spec"]["initContainers"][0]
    assert app["resources"] == {"limits": {"cpu": "500m", "memory": "512Mi"}, "requests": {"memory": "64Mi",
                                                                                            "cpu": "100m"}}
    assert x["resources"]["requests"] == {"cpu": "100m", "memory": "256Mi"}
    assert out["metadata"]["annotations"][limitranger.ANNOTATION] == (
        "LimitRanger plugin set: cpu request for container app; cpu, memory limit for container app; "
        "cpu, memory request for init container x; cpu, memory limit for init container x")


def test_default_limit_comes_from_max_and_request_from_default():
    out = limitranger.default(pod(("app", {})), [lr({"type": "Container", "max": {"cpu": "1"}})])
    assert out["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}


def test_nothing_to_default_leaves_no_annotation():
    out = limitranger.default(pod(("app", {"requests": {"cpu": "1"}})), [lr({"type": "Pod", "max": {"cpu": "2"}})])
    assert "annotations" not in out["metadata"]


@pytest.mark.parametrize("item,p,message", [
    pytest.param({"type": "Container", "min": {"cpu": "200m"}}, pod(("app", {})),
                 "minimum cpu usage per Container is 200m.  No request is specified", id="min-no-request"),
    pytest.param({"type": "Container", "min": {"cpu": "200m"}}, pod(("app", {"requests": {"cpu": "0.1"}})),
                 "minimum cpu usage per Container is 200m, but request is 100m", id="min-request"),
    pytest.param({"type": "Container", "max": {"memory": "1Gi"}}, pod(("app", {"requests": {"memory": "1Gi"}})),
                 "maximum memory usage per Container is 1Gi.  No limit is specified", id="max-no-limit"),
    pytest.param({"type": "Container", "max": {"memory": "1Gi"}}, pod(("app", {"limits": {"memory": "2Gi"}})),
                 "maximum memory usage per Container is 1Gi, but limit is 2Gi", id="max-limit"),
    pytest.param({"type": "Container", "maxLimitRequestRatio": {"cpu": "4"}},
                 pod(("app", {"requests": {"cpu": "100m"}, "limits": {"cpu": "1500m"}})),
                 "cpu max limit to request ratio per Container is 4, but provided ratio is 15.000000", id="ratio"),
    pytest.param({"type": "Container", "maxLimitRequestRatio": {"cpu": "4"}}, pod(("app", {"limits": {"cpu": "1"}})),
                 "cpu max limit to request ratio per Container is 4, but no request is specified or request is 0",
                 id="ratio-no-request"),
    pytest.param({"type": "Pod", "max": {"cpu": "1"}},
                 pod(("a", {"limits": {"cpu": "600m"}}), ("b", {"limits": {"cpu": "600m"}})),
                 "maximum cpu usage per Pod is 1, but limit is 1200m", id="pod-sum"),
    pytest.param({"type": "Container", "min": {"cpu": "1"}},
                 pod(("a", {"requests": {"cpu": "100m"}}), ("b", {"requests": {"cpu": "200m"}})),
                 "[minimum cpu usage per Container is 1, but request is 100m, "
                 "minimum cpu usage per Container is 1, but request is 200m]", id="aggregate"),
])
def test_validate_refuses(item, p, message):
    with pytest.raises(StatusError) as err:
        limitranger.validate(p, [lr(item)])
    assert err.value.message == f'pods "p" is forbidden: {message}'


def test_within_bounds_passes():
    limitranger.validate(pod(("app", {"requests": {"cpu": "200m"}, "limits": {"cpu": "400m"}})),
                         [lr({"type": "Container", "min": {"cpu": "100m"}, "max": {"cpu": "1"},
                              "maxLimitRequestRatio": {"cpu": "2"}})])
